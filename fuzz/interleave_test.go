package fuzz

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties"
)

// FuzzModel runs the model property on interleavings chosen by the
// fuzzer's bytes: rapid decodes them into actions, so coverage guidance
// steers towards new paths through the model.
func FuzzModel(f *testing.F) {
	addBitStreams(f)
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		properties.Model(t, model.Config{})
	}))
}

// FuzzLockstep runs the model-vs-implementation property, with faults, on
// the stepped cluster. Each input gets a fresh key prefix on its worker's
// etcd (see TestMain).
func FuzzLockstep(f *testing.F) {
	addBitStreams(f)
	f.Fuzz(lockstepInput)
}

// lockstepInput is one FuzzLockstep input.
func lockstepInput(t *testing.T, data []byte) {
	st := lockstepStore(t)
	rapid.MakeFuzz(func(rt *rapid.T) {
		s, err := cluster.NewStepped(cluster.SteppedConfig{Store: st})
		if err != nil {
			rt.Fatal(err)
		}
		defer s.Close()
		properties.Lockstep(rt, s, properties.LockstepOptions{Faults: true})
	})(t, data)
}

// TestLockstepInputsLeaveNoKeys checks the reclaiming that keeps long
// campaigns inside etcd's quota: an input that wrote objects leaves none.
func TestLockstepInputsLeaveNoKeys(t *testing.T) {
	data := bitStream(2, 8<<10) // writes 10 keys
	var wrote int64
	t.Run("input", func(t *testing.T) {
		lockstepInput(t, data)
		// The body has returned; lockstepStore's cleanup has not run yet.
		resp, err := storetest.Client(t).Get(context.Background(), "/fuzz/", clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		wrote = resp.Count
	})
	if wrote == 0 {
		t.Fatal("the input wrote nothing, so this test checks nothing; pick another seed")
	}
	resp, err := storetest.Client(t).Get(context.Background(), "/fuzz/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Count != 0 {
		t.Fatalf("%d keys left under /fuzz/ after the input ended (it had %d)", resp.Count, wrote)
	}
}

// addBitStreams seeds a rapid target with long pseudo-random inputs. Rapid
// skips an input that runs out before the property ends, and mutations
// rarely lengthen an input by kilobytes, so without long seeds the fuzzer
// mostly explores short runs: a planted model mutant
// (mutant endpoints-lists-unready) went unfound for 2 minutes from
// short inputs and was found in 34-41 s from long ones.
func addBitStreams(f *testing.F) {
	for seed := range uint64(6) {
		f.Add(bitStream(seed, 8<<10))
	}
}

// bitStream is n pseudo-random bytes, the same for the same seed. Rapid
// reads them as about 30 actions on average (its -rapid.steps).
func bitStream(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// lockstepInputs counts FuzzLockstep inputs in this process; it names their
// key prefixes and paces compaction.
var lockstepInputs atomic.Int64

// compactEvery is how many inputs pass between compactions of the
// worker's etcd.
const compactEvery = 256

// lockstepStore is a store under a prefix of its own, whose keys are
// deleted when the input ends. A campaign runs tens of thousands of inputs
// in one worker: without this, etcd's history would grow until it hit its
// space quota and every later input failed for reasons of no interest.
func lockstepStore(t *testing.T) *store.Store {
	c := storetest.Client(t)
	n := lockstepInputs.Add(1)
	prefix := fmt.Sprintf("/fuzz/%d/", n)
	t.Cleanup(func() { reclaim(t, c, prefix, n%compactEvery == 0) })
	return store.New(c, prefix)
}

// reclaim deletes prefix and, when compact is set, compacts the history
// away. Compacting the shared etcd is safe here, unlike in ordinary tests
// (storetest.Isolated): a fuzz worker runs one input at a time, and the
// input's cluster is closed before its cleanups run.
func reclaim(t *testing.T, c *clientv3.Client, prefix string, compact bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Delete(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		t.Errorf("fuzz: deleting %s: %v", prefix, err)
		return
	}
	if compact {
		// Already compacted there (the input's own compact fault, and a
		// delete of nothing does not move the revision): nothing to reclaim.
		if _, err := c.Compact(ctx, resp.Header.Revision); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
			t.Errorf("fuzz: compacting at %d: %v", resp.Header.Revision, err)
		}
	}
}
