package registry

import (
	"bytes"
	"flag"
	"fmt"
	"reflect"
	"sync"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// recentValues remembers the stored bytes this registry last wrote or read
// for each key, with their mod revision. An update whose resourceVersion
// precondition names that revision can start from them instead of reading
// the key again: a key's value at a given revision never changes, and the
// write's CAS on that revision still catches anyone who wrote since. So
// the cache can be stale, but never wrong.
//
// For the same reason it also keeps what decoding a value gave, so that
// the next read of that revision copies it instead of decoding again: a
// pod's watch event, its kubelet's status update and its binding all read
// the same revision. A write keeps what decoding its value will give
// before it is sent (startWrite), because its watch event usually arrives
// before its answer; the event finds it by the value's bytes, which alone
// decide what decoding gives, with the revision.
type recentValues struct {
	mu sync.Mutex
	m  map[store.Key]recentValue
	// writing holds, per key, the value being written and the object
	// kept for it, not yet at a revision.
	writing map[store.Key]*pendingWrite
}

type recentValue struct {
	store.Object
	// decoded is decode's result for Object, handed out as it is only to
	// readers that never change it (view); the others get copies. nil
	// until a read decodes the value or a write makes it.
	decoded api.Object
}

// recentCap bounds the memory; past it an arbitrary entry makes room.
const recentCap = 16384

func (c *recentValues) putLocked(v recentValue) {
	if c.m == nil {
		c.m = make(map[store.Key]recentValue)
	}
	if _, ok := c.m[v.Key]; !ok && len(c.m) >= recentCap {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[v.Key] = v
}

// pendingWrite is a write's object, kept before the write is sent.
type pendingWrite struct {
	key   store.Key
	value []byte
	// obj is what decoding value gives, but for its resourceVersion,
	// which settling sets. Nobody changes it after startWrite.
	obj api.Object
	// settled: obj is kept at the write's revision, and shared from then
	// on with anyone who reads that revision.
	settled bool
}

// startWrite is called before this registry writes value, which encodes
// obj, to key k: obj, which the registry owns and changes no more, is
// made what decoding the value will give, in place (api.Canonicalize or
// api.CanonicalizeProtobuf, as the value is JSON or protobuf: a fraction
// of a decode), and kept for the write's watch event. It returns
// nil when obj cannot be kept. A write that fails leaves it behind, which
// is harmless: a value's bytes decide what decoding it gives.
func (c *recentValues) startWrite(k store.Key, value []byte, obj api.Object) *pendingWrite {
	info, err := lookup(k.Resource)
	if err != nil || !canonicalize(value, obj) {
		return nil
	}
	// What decode sets: the resource's kind, and the revision as
	// resourceVersion, which encode leaves out of the value.
	*api.TypeOf(obj) = api.TypeMeta{Kind: info.Kind, APIVersion: info.APIVersion()}
	api.Meta(obj).ResourceVersion = ""
	p := &pendingWrite{key: k, value: value, obj: obj}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writing == nil || len(c.writing) >= recentCap {
		c.writing = make(map[store.Key]*pendingWrite)
	}
	c.writing[k] = p
	return p
}

// canonicalize makes obj what decoding value, its encoding, gives.
func canonicalize(value []byte, obj api.Object) bool {
	roundTrip := api.Canonicalize
	if api.IsProtobuf(value) {
		roundTrip = api.CanonicalizeProtobuf
	}
	ok := roundTrip(obj)
	api.SetNestedKinds(obj) // as decode does
	return ok
}

// abandon drops p (or nil), a write that will not be made, whose object
// its writer goes on changing.
func (c *recentValues) abandon(p *pendingWrite) {
	if p == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writing[p.key] == p {
		delete(c.writing, p.key)
	}
}

// wrote remembers a value this registry has just written, at its
// revision, with p's object if p (startWrite's, or nil) is still this
// key's pending write: the write's next read, or its next write, then
// needs no decode at all. It reports whether p's object is kept, and so
// shared.
func (c *recentValues) wrote(p *pendingWrite, so store.Object) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p != nil && !p.settled && c.writing[p.key] == p {
		c.settleLocked(so)
	}
	if p != nil && p.settled {
		return true
	}
	if v, ok := c.m[so.Key]; !ok || v.Rev < so.Rev {
		c.putLocked(recentValue{Object: so})
	}
	return false
}

// settleLocked moves the object kept for a write of so's value to so's
// revision, and returns it; nil if there is none.
func (c *recentValues) settleLocked(so store.Object) api.Object {
	w, ok := c.writing[so.Key]
	if !ok || !bytes.Equal(w.value, so.Value) {
		return nil
	}
	delete(c.writing, so.Key)
	api.Meta(w.obj).ResourceVersion = formatRV(so.Rev)
	w.settled = true
	checkKept(so, w.obj)
	if v, ok := c.m[so.Key]; !ok || v.Rev <= so.Rev {
		c.putLocked(recentValue{Object: so, decoded: w.obj})
	}
	return w.obj
}

// checkingKept says whether checkKept compares every object kept at a
// write with a decode of the value written. It is converge's own
// self-check of api.Canonicalize on what converge writes, too slow and too
// strict (it panics) for anyone else: it is on only in binaries built with
// the convergeselfcheck build tag, which converge's `make test` passes
// (ARCHITECTURE.md, "Self-checks"), or when a test of this package sets
// selfCheck. A user's test binary that imports converge never runs it.
// Benchmarks (-test.bench) leave it off, to measure what converge does.
var checkingKept = sync.OnceValue(func() bool {
	if !selfCheck {
		return false
	}
	bench := flag.Lookup("test.bench")
	return bench == nil || bench.Value.String() == ""
})

func checkKept(so store.Object, kept api.Object) {
	if !checkingKept() {
		return
	}
	want, err := decode(so.Key.Resource, so.Value, so.Rev)
	if err != nil || !reflect.DeepEqual(want, kept) {
		panic(fmt.Sprintf("registry: the object kept for %s at %d is not what its value decodes to (%v):\nkept    %#v\ndecoded %#v", so.Key, so.Rev, err, kept, want))
	}
}

// at returns the value of k at revision rev, if that is what it holds.
func (c *recentValues) at(k store.Key, rev int64) (store.Object, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[k]
	return o.Object, ok && rev != 0 && o.Rev == rev
}

// latest returns the last value of k this registry saw, at whatever
// revision: a guess for a write that its CAS checks.
func (c *recentValues) latest(k store.Key) (store.Object, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[k]
	return o.Object, ok && o.Rev != 0
}

func (c *recentValues) forget(k store.Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

// decode is decode(resource, so.Value, so.Rev) for a value stored at
// so.Key, from the kept result when one is kept for that revision. keep
// says to keep this result, for reads that later reads of the same
// revision are likely to follow; a list of thousands is not one.
func (c *recentValues) decode(resource string, so store.Object, keep bool) (api.Object, error) {
	if obj := c.kept(so); obj != nil {
		return api.DeepCopy(obj), nil
	}
	obj, err := decode(resource, so.Value, so.Rev)
	if err == nil && keep {
		c.keep(so, api.DeepCopy(obj))
	}
	return obj, err
}

// view is decode for a caller that only reads the result: it is the kept
// object itself, which nobody may change, so it costs no copy.
func (c *recentValues) view(resource string, so store.Object) (api.Object, error) {
	if obj := c.kept(so); obj != nil {
		return obj, nil
	}
	obj, err := decode(resource, so.Value, so.Rev)
	if err == nil {
		c.keep(so, obj)
	}
	return obj, err
}

// kept is the decoded value kept for so's key at so's revision, or for a
// write of so's value, or nil.
func (c *recentValues) kept(so store.Object) api.Object {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[so.Key]; ok && v.Rev == so.Rev && v.decoded != nil {
		return v.decoded
	}
	return c.settleLocked(so)
}

// keep remembers obj as the decoded so, unless a later value of the key
// is remembered already.
func (c *recentValues) keep(so store.Object, obj api.Object) {
	if so.Rev == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[so.Key]; !ok || v.Rev <= so.Rev {
		c.putLocked(recentValue{Object: so, decoded: obj})
	}
}
