package controller_test

import (
	"fmt"
	"testing"

	"github.com/converge-dev/converge/impl/api"

	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/controller/controllertest"
)

func BenchmarkQueueAddGetDone(b *testing.B) {
	ctx := b.Context()
	q := controller.NewQueue(controller.QueueConfig{})
	keys := make([]string, 64)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns/k%d", i)
	}
	b.ResetTimer()
	for i := range b.N {
		q.Add(keys[i%len(keys)])
		k, _ := q.Get(ctx)
		q.Done(k)
	}
}

// BenchmarkSteppedDeliver measures one buffered event applied to the cache
// with one handler and one index.
func BenchmarkSteppedDeliver(b *testing.B) {
	ctx := b.Context()
	lw := controllertest.NewFakeListWatcher()
	inf := controller.NewInformer(lw, controller.InformerConfig{Resource: "pods"})
	inf.AddHandler(func(controller.ListWatchEvent, *controller.Cache) {})
	if err := inf.AddIndexer("ns", func(o api.Object) []string {
		return []string{api.Meta(o).Namespace}
	}); err != nil {
		b.Fatal(err)
	}
	if err := inf.Start(ctx); err != nil {
		b.Fatal(err)
	}
	const batch = 1000
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		n := min(batch, b.N-i)
		b.StopTimer()
		for j := range n {
			lw.Put("pods", pod("ns", fmt.Sprintf("p%d", j%100)))
		}
		lw.Compact() // keep the fake's history small
		if err := inf.WaitRev(ctx, lw.Rev()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for range n {
			if _, err := inf.DeliverNext(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkQueueDrain10000 queues 10,000 keys, as a scheduler finds
// 10,000 new pods, then hands them all out: the cost per key should not
// grow with the keys queued behind it.
func BenchmarkQueueDrain10000(b *testing.B) {
	ctx := b.Context()
	keys := make([]string, 10000)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns/pod-%d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		q := controller.NewQueue(controller.QueueConfig{})
		for _, k := range keys {
			q.Add(k)
		}
		for range keys {
			k, _ := q.Get(ctx)
			q.Done(k)
		}
	}
}
