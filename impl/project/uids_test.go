package project

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"testing"
)

func TestUIDsNumberFirstSeenFirst(t *testing.T) {
	u := NewUIDs()
	for _, c := range []struct {
		uid  string
		want int64
	}{{"", 0}, {"a", 1}, {"b", 2}, {"a", 1}, {"", 0}, {"c", 3}} {
		if got := u.Of(c.uid); got != c.want {
			t.Errorf("Of(%q) = %d, want %d", c.uid, got, c.want)
		}
	}
	for id, want := range map[int64]string{0: "", 1: "a", 2: "b", 3: "c", 4: "", -1: ""} {
		if got := u.String(id); got != want {
			t.Errorf("String(%d) = %q, want %q", id, got, want)
		}
	}
}

func TestUIDsZeroValueIsUsable(t *testing.T) {
	var u UIDs
	if u.Of("x") != 1 || u.String(1) != "x" {
		t.Fatalf("zero UIDs: Of(x)=%d String(1)=%q", u.Of("x"), u.String(1))
	}
}

// Concurrent callers must agree on every number and hand out no number twice.
func TestUIDsConcurrent(t *testing.T) {
	u := NewUIDs()
	const workers, uids = 8, 200
	got := make([][]int64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range uids {
				// Each worker walks the uids in a different order.
				j := (i*(w+1) + w) % uids
				got[w] = append(got[w], u.Of(fmt.Sprint("uid-", j)))
			}
		}()
	}
	wg.Wait()
	seen := map[int64]string{}
	for i := range uids {
		s := fmt.Sprint("uid-", i)
		id := u.Of(s)
		if prev, ok := seen[id]; ok {
			t.Fatalf("%q and %q share number %d", prev, s, id)
		}
		seen[id] = s
		if u.String(id) != s {
			t.Fatalf("String(%d) = %q, want %q", id, u.String(id), s)
		}
	}
	if len(seen) != uids || u.Of("new") != uids+1 {
		t.Fatalf("numbers are not dense: %d distinct, next %d", len(seen), u.Of("new"))
	}
}

// Equal maps projected one after another come back as one map, which
// nothing may change; different ones stay apart, and the memory is bounded.
func TestSharedMapsAreOneMapPerContent(t *testing.T) {
	u := NewUIDs()
	a := u.Shared(map[string]string{"app": "web", "pod-template-hash": "h1"})
	b := u.Shared(map[string]string{"pod-template-hash": "h1", "app": "web"})
	if reflect.ValueOf(a).UnsafePointer() != reflect.ValueOf(b).UnsafePointer() {
		t.Fatal("equal maps were not shared")
	}
	c := u.Shared(map[string]string{"app": "web"})
	if !reflect.DeepEqual(c, map[string]string{"app": "web"}) || reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(c).UnsafePointer() {
		t.Fatalf("a different map: %v", c)
	}
	if u.Shared(map[string]string{}) != nil || u.Shared(nil) != nil {
		t.Fatal("an empty map is nil, as the projection had it")
	}
	in := map[string]string{"k": "v"}
	out := u.Shared(in)
	in["k"] = "changed"
	if out["k"] != "v" {
		t.Fatal("the shared map is the caller's")
	}
	for i := range 100 {
		u.Shared(map[string]string{"n": strconv.Itoa(i)})
	}
	if len(u.shared) != sharedMaps {
		t.Fatalf("%d maps remembered", len(u.shared))
	}
}
