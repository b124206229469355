package apiserver

import (
	"sync"
	"testing"

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
}

func (r *recordingTracker) Begin(u User, req Request) (func(int), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.begun = append(r.begun, u.Name+" "+req.Verb+" "+req.Resource+" "+req.Namespace+"/"+req.Name)
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
