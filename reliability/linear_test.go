package reliability

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// history records operations from many clients with one clock.
type history struct {
	start time.Time
	mu    sync.Mutex
	ops   []porcupine.Operation
}

func (h *history) now() int64 { return int64(time.Since(h.start)) }

func (h *history) add(op porcupine.Operation) {
	h.mu.Lock()
	h.ops = append(h.ops, op)
	h.mu.Unlock()
}

// linKeys are the keys the linearizability workload shares.
var linKeys = []string{"lin-a", "lin-b", "lin-c"}

// linClient runs ops calls from one client, recording each. A call with no
// answer, or a 5xx, is pending for ever: it may take effect at any later time.
func linClient(ctx context.Context, k *kube, h *history, id, ops int, rnd *rand.Rand) {
	seen := map[string]int64{} // the last resourceVersion this client saw per key
	for n := 0; n < ops && ctx.Err() == nil; n++ {
		key := linKeys[rnd.IntN(len(linKeys))]
		val := fmt.Sprintf("c%d-%d", id, n)
		var in regInput
		call := h.now()
		var code int
		var o obj
		var err error
		switch r := rnd.IntN(10); {
		case r < 2:
			in = regInput{key: key, op: "create", val: val}
			code, o, err = k.call(ctx, "POST", recPath, record(key, val, ""))
		case r < 4:
			in = regInput{key: key, op: "get"}
			code, o, err = k.call(ctx, "GET", recPath+"/"+key, nil)
		case r < 7:
			in = regInput{key: key, op: "update", val: val, rv: seen[key]}
			code, o, err = k.call(ctx, "PUT", recPath+"/"+key, record(key, val, fmt.Sprint(seen[key])))
		case r < 8:
			in = regInput{key: key, op: "delete"}
			code, o, err = k.call(ctx, "DELETE", recPath+"/"+key, nil)
		default:
			code, o, err = k.call(ctx, "GET", recPath, nil)
			ret := h.now()
			if err != nil || code != 200 {
				continue // a failed read says nothing
			}
			listed := map[string]obj{}
			items, _ := o["items"].([]any)
			for _, it := range items {
				m, _ := it.(map[string]any)
				listed[field(m, "metadata", "name")] = m
			}
			for _, lk := range linKeys {
				out := regOutput{code: 404}
				if m, ok := listed[lk]; ok {
					out = regOutput{code: 200, val: value(m), rv: rvOf(m)}
					seen[lk] = out.rv
				}
				h.add(porcupine.Operation{ClientId: id, Input: regInput{key: lk, op: "read"}, Call: call, Output: out, Return: ret})
			}
			continue
		}
		ret := h.now()
		out := regOutput{code: code}
		switch {
		case err != nil || code >= 500:
			if in.op == "get" {
				continue // a read with no answer did nothing
			}
			out, ret = regOutput{unknown: true}, math.MaxInt64
		case code == 200 || code == 201:
			if in.op != "delete" {
				out.val, out.rv = value(o), rvOf(o)
				seen[key] = out.rv
			}
		case code != 404 && code != 409:
			out, ret = regOutput{unknown: true}, math.MaxInt64 // 429 and the like: judged as unknown
		}
		h.add(porcupine.Operation{ClientId: id, Input: in, Call: call, Output: out, Return: ret})
	}
}

// checkLinearizable runs porcupine over ops; on a failure it saves the
// visualization and returns its path.
func checkLinearizable(t *testing.T, name string, ops []porcupine.Operation) (porcupine.CheckResult, string) {
	t.Helper()
	model := registerModel.ToModel()
	res, info := porcupine.CheckOperationsVerbose(model, ops, time.Minute)
	if res == porcupine.Ok {
		return res, ""
	}
	dir := os.Getenv("CONVERGE_FAILURES")
	if dir == "" {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.html", name, time.Now().UnixNano()))
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		t.Errorf("visualize: %v", err)
	}
	return res, path
}

