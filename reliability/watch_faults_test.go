package reliability

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestWatchesKeepTheirGuaranteesUnderMemberFaults writes while the leader
// is killed and followers restart, with a watch open from the start
// through the apiserver: the watch must deliver events in revision order
// without duplicates, every acknowledged write among them; if it ends, a
// watch resumed from its last revision must carry on with no gap.
func TestWatchesKeepTheirGuaranteesUnderMemberFaults(t *testing.T) {
	a := startAPI(t, 3, 0)
	ctx := context.Background()
	code, l, err := a.kube.call(ctx, "GET", recPath, nil)
	if err != nil || code != 200 {
		t.Fatalf("list: %d %v", code, err)
	}
	from := field(l, "metadata", "resourceVersion")

	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	events := make(chan wev, 4096)
	resumes := 0
	go func() {
		defer close(events)
		last := from
		for wctx.Err() == nil {
			ch := make(chan wev, 64)
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = watchStream(wctx, a.kube, last, ch)
			}()
		stream:
			for {
				select {
				case e := <-ch:
					if e.typ == "ERROR" {
						break stream
					}
					last = fmt.Sprint(e.rv)
					events <- e
				case <-done:
					break stream
				}
			}
			resumes++
			time.Sleep(50 * time.Millisecond)
		}
	}()

	// One writer, updating eight records in turn, the leader killed and
	// restarted every 0.7 s, for 6 s and at least four faults: a loaded
	// machine can take seconds over one restart, and the test must not
	// end having seen one. A write with no answer may still have landed
	// and may add an event no acknowledgement accounts for.
	acked := map[int64]string{}
	unanswered := 0
	start := time.Now()
	faults := 0
	faultTick := time.NewTicker(700 * time.Millisecond)
	defer faultTick.Stop()
	for n := 0; time.Since(start) < 6*time.Second || (faults < 4 && time.Since(start) < 90*time.Second); n++ {
		select {
		case <-faultTick.C:
			victim, err := a.etcd.KillLeader(10 * time.Second)
			if err == nil {
				err = a.etcd.Restart(victim)
			}
			if err != nil {
				t.Fatalf("fault: %v", err)
			}
			faults++
		default:
		}
		name := fmt.Sprintf("wf-%d", n%8)
		val := fmt.Sprint(n)
		method, path := "PUT", recPath+"/"+name
		if n < 8 {
			method, path = "POST", recPath
		}
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		code, o, err := a.kube.call(cctx, method, path, record(name, val, ""))
		cancel()
		switch {
		case err == nil && code < 300:
			acked[rvOf(o)] = name + "=" + val
		case err == nil && code == 409 && method == "POST": // an unanswered create that landed
		default:
			unanswered++
		}
	}
	_, l, err = a.kube.call(ctx, "GET", recPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	end := rvOf(l)
	var got []wev
	deadline := time.After(20 * time.Second)
collect:
	for {
		select {
		case e, ok := <-events:
			if !ok {
				break collect
			}
			got = append(got, e)
			if e.rv >= end {
				break collect
			}
		case <-deadline:
			break collect
		}
	}
	stopWatch()
	for range events { // until the watcher has stopped, so resumes is final
	}
	var last int64
	seen := map[int64]bool{}
	for _, e := range got {
		if e.rv <= last {
			t.Errorf("event %s %s at %d after %d: out of order or duplicated", e.typ, e.name, e.rv, last)
		}
		last = e.rv
		seen[e.rv] = true
		if want, ok := acked[e.rv]; ok && want != e.name+"="+e.val {
			t.Errorf("event at %d is %s=%s; the write acknowledged there was %s", e.rv, e.name, e.val, want)
		}
	}
	missing := 0
	for rv, w := range acked {
		if !seen[rv] {
			missing++
			if missing < 5 {
				t.Errorf("acknowledged write %s at %d never delivered", w, rv)
			}
		}
	}
	if extra := len(got) - len(acked); extra > unanswered {
		t.Errorf("%d events beyond the %d acknowledged writes, only %d unanswered", extra, len(acked), unanswered)
	}
	t.Logf("%d writes acknowledged, %d unanswered, %d events, %d leader kills, %d watch resumes", len(acked), unanswered, len(got), faults, resumes-1)
	if faults < 3 || len(acked) < 50 {
		t.Errorf("too little happened: %d faults, %d writes", faults, len(acked))
	}
}
