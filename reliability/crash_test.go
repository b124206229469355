package reliability

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// cmState is what a client knows of one record.
type cmState struct {
	exists bool
	val    string
	rv     int64
}

// keyTrack is one key's acknowledged state and, after a write that got no
// answer, the state that write would have made: either may be the truth.
type keyTrack struct {
	name  string
	acked cmState
	alt   *cmState
}

// durability drives writers that each own their keys, so every definite
// answer can be judged: a 409 or 404 where the acknowledged state allows
// none means an acknowledged write was lost.
type durability struct {
	t     *testing.T
	api   atomic.Pointer[kube]
	pause sync.RWMutex // writers hold it shared; verification exclusively
	maxRV atomic.Int64 // the highest resourceVersion acknowledged
	acks  atomic.Int64
	keys  [][]*keyTrack
}

func (d *durability) ack(rv int64) {
	d.acks.Add(1)
	for {
		cur := d.maxRV.Load()
		if rv <= cur || d.maxRV.CompareAndSwap(cur, rv) {
			return
		}
	}
}

// read returns the key's state on the server; ok false if it did not answer.
func (d *durability) read(ctx context.Context, k *keyTrack) (cmState, bool) {
	code, o, err := d.api.Load().call(ctx, "GET", recPath+"/"+k.name, nil)
	switch {
	case err == nil && code == 200:
		return cmState{exists: true, val: value(o), rv: rvOf(o)}, true
	case err == nil && code == 404:
		return cmState{}, true
	}
	return cmState{}, false
}

// settle replaces an unknown outcome with what the server holds, which
// must be one of the two states the key can be in.
func (d *durability) settle(ctx context.Context, k *keyTrack) bool {
	got, ok := d.read(ctx, k)
	if !ok {
		return false
	}
	same := func(s cmState) bool { return s.exists == got.exists && s.val == got.val }
	switch {
	case k.alt == nil && !same(k.acked), k.alt != nil && !same(k.acked) && !same(*k.alt):
		d.t.Errorf("%s: server has %+v; acknowledged %+v (maybe %+v)", k.name, got, k.acked, k.alt)
	case k.alt == nil && got.exists && got.rv != k.acked.rv:
		d.t.Errorf("%s: resourceVersion %d, acknowledged %d and unwritten since", k.name, got.rv, k.acked.rv)
	}
	k.acked, k.alt = got, nil
	return true
}

// step makes one write on k and records what its answer proves.
func (d *durability) step(ctx context.Context, rnd *rand.Rand, k *keyTrack, n int) {
	if k.alt != nil && !d.settle(ctx, k) {
		return
	}
	api := d.api.Load()
	var code int
	var o obj
	var err error
	var want cmState
	switch {
	case !k.acked.exists:
		want = cmState{exists: true, val: fmt.Sprint(n)}
		code, o, err = api.call(ctx, "POST", recPath, record(k.name, want.val, ""))
	case rnd.IntN(3) > 0:
		want = cmState{exists: true, val: fmt.Sprint(n)}
		code, o, err = api.call(ctx, "PUT", recPath+"/"+k.name, record(k.name, want.val, fmt.Sprint(k.acked.rv)))
	default:
		code, _, err = api.call(ctx, "DELETE", recPath+"/"+k.name,
			obj{"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": obj{"resourceVersion": fmt.Sprint(k.acked.rv)}})
	}
	switch {
	case err == nil && code >= 200 && code < 300:
		if want.exists {
			want.rv = rvOf(o)
		}
		k.acked = want
		d.ack(want.rv)
	case err == nil && (code == 409 || code == 404):
		d.t.Errorf("%s: %d where the acknowledged state %+v allows none: an acknowledged write was lost", k.name, code, k.acked)
	default: // no answer, or the server failing: the write may have landed
		k.alt = &want
		time.Sleep(20 * time.Millisecond)
	}
}

