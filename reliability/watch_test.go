package reliability

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"
)

// wev is one watch event as the test keeps it.
type wev struct {
	typ, name, val string
	rv             int64
	code           int // an ERROR event's Status code
}

// watchStream reads a watch of the records from rv until ctx ends or the
// stream does, sending every event to out. It returns the HTTP code.
func watchStream(ctx context.Context, k *kube, rv string, out chan<- wev) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", k.base+recPath+"?watch=true&allowWatchBookmarks=true&resourceVersion="+rv, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return resp.StatusCode, nil
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct {
			Type   string `json:"type"`
			Object obj    `json:"object"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return 200, fmt.Errorf("watch line %q: %v", sc.Text(), err)
		}
		ev := wev{typ: e.Type, name: field(e.Object, "metadata", "name"), val: value(e.Object), rv: rvOf(e.Object)}
		if e.Type == "ERROR" {
			fmt.Sscan(field(e.Object, "code"), &ev.code)
		}
		select {
		case out <- ev:
		case <-ctx.Done():
			return 200, nil
		}
	}
	return 200, nil
}

// collect watches from rv until an event at or past until arrives (or an
// ERROR, or 20 s pass), and returns what came.
func collect(t *testing.T, k *kube, rv string, until int64) (events []wev, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ch := make(chan wev, 1024)
	done := make(chan struct{})
	go func() {
		code, _ = watchStream(ctx, k, rv, ch)
		close(done)
	}()
	for {
		select {
		case ev := <-ch:
			events = append(events, ev)
			if ev.rv >= until || ev.typ == "ERROR" {
				cancel()
				<-done
				return events, code
			}
		case <-done:
			return events, code
		}
	}
}

// write is one acknowledged write: its event type, name, value and rv.
type write struct {
	typ, name, val string
	rv             int64
}

// TestWatchGuarantees checks etcd's watch guarantees on the apiserver's
// watches: events come in revision order without duplicates, every
// acknowledged write is delivered (per object in the order written), a
// watch resumes from any revision not compacted with exactly the events
// after it, one from a compacted revision ends in 410, and no event at or
// below a bookmark's revision follows the bookmark.
func TestWatchGuarantees(t *testing.T) {
	a := startAPI(t, 3, 30*time.Millisecond)
	ctx := context.Background()
	code, l, err := a.kube.call(ctx, "GET", recPath, nil)
	if err != nil || code != 200 {
		t.Fatalf("list: %d %v", code, err)
	}
	start := field(l, "metadata", "resourceVersion")

	// Two writers, each over its own names, so each name's order is known.
	var mu sync.Mutex
	var writes []write
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(w), 9))
			exists := map[string]bool{}
			for n := 0; n < 150; n++ {
				name := fmt.Sprintf("watch-%d-%d", w, rnd.IntN(4))
				val := fmt.Sprint(n)
				var wr write
				var code int
				var o obj
				var err error
				switch {
				case !exists[name]:
					wr = write{typ: "ADDED", name: name, val: val}
					code, o, err = a.kube.call(ctx, "POST", recPath, record(name, val, ""))
				case rnd.IntN(4) > 0:
					wr = write{typ: "MODIFIED", name: name, val: val}
					code, o, err = a.kube.call(ctx, "PUT", recPath+"/"+name, record(name, val, ""))
				default:
					wr = write{typ: "DELETED", name: name}
					code, o, err = a.kube.call(ctx, "DELETE", recPath+"/"+name, nil)
				}
				if err != nil || code >= 300 {
					t.Errorf("%s %s: %d %v", wr.typ, name, code, err)
					return
				}
				exists[name] = wr.typ != "DELETED"
				wr.rv = rvOf(o)
				if wr.typ == "DELETED" {
					wr.val = value(o)
				}
				mu.Lock()
				writes = append(writes, wr)
				mu.Unlock()
				if n%50 == 49 {
					time.Sleep(100 * time.Millisecond) // room for bookmarks
				}
			}
		}()
	}
	first := make(chan []wev)
	go func() {
		evs, _ := collect(t, a.kube, start, 1<<62) // ends at the 20 s limit or when cut below
		first <- evs
	}()
	wg.Wait()
	if t.Failed() {
		return
	}
	_, l, _ = a.kube.call(ctx, "GET", recPath, nil)
	end := rvOf(l)
	full, _ := collect(t, a.kube, start, end)
	checkWatch(t, "from start", full, writes, end, false) // a replay may end before the next bookmark is due

	// Resumable from any revision not compacted: exactly the later events.
	var changes []wev
	for _, e := range full {
		if e.typ != "BOOKMARK" {
			changes = append(changes, e)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5; i++ {
		from := changes[rnd.IntN(len(changes)-1)].rv
		got, _ := collect(t, a.kube, fmt.Sprint(from), end)
		var want, have []string
		for _, e := range changes {
			if e.rv > from {
				want = append(want, fmt.Sprintf("%s %s %d", e.typ, e.name, e.rv))
			}
		}
		for _, e := range got {
			if e.typ != "BOOKMARK" {
				have = append(have, fmt.Sprintf("%s %s %d", e.typ, e.name, e.rv))
			}
		}
		if fmt.Sprint(want) != fmt.Sprint(have) {
			t.Errorf("resumed from %d: got %d events, want %d\n got  %v\n want %v", from, len(have), len(want), have, want)
		}
	}

	// Compacted history answers 410 Gone, at once or as an ERROR event.
	mid := changes[len(changes)/2].rv
	if err := a.store.Compact(ctx, mid); err != nil {
		t.Fatal(err)
	}
	got, code := collect(t, a.kube, fmt.Sprint(changes[1].rv), end)
	if code != 410 && (len(got) == 0 || got[len(got)-1].code != 410) {
		t.Errorf("a watch from compacted revision %d got %d and %v, want 410", changes[1].rv, code, got)
	}
	for _, e := range got {
		if e.typ != "ERROR" && e.typ != "BOOKMARK" {
			t.Errorf("a watch from a compacted revision delivered %v before its 410", e)
		}
	}
	// A watch open since the start, across the compaction, missed nothing.
	a.srv.CloseClientConnections()
	checkWatch(t, "across compaction", <-first, writes, end, true)
	t.Logf("%d writes, %d events and bookmarks from the start", len(writes), len(full))
}

// checkWatch checks one watch's events against the acknowledged writes.
// Bookmarks are sent on a timer, so only a watch that was open through the
// writers' pauses must have one.
func checkWatch(t *testing.T, label string, events []wev, writes []write, end int64, wantBookmark bool) {
	t.Helper()
	var last, bookmark int64
	bookmarks := 0
	perName := map[string][]string{}
	for _, e := range events {
		switch e.typ {
		case "BOOKMARK":
			bookmarks++
			if e.rv < last {
				t.Errorf("%s: bookmark %d behind the delivered event %d", label, e.rv, last)
			}
			bookmark = e.rv
			continue
		case "ERROR":
			t.Fatalf("%s: ERROR %v", label, e)
		}
		if e.rv <= last {
			t.Errorf("%s: event %s %s at %d after %d: out of order or duplicated", label, e.typ, e.name, e.rv, last)
		}
		if e.rv <= bookmark {
			t.Errorf("%s: event at %d after a bookmark at %d: the bookmark was ahead", label, e.rv, bookmark)
		}
		last = e.rv
		perName[e.name] = append(perName[e.name], e.typ+" "+e.val)
	}
	wantPer := map[string][]string{}
	for _, w := range writes {
		wantPer[w.name] = append(wantPer[w.name], w.typ+" "+w.val)
	}
	for name, want := range wantPer {
		if fmt.Sprint(want) != fmt.Sprint(perName[name]) {
			t.Errorf("%s: %s delivered %v, written %v", label, name, perName[name], want)
		}
	}
	if len(perName) != len(wantPer) {
		t.Errorf("%s: events for %d names, %d written", label, len(perName), len(wantPer))
	}
	if last != end && last < end {
		t.Errorf("%s: last event at %d, the list is at %d", label, last, end)
	}
	if wantBookmark && bookmarks == 0 {
		t.Errorf("%s: no bookmark in %d events", label, len(events))
	}
}
