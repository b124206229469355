package properties

import (
	"context"
	"flag"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/etcd/etcdcluster"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
)

// memberFaults bounds the etcd member faults TestLockstepWithMemberFaults
// fires over all its checks (each costs an election or a member restart,
// about half a second); raise it for a campaign:
//
//	go test ./properties -run TestLockstepWithMemberFaults -lockstep.member-faults=1000
var memberFaults = flag.Int("lockstep.member-faults", 6, "etcd member faults (restart, leader change) TestLockstepWithMemberFaults fires in all")

// TestLockstepWithMemberFaults is the lockstep property, faults included,
// with the stepped driver on a 3-member etcd whose members restart and
// whose leader is killed between actions. The model knows nothing of
// etcd: these faults may only cost time, and model and implementation
// must still agree step for step and converge.
func TestLockstepWithMemberFaults(t *testing.T) {
	// One cluster serves every check, each on a key prefix of its own.
	members, err := etcdcluster.Start(etcdcluster.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer members.Close()
	client, err := members.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	var checks, fired atomic.Int64
	budget := int64(*memberFaults)
	rapid.Check(t, func(rt *rapid.T) {
		n := checks.Add(1)
		impl, err := cluster.NewStepped(cluster.SteppedConfig{Store: store.New(client, fmt.Sprintf("/members/%d", n))})
		if err != nil {
			rt.Fatal(err)
		}
		defer impl.Close()
		p := NewPair(model.Config{}, impl)
		check := func(err error) {
			if err != nil {
				rt.Fatalf("%v\n%s\ntrace: %s", err, p.Script, saveFailure("lockstep", p.Script, model.Config{}))
			}
		}
		step := func(rt *rapid.T) {
			a, ok := DrawAction(rt, p.Model, true)
			if !ok {
				rt.Skip("nothing enabled")
			}
			_, err := p.Step(a)
			check(err)
		}
		// The first check opens with a leader change, so that a short run
		// (the README's -rapid.checks=3) still crosses one.
		if n == 1 && budget > 0 {
			fired.Add(1)
			if err := memberFault(members, client, "leader-change"); err != nil {
				rt.Fatalf("leader-change: %v", err)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"action": step,
			"etcd": func(rt *rapid.T) {
				kind := rapid.SampledFrom([]string{"restart-follower", "leader-change"}).Draw(rt, "etcd")
				if fired.Load() >= budget {
					step(rt) // the budget is spent: an ordinary action instead
					return
				}
				fired.Add(1)
				if err := memberFault(members, client, kind); err != nil {
					rt.Fatalf("%s: %v", kind, err)
				}
			},
		})
		check(p.Finish())
	})
	t.Logf("%d checks, %d member faults", checks.Load(), fired.Load())
	if fired.Load() == 0 && budget > 0 {
		t.Errorf("no member fault fired in %d checks", checks.Load())
	}
}

// memberFault fires one fault and waits until the cluster serves a
// linearizable read through client again, so that the next action finds
// it whole but for the time lost.
func memberFault(c *etcdcluster.Cluster, client *clientv3.Client, kind string) error {
	lead, err := c.Leader(10 * time.Second)
	if err != nil {
		return err
	}
	victim := (lead + 1) % c.Size()
	if kind == "leader-change" {
		if victim, err = c.KillLeader(10 * time.Second); err != nil {
			return err
		}
		if _, err := c.Leader(10 * time.Second); err != nil {
			return err
		}
	} else if err := c.Kill(victim); err != nil {
		return err
	}
	if err := c.Restart(victim); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := client.Get(ctx, "/members/probe")
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no read served after the fault: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
