package etcdcluster

import (
	"context"
	"fmt"
	"time"

	"github.com/converge-dev/converge/impl/etcd"
)

// Kill stops member i at once, as a crash would: no leadership transfer, no
// goodbye to its peers. Its data dir stays for Restart.
func (c *Cluster) Kill(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kill(i)
}

func (c *Cluster) kill(i int) error {
	if i < 0 || i >= len(c.members) || c.members[i].etcd == nil {
		return fmt.Errorf("%w: cannot kill member %d", ErrNoMember, i)
	}
	e := c.members[i].etcd
	e.Server.HardStop()
	e.Close()
	c.members[i].etcd = nil
	return nil
}

// Restart starts killed member i again on its data dir and waits until it
// serves.
func (c *Cluster) Restart(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i < 0 || i >= len(c.members) || c.members[i].etcd != nil {
		return fmt.Errorf("%w: cannot restart member %d", ErrNoMember, i)
	}
	// The member keeps its ports: its peer URL is in the membership. While
	// it was down, another process on the machine may have bound one for
	// a moment (a parallel test picking free ports does), so a taken port
	// is tried again for restartBindWait before the restart fails.
	deadline := time.Now().Add(restartBindWait)
	for {
		err := c.startMember(i)
		if err == nil {
			break
		}
		if !etcd.IsAddrInUse(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := c.waitReady(i); err != nil {
		_ = c.kill(i)
		return err
	}
	return nil
}

// restartBindWait is how long Restart waits for a member's port to be
// free again.
const restartBindWait = 5 * time.Second

// Running reports whether member i is up.
func (c *Cluster) Running(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return i >= 0 && i < len(c.members) && c.members[i].etcd != nil
}

// Leader is the index of the member that a running member names as leader
// and that itself claims to lead, waiting up to timeout for one.
func (c *Cluster) Leader(timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		c.mu.Lock()
		i := c.leaderLocked()
		c.mu.Unlock()
		if i >= 0 {
			return i, nil
		}
		if time.Now().After(deadline) {
			return -1, fmt.Errorf("%w within %v", ErrNoLeader, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *Cluster) leaderLocked() int {
	for i, m := range c.members {
		if m.etcd == nil || m.proxy.isolated() {
			continue
		}
		s := m.etcd.Server
		if s.Leader() == s.MemberID() {
			return i
		}
	}
	return -1
}

// KillLeader kills the current leader, forcing an election among the
// others, and returns its index.
func (c *Cluster) KillLeader(timeout time.Duration) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	deadline := time.Now().Add(timeout)
	for {
		if i := c.leaderLocked(); i >= 0 {
			return i, c.kill(i)
		}
		if time.Now().After(deadline) {
			return -1, fmt.Errorf("%w within %v", ErrNoLeader, timeout)
		}
		c.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		c.mu.Lock()
	}
}

// Isolate cuts running member i off from every peer, both ways: its own
// proxy refuses them, and theirs refuse it. Clients can still reach it;
// without a quorum it serves no linearizable request.
func (c *Cluster) Isolate(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i < 0 || i >= len(c.members) || c.members[i].etcd == nil {
		return fmt.Errorf("%w: cannot isolate member %d", ErrNoMember, i)
	}
	id := c.members[i].etcd.Server.MemberID().String()
	for j, m := range c.members {
		m.proxy.isolate(j == i, id)
	}
	return nil
}

// Heal undoes every isolation.
func (c *Cluster) Heal() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		m.proxy.heal()
	}
}

// WaitHealthy waits until a running member that is not isolated leads.
func (c *Cluster) WaitHealthy(ctx context.Context) error {
	for {
		c.mu.Lock()
		ok := c.leaderLocked() >= 0
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %v", ErrNoLeader, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
