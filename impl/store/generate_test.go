package store_test

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

func render(name string) ([]byte, error) { return []byte(`{"name":"` + name + `"}`), nil }

func mustGenerate(t testing.TB, s *store.Store, resource, ns, prefix string) store.Object {
	t.Helper()
	o, err := s.CreateGenerated(ctxT(t), resource, ns, prefix, render)
	if err != nil {
		t.Fatalf("CreateGenerated(%s, %s, %s): %v", resource, ns, prefix, err)
	}
	return o
}

func TestCreateGeneratedNamesAreDeterministicAndNeverReused(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	for n := 0; n < 3; n++ {
		o := mustGenerate(t, s, "pods", "ns", "web-")
		want := model.GeneratedName("web-", n)
		if o.Key != pod("ns", want) || string(o.Value) != `{"name":"`+want+`"}` || o.Rev == 0 || o.Rev != o.CreateRev {
			t.Fatalf("generated object %d = %+v, want %s with rendered value", n, o, want)
		}
		if got := mustGet(t, s, o.Key); got.Rev != o.Rev || string(got.Value) != string(o.Value) {
			t.Fatalf("Get(%s) = %+v, want what CreateGenerated returned %+v", o.Key, got, o)
		}
	}
	for _, name := range []string{"web-1", "web-2"} {
		if _, err := s.Delete(ctx, pod("ns", name), 0); err != nil {
			t.Fatal(err)
		}
	}
	if o := mustGenerate(t, s, "pods", "ns", "web-"); o.Key.Name != "web-3" {
		t.Fatalf("after deletes got %s, want web-3 (names are never reused)", o.Key.Name)
	}
	mustCreate(t, s, pod("ns", "web-4"), "by hand")
	if o := mustGenerate(t, s, "pods", "ns", "web-"); o.Key.Name != "web-5" {
		t.Fatalf("with web-4 taken got %s, want web-5", o.Key.Name)
	}
	if got := mustGet(t, s, pod("ns", "web-4")); string(got.Value) != "by hand" {
		t.Fatalf("skipping web-4 overwrote it: %q", got.Value)
	}
	// The counter is per (resource, namespace, prefix).
	for _, c := range []struct{ resource, ns, prefix, want string }{
		{"pods", "other", "web-", "web-0"},
		{"pods", "ns", "db-", "db-0"},
		{"replicasets", "ns", "web-", "web-0"},
		{"nodes", "", "node-", "node-0"},
	} {
		if o := mustGenerate(t, s, c.resource, c.ns, c.prefix); o.Key.Name != c.want || o.Key.Namespace != c.ns {
			t.Errorf("CreateGenerated(%s, %q, %s) = %s, want %s", c.resource, c.ns, c.prefix, o.Key, c.want)
		}
	}
}

func TestCreateGeneratedRenderErrorWritesNothing(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	boom := errors.New("boom")
	_, err := s.CreateGenerated(ctx, "pods", "ns", "x-", func(string) ([]byte, error) { return nil, boom })
	wantErr(t, "CreateGenerated with failing render", err, boom)
	objs, _, _, err := s.List(ctx, "pods", "", store.ListOptions{})
	if err != nil || len(objs) != 0 {
		t.Fatalf("after a failed render List = %v, %v; want nothing", summary(objs), err)
	}
	if o := mustGenerate(t, s, "pods", "ns", "x-"); o.Key.Name != "x-0" {
		t.Fatalf("after a failed render got %s, want x-0 (counter untouched)", o.Key.Name)
	}
}

func TestConcurrentCreateGeneratedYieldsDistinctConsecutiveNames(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	const workers, each = 6, 5
	names := make(chan string, workers*each)
	var renders atomic.Int64
	counted := func(name string) ([]byte, error) { renders.Add(1); return render(name) }
	if _, err := s.CreateGenerated(ctxT(t), "pods", "ns", "c-", counted); err != nil {
		t.Fatal(err) // the store reads the counter once, here
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				o, err := s.CreateGenerated(ctxT(t), "pods", "ns", "c-", counted)
				if err != nil {
					t.Error(err)
					return
				}
				names <- o.Key.Name
			}
		}()
	}
	wg.Wait()
	close(names)
	if n := renders.Load(); n != workers*each+1 {
		t.Errorf("%d candidates rendered for %d creates: this store's creators raced for names", n, workers*each+1)
	}
	got := []string{model.GeneratedName("c-", 0)}
	var want []string
	for n := range names {
		got = append(got, n)
	}
	for n := 0; n <= workers*each; n++ {
		want = append(want, model.GeneratedName("c-", n))
	}
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("concurrent names = %v, want each of %v exactly once", got, want)
	}
}

// Each store hands out numbers from its own count; another store (another
// process) creating meanwhile must make the one behind go on from the
// stored counter, never taking a name that exists or skipping a number.
func TestCreateGeneratedAcrossStoresSharingAPrefix(t *testing.T) {
	t.Parallel()
	c := storetest.Client(t)
	prefix := "/generate-shared-" + fmt.Sprint(time.Now().UnixNano())
	stores := []*store.Store{store.New(c, prefix), store.New(c, prefix)}
	for n := 0; n < 10; n++ {
		s := stores[n%2]
		if n >= 6 {
			s = stores[0] // a run of creates from one store uses its cache
		}
		if got, want := mustGenerate(t, s, "pods", "ns", "s-").Key.Name, model.GeneratedName("s-", n); got != want {
			t.Fatalf("create %d: got %s, want %s", n, got, want)
		}
	}
}
