package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// BenchmarkUpdate compares an unconditional registry Update of a pod (read,
// merge, validate, CAS) with the raw store write it ends in; report the
// ratio of the two ns/op figures.
func BenchmarkUpdate(b *testing.B) {
	ctx := context.Background()
	b.Run("store", func(b *testing.B) {
		s := storetest.Store(b)
		k := store.Key{Resource: "pods", Namespace: "default", Name: "p"}
		value, _ := api.Marshal(pod("p", nil))
		if _, err := s.Create(ctx, k, value); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			if _, err := s.Update(ctx, k, value, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("registry", func(b *testing.B) {
		r := registry.New(registry.Config{Store: storetest.Store(b), Clock: func() time.Time { return epoch }})
		if _, err := r.Create(ctx, pod("p", nil)); err != nil {
			b.Fatal(err)
		}
		p := pod("p", nil)
		b.ResetTimer()
		for b.Loop() {
			if _, err := r.Update(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
