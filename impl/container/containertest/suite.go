package containertest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/container"
)

type suite struct {
	run        string
	newRuntime NewRuntime
	crash      func(id string)
	ready      func(t *testing.T, spec container.ContainerSpec)
}

// startReady starts a container and waits until its process is ready.
func (s *suite) startReady(t *testing.T, rt container.Runtime, sp container.ContainerSpec) container.ContainerStatus {
	t.Helper()
	st := mustStart(t, rt, sp)
	if s.ready != nil {
		s.ready(t, sp)
	}
	return st
}

// HTTPReady waits until GET http://PodIP:Ports[0]/healthz answers 200, as
// the echo image does once it is serving.
func HTTPReady(t *testing.T, sp container.ContainerSpec) {
	t.Helper()
	if sp.PodIP == "" || len(sp.Ports) == 0 {
		t.Fatalf("HTTPReady: %s has no pod IP or port", sp.ID)
	}
	url := fmt.Sprintf("http://%s/healthz", net.JoinHostPort(sp.PodIP, strconv.Itoa(sp.Ports[0])))
	// No proxy: the address is on this machine whatever HTTP_PROXY says.
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil}}
	deadline := time.Now().Add(pollDeadline)
	for {
		resp, err := hc.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became ready at %s: %v", sp.ID, url, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runtime makes the runtime of a node unique to this subtest and removes
// whatever is left on it when the subtest ends.
func (s *suite) runtime(t *testing.T, suffix string) (container.Runtime, string) {
	t.Helper()
	node := fmt.Sprintf("%s-%s-%s", s.run, sanitize(t.Name()), suffix)
	rt := s.newRuntime(t, node)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), pollDeadline)
		defer cancel()
		list, err := rt.List(ctx)
		if err != nil {
			t.Errorf("cleanup: list: %v", err)
			return
		}
		for _, c := range list {
			if err := rt.Stop(ctx, c.ID, 0); err != nil {
				t.Errorf("cleanup: stop %s: %v", c.ID, err)
			}
			if err := rt.Remove(ctx, c.ID); err != nil {
				t.Errorf("cleanup: remove %s: %v", c.ID, err)
			}
		}
	})
	return rt, node
}

// sanitize keeps the characters an id may hold: alphanumeric runs joined
// by single dashes.
func sanitize(name string) string {
	var b []byte
	dash := false
	for _, c := range []byte(name) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			if dash && len(b) > 0 {
				b = append(b, '-')
			}
			b, dash = append(b, c), false
		} else {
			dash = true
		}
	}
	return string(b)
}

// spec describes an echo container of node with a fresh address.
func spec(node, name string) container.ContainerSpec {
	n := addresses.Add(1)
	return container.ContainerSpec{
		ID:           node + "_" + name + "_0",
		Node:         node,
		PodNamespace: "conformance",
		PodName:      node + "-" + name,
		PodUID:       "uid-" + node + "-" + name,
		Name:         name,
		Image:        Image,
		PodIP:        fmt.Sprintf("127.77.%d.%d", n/250%250, n%250+1),
		Ports:        []int{Port},
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*pollDeadline)
	t.Cleanup(cancel)
	return ctx
}

func mustStart(t *testing.T, rt container.Runtime, sp container.ContainerSpec) container.ContainerStatus {
	t.Helper()
	st, err := rt.Start(ctxFor(t), sp)
	if err != nil {
		t.Fatalf("start %s: %v", sp.ID, err)
	}
	return st
}

func mustStatus(t *testing.T, rt container.Runtime, id string) container.ContainerStatus {
	t.Helper()
	st, err := rt.Status(ctxFor(t), id)
	if err != nil {
		t.Fatalf("status %s: %v", id, err)
	}
	return st
}

// waitState polls until the container reaches state.
func waitState(t *testing.T, rt container.Runtime, id string, want container.State) container.ContainerStatus {
	t.Helper()
	deadline := time.Now().Add(pollDeadline)
	for {
		st := mustStatus(t, rt, id)
		if st.State == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s stayed %s (reason %q), want %s", id, st.State, st.Reason, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ids(list []container.ContainerStatus) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.ID
	}
	return out
}

func checkIdentity(t *testing.T, st container.ContainerStatus, sp container.ContainerSpec) {
	t.Helper()
	if st.ID != sp.ID || !container.SameContainer(st, sp) {
		t.Fatalf("status %+v does not describe spec %+v", st, sp)
	}
	// The address survives in the runtime: a restarted kubelet reads it back.
	if st.PodIP != sp.PodIP {
		t.Fatalf("status has pod IP %q, started with %q", st.PodIP, sp.PodIP)
	}
}

func sameStatus(a, b container.ContainerStatus) bool {
	if !a.StartedAt.Equal(b.StartedAt) || !a.FinishedAt.Equal(b.FinishedAt) {
		return false
	}
	a.StartedAt, a.FinishedAt, b.StartedAt, b.FinishedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	return a == b
}

func wantErr(t *testing.T, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: err = %v, want %v", what, err, target)
	}
}
