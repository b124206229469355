package apiserver

import (
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// recordingTracker keeps what it hears; it refuses the requests refuse
// names by verb.
type recordingTracker struct {
	mu     sync.Mutex
	begun  []string
	ended  []int
	refuse map[string]error
	closes []func()
}

func (r *recordingTracker) Begin(u User, req Request) (func(int), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.begun = append(r.begun, u.Name+" "+req.Verb+" "+req.Resource+" "+req.Namespace+"/"+req.Name)
	if req.Close != nil {
		r.closes = append(r.closes, req.Close)
	}
	if err := r.refuse[req.Verb]; err != nil {
		return nil, err
	}
	return func(code int) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.ended = append(r.ended, code)
	}, nil
}

// TestTrackerHearsEachRequestByUser: the tracker names the user and the
// route of each request, hears its status code, and a refusal answers
// the request with its Status and Retry-After, writing nothing.
func TestTrackerHearsEachRequestByUser(t *testing.T) {
	tr := &recordingTracker{refuse: map[string]error{"delete": api.NewTooManyRequests("slow down", 3)}}
	e := newEnvOn(t, storetest.Store(t), testAuth(t, false), func(c *Config) { c.Tracker = tr })
	e.token = adminToken
	e.must(201, "POST", podPath, podJSON("p", nil))
	e.must(404, "GET", podPath+"/q", "")
	resp := e.must(429, "DELETE", podPath+"/p", "")
	if got := resp.hdr.Get("Retry-After"); got != "3" {
		t.Fatalf("Retry-After %q, want 3", got)
	}
	e.must(200, "GET", podPath+"/p", "") // the refused delete wrote nothing
	want := []string{"admin create pods default/", "admin get pods default/q", "admin delete pods default/p", "admin get pods default/p"}
	if len(tr.begun) != len(want) {
		t.Fatalf("heard %q, want %q", tr.begun, want)
	}
	for i := range want {
		if tr.begun[i] != want[i] {
			t.Fatalf("heard %q, want %q", tr.begun, want)
		}
	}
	if codes := tr.ended; len(codes) != 3 || codes[0] != 201 || codes[1] != 404 || codes[2] != 200 {
		t.Fatalf("codes %v, want [201 404 200]", codes)
	}
	if !(Request{Verb: "patch"}).IsWrite() || (Request{Verb: "patch", DryRun: true}).IsWrite() || (Request{Verb: "watch"}).IsWrite() {
		t.Fatal("IsWrite")
	}
}

// TestTrackerClosesAWatch: a watch's Close ends its stream, as a client
// that went away would, and the tracker hears it end.
func TestTrackerClosesAWatch(t *testing.T) {
	tr := &recordingTracker{}
	e := newEnvOn(t, storetest.Store(t), testAuth(t, false), func(c *Config) { c.Tracker = tr })
	req, err := http.NewRequest("GET", e.srv.URL+podPath+"?watch=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	tr.mu.Lock()
	if len(tr.closes) != 1 {
		t.Fatalf("%d watches with a Close, want 1", len(tr.closes))
	}
	closeWatch := tr.closes[0]
	tr.mu.Unlock()
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, resp.Body); done <- err }()
	closeWatch()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not end when closed")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		tr.mu.Lock()
		n := len(tr.ended)
		tr.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the tracker never heard the watch end")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