// TestHistoryIsLinearizableUnderMemberFaults records six clients creating,
// reading, updating with preconditions, deleting and listing three keys
// through the apiserver, on a 3-member etcd whose leader is killed and
// whose members restart meanwhile, and checks the history with porcupine.
func TestHistoryIsLinearizableUnderMemberFaults(t *testing.T) {
	a := startAPI(t, 3, 0)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	h := &history{start: time.Now()}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for id := 0; id < 6; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			linClient(ctx, a.kube, h, id, 600, rand.New(rand.NewPCG(seed, uint64(id))))
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	faults := 0
	for round := 0; ; round++ {
		select {
		case <-done:
		case <-time.After(150 * time.Millisecond):
			victim, err := -1, error(nil)
			if round%2 == 0 {
				victim, err = a.etcd.KillLeader(10 * time.Second)
			} else if lead, lerr := a.etcd.Leader(10 * time.Second); lerr == nil {
				victim, err = (lead+1)%a.etcd.Size(), a.etcd.Kill((lead+1)%a.etcd.Size())
			} else {
				err = lerr
			}
			if err != nil {
				t.Fatalf("fault %d: %v", round, err)
			}
			time.Sleep(200 * time.Millisecond)
			if err := a.etcd.Restart(victim); err != nil {
				t.Fatalf("restart %d: %v", victim, err)
			}
			faults++
			continue
		}
		break
	}
	var unknown, definite int
	for _, op := range h.ops {
		if op.Output.(regOutput).unknown {
			unknown++
		} else {
			definite++
		}
	}
	t.Logf("%d operations answered, %d unanswered, %d member faults", definite, unknown, faults)
	if definite < 1000 || faults < 3 {
		t.Fatalf("too little happened to judge: %d answered, %d faults", definite, faults)
	}
	if res, path := checkLinearizable(t, "linearizability", h.ops); res != porcupine.Ok {
		t.Fatalf("history is %s; visualization at %s", res, path)
	}
}

// TestPorcupineRejectsAStaleRead proves the model can fail: a read that
// returns a value older than an acknowledged update that finished before
// it began is not linearizable, and its visualization is saved.
func TestPorcupineRejectsAStaleRead(t *testing.T) {
	t.Setenv("CONVERGE_FAILURES", t.TempDir())
	ops := []porcupine.Operation{
		{ClientId: 0, Input: regInput{key: "k", op: "create", val: "1"}, Call: 0, Output: regOutput{code: 201, val: "1", rv: 5}, Return: 10},
		{ClientId: 0, Input: regInput{key: "k", op: "update", val: "2", rv: 5}, Call: 20, Output: regOutput{code: 200, val: "2", rv: 6}, Return: 30},
		{ClientId: 1, Input: regInput{key: "k", op: "get"}, Call: 40, Output: regOutput{code: 200, val: "1", rv: 5}, Return: 50},
	}
	res, path := checkLinearizable(t, "stale-read", ops)
	if res != porcupine.Illegal {
		t.Fatalf("a stale read was judged %s", res)
	}
	html, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(html), "update(k 2 if rv=5)") {
		t.Fatalf("no visualization naming the operations at %s: %v", path, err)
	}
	// The same read while the update is unanswered is fine: it may not have landed.
	ops[1].Output, ops[1].Return = regOutput{unknown: true}, math.MaxInt64
	if res, _ := checkLinearizable(t, "pending", ops); res != porcupine.Ok {
		t.Fatalf("a read beside an unanswered update was judged %s", res)
	}
	// An update whose precondition does not hold cannot succeed.
	ops[1].Input, ops[1].Output, ops[1].Return = regInput{key: "k", op: "update", val: "2", rv: 4}, regOutput{code: 200, val: "2", rv: 6}, 30
	ops = ops[:2]
	if res, _ := checkLinearizable(t, "precondition", ops); res != porcupine.Illegal {
		t.Fatalf("an update with a stale precondition succeeding was judged %s", res)
	}
}
