package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

func TestTmpTimeline(t *testing.T) {
	r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	r.Apply(model.Action{Op: model.OpApply, Key: "big", N: 1000, Image: "nginx:1"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	snap, err := r.WaitConverged(ctx, 20*time.Millisecond)
	per := map[string]int{}
	for _, o := range snap.Objects {
		if p, ok := o.(*model.Pod); ok {
			per[p.NodeName]++
		}
	}
	hist := map[int]int{}
	for _, n := range per {
		hist[n]++
	}
	t.Logf("pods per node histogram: %v (nodes used %d)", hist, len(per))
	el := time.Since(start)
	t.Logf("elapsed %v err %v", el, err)
}
