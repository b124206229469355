package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/serving"
)

// settledGoroutines waits until the goroutine count stops falling and
// returns it.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for i := 0; i < 20; i++ {
		time.Sleep(50 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m >= n && i > 3 {
			return m
		}
		n = m
	}
	return n
}

// backToBase waits up to 15 s for the goroutine count to return to base
// (with a little slack for etcd's own timers) and fails if it does not.
func backToBase(t *testing.T, what string, base int) {
	t.Helper()
	const slack = 15
	deadline := time.Now().Add(15 * time.Second)
	for runtime.NumGoroutine() > base+slack {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%s: %d goroutines, %d before:\n%s", what, runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBodiesOver3MiBAre413 sends a create, an update and a patch just over
// Kubernetes' 3 MiB limit; each must be refused with a 413 Status, and
// one just under it must get through to validation.
func TestBodiesOver3MiBAre413(t *testing.T) {
	a := startAPI(t, 1, 0)
	big := record("big", strings.Repeat("x", 3<<20), "")
	body, _ := json.Marshal(big)
	for _, c := range []struct{ method, path, ctype string }{
		{"POST", recPath, "application/json"},
		{"PUT", recPath + "/big", "application/json"},
		{"PATCH", recPath + "/big", "application/merge-patch+json"},
	} {
		req, _ := http.NewRequest(c.method, a.kube.base+c.path, bytes.NewReader(body))
		req.Header.Set("Content-Type", c.ctype)
		resp, err := a.kube.hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		var st obj
		_ = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if resp.StatusCode != 413 || field(st, "kind") != "Status" || field(st, "code") != "413" {
			t.Errorf("%s of %d bytes: %d %v, want a 413 Status", c.method, len(body), resp.StatusCode, st)
		}
	}
	small := record("small", strings.Repeat("x", 1<<20), "")
	if code, o, err := a.kube.call(context.Background(), "POST", recPath, small); err != nil || code != 201 {
		t.Errorf("a 1 MiB create: %d %v %v", code, err, field(o, "message"))
	}
}

// TestSlowClientsHoldNothing opens connections that trickle their headers
// or their body, or idle after a request; the server must drop each within
// its limits, and the goroutines they held must go.
func TestSlowClientsHoldNothing(t *testing.T) {
	a := startAPIWith(t, 1, 0, serving.Limits{ReadHeader: 300 * time.Millisecond, Body: 500 * time.Millisecond, Idle: time.Second})
	addr := strings.TrimPrefix(a.kube.base, "http://")
	base := settledGoroutines()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			var start string
			switch i % 3 {
			case 0: // headers that never end
				start = "GET " + recPath + " HTTP/1.1\r\nHost: x\r\n"
			case 1: // a body that never comes
				start = "POST " + recPath + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"kind\":"
			case 2: // one request, then a keep-alive connection left idle
				start = "GET " + recPath + " HTTP/1.1\r\nHost: x\r\n\r\n"
			}
			if _, err := c.Write([]byte(start)); err != nil {
				errs <- err
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.Copy(io.Discard, c); err != nil { // until the server closes
				errs <- fmt.Errorf("slow client %d was not dropped: %v", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	backToBase(t, "after 100 slow clients", base)
}

// TestWatchStormLeaksNothing opens 1000 watches, checks that the server
// really holds them, drops them all and checks that every goroutine they
// took is gone.
func TestWatchStormLeaksNothing(t *testing.T) {
	a := startAPI(t, 1, 0)
	tr := &http.Transport{DisableKeepAlives: true}
	hc := &http.Client{Transport: tr}
	base := settledGoroutines()
	ctx, cancel := context.WithCancel(context.Background())
	const watches = 1000
	var wg sync.WaitGroup
	opened := make(chan io.Closer, watches)
	for w := 0; w < 10; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < watches/10; i++ {
				req, _ := http.NewRequestWithContext(ctx, "GET", a.kube.base+recPath+"?watch=true", nil)
				resp, err := hc.Do(req)
				if err != nil {
					t.Errorf("watch %d: %v", i, err)
					return
				}
				if resp.StatusCode != 200 {
					t.Errorf("watch %d: %d", i, resp.StatusCode)
				}
				opened <- resp.Body
			}
		}()
	}
	wg.Wait()
	close(opened)
	held := runtime.NumGoroutine()
	if held < base+watches {
		t.Errorf("%d goroutines with %d watches open, %d before: the watches are not being served", held, watches, base)
	}
	// Half are closed by the client, half by cancelling their requests.
	n := 0
	for b := range opened {
		if n++; n%2 == 0 {
			b.Close()
		}
	}
	cancel()
	tr.CloseIdleConnections()
	backToBase(t, fmt.Sprintf("after %d watches (%d goroutines while open)", watches, held), base)
	t.Logf("goroutines: %d before, %d with %d watches open, %d after", base, held, watches, runtime.NumGoroutine())
}

// TestSlowWatcherIsCutOff opens five watches that read nothing and writes
// more than the sockets between them can hold: once a write stalls the
// server must end each watch and free what it held, not keep its events.
func TestSlowWatcherIsCutOff(t *testing.T) {
	a := startAPIWith(t, 1, 0, serving.Limits{WriteStall: 300 * time.Millisecond})
	base := settledGoroutines()
	for i := 0; i < 5; i++ {
		slow, err := openSlowWatcher(a.kube, 4096)
		if err != nil {
			t.Fatal(err)
		}
		defer slow.Close()
	}
	pad := strings.Repeat("x", 64<<10)
	ctx := context.Background()
	for i := 0; i < 200; i++ { // 12.5 MiB of events
		if code, _, err := a.kube.call(ctx, "POST", recPath, record(fmt.Sprintf("slow-%d", i), pad, "")); err != nil || code != 201 {
			t.Fatalf("create %d: %d %v", i, code, err)
		}
	}
	backToBase(t, "a watcher that reads nothing", base)
}
