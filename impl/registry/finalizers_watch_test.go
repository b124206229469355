package registry_test

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// An update that takes the last finalizer of an object being deleted is
// not stored: a watcher sees one DELETED event, carrying the object as it
// was stored (its finalizer still listed), and no MODIFIED before it, as
// upstream's Store.Update deletes without writing the update
// (errEmptiedFinalizers, deleteWithoutFinalizers). The next event is an
// unrelated create's, so nothing came in between.
func TestAnUpdateThatEmptiesFinalizersIsOneDeletedEvent(t *testing.T) {
	for _, conditional := range []bool{true, false} {
		t.Run("conditional="+strconv.FormatBool(conditional), func(t *testing.T) {
			r, ctx := newRegistry(t)
			in := replicaSet("held")
			in.Finalizers = []string{"example.com/hold"}
			mustCreate(t, ctx, r, in)
			marked, err := r.Delete(ctx, "replicasets", "default", "held", api.DeleteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			wctx, cancel := context.WithCancel(ctx)
			defer cancel()
			ch, err := r.Watch(wctx, "replicasets", "default", api.Meta(marked).ResourceVersion)
			if err != nil {
				t.Fatal(err)
			}

			rm := api.DeepCopy(marked)
			api.Meta(rm).Finalizers = nil
			if !conditional {
				api.Meta(rm).ResourceVersion = ""
			}
			if _, err := r.Update(ctx, rm); err != nil {
				t.Fatal(err)
			}
			mustCreate(t, ctx, r, replicaSet("marker"))

			ev := wantEvent(t, ch, registry.EventDeleted, "held")
			if fs := api.Meta(ev.Object).Finalizers; !reflect.DeepEqual(fs, []string{"example.com/hold"}) {
				t.Fatalf("DELETED carries finalizers %v, want the stored object's [example.com/hold]", fs)
			}
			stored, _ := strconv.ParseInt(api.Meta(marked).ResourceVersion, 10, 64)
			if ev.Rev != stored+1 {
				t.Fatalf("DELETED at %d, want %d: one revision after the stored object's", ev.Rev, stored+1)
			}
			wantEvent(t, ch, registry.EventAdded, "marker")
		})
	}
}