// verifyAll checks every key against what was acknowledged, and that the
// server's resourceVersion is not behind any acknowledged one.
func (d *durability) verifyAll(ctx context.Context) {
	d.pause.Lock()
	defer d.pause.Unlock()
	for _, ks := range d.keys {
		for _, k := range ks {
			deadline := time.Now().Add(20 * time.Second)
			for !d.settle(ctx, k) {
				if time.Now().After(deadline) {
					d.t.Fatalf("%s: no answer after restart", k.name)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	code, o, err := d.api.Load().call(ctx, "GET", recPath, nil)
	if err != nil || code != 200 {
		d.t.Fatalf("list after restart: %d %v", code, err)
	}
	if rv, max := rvOf(o), d.maxRV.Load(); rv < max {
		d.t.Errorf("list resourceVersion %d is behind the acknowledged %d: it went backwards", rv, max)
	}
}

// TestAcknowledgedWritesSurviveSIGKILL runs converge up as a child process,
// writes records (Events) from four clients at once and scales the seed
// Deployment, kills the process with SIGKILL at random moments five times
// and restarts it on the same data dir. Every acknowledged create, update
// and delete must be there after each restart, resourceVersions must not
// go back, and the Deployment must converge to its acknowledged scale.
func TestAcknowledgedWritesSurviveSIGKILL(t *testing.T) {
	bin := convergeBin(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	args := []string{"--nodes", "2", "--tick", "200ms"}
	c := startChild(t, bin, dataDir, args...)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(uint64(seed), 1))
	ctx := context.Background()

	d := &durability{t: t}
	d.api.Store(c.kube)
	for w := 0; w < 4; w++ {
		var ks []*keyTrack
		for i := 0; i < 6; i++ {
			ks = append(ks, &keyTrack{name: fmt.Sprintf("crash-%d-%d", w, i)})
		}
		d.keys = append(d.keys, ks)
	}
	manifest, err := os.ReadFile("../examples/my-app.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var deploy obj
	if err := yaml.Unmarshal(manifest, &deploy); err != nil {
		t.Fatal(err)
	}
	const deployPath = "/apis/apps/v1/namespaces/default/deployments"
	if code, o, err := c.kube.call(ctx, "POST", deployPath, deploy); err != nil || code != 201 {
		t.Fatalf("create the Deployment: %d %v %v", code, err, o)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w, ks := range d.keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(seed), uint64(w+2)))
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				d.pause.RLock()
				d.step(ctx, r, ks[r.IntN(len(ks))], n)
				d.pause.RUnlock()
			}
		}()
	}
	replicas := 3
	for kill := 0; kill < 5; kill++ {
		// The scale is acknowledged just before the kill, so the
		// controllers are mid-flight when the process dies.
		replicas = 1 + rnd.IntN(4)
		scaleDeployment(t, c.kube, replicas)
		time.Sleep(time.Duration(200+rnd.IntN(1300)) * time.Millisecond)
		before := d.acks.Load()
		c.kill()
		c = startChild(t, bin, dataDir, args...)
		d.api.Store(c.kube)
		d.verifyAll(ctx)
		t.Logf("kill %d: %d writes acknowledged before it; scale %d", kill+1, before, replicas)
	}
	close(stop)
	wg.Wait()
	d.verifyAll(ctx)
	if d.acks.Load() < 50 {
		t.Errorf("only %d writes acknowledged: the test proves little", d.acks.Load())
	}
	waitDeployment(t, c.kube, replicas)
}

func scaleDeployment(t *testing.T, k *kube, replicas int) {
	t.Helper()
	path := "/apis/apps/v1/namespaces/default/deployments/myapp"
	for attempt := 0; ; attempt++ {
		code, o, err := k.call(context.Background(), "GET", path, nil)
		if err == nil && code == 200 {
			o["spec"].(map[string]any)["replicas"] = replicas
			if code, _, err = k.call(context.Background(), "PUT", path, o); err == nil && code == 200 {
				return
			}
		}
		if attempt == 50 {
			t.Fatalf("scale to %d: %d %v", replicas, code, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitDeployment waits until the seed Deployment has replicas ready pods
// and no others.
func waitDeployment(t *testing.T, k *kube, replicas int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, d, err1 := k.call(context.Background(), "GET", "/apis/apps/v1/namespaces/default/deployments/myapp", nil)
		_, pods, err2 := k.call(context.Background(), "GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dmyapp", nil)
		if err1 == nil && err2 == nil {
			items, _ := pods["items"].([]any)
			if field(d, "status", "readyReplicas") == fmt.Sprint(replicas) && field(d, "spec", "replicas") == fmt.Sprint(replicas) && len(items) == replicas {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Deployment did not converge to %d replicas: %v", replicas, d["status"])
		}
		time.Sleep(200 * time.Millisecond)
	}
}
