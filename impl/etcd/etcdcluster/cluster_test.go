package etcdcluster_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/converge-dev/converge/impl/etcd/etcdcluster"
)

func startT(t *testing.T, dir string) *etcdcluster.Cluster {
	t.Helper()
	c, err := etcdcluster.Start(etcdcluster.Config{Dir: dir})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// memberClient dials one member only, to see what that member holds.
func memberClient(t *testing.T, c *etcdcluster.Cluster, i int) *clientv3.Client {
	t.Helper()
	cl, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints()[i : i+1], DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(func() { cl.Close() })
	return cl
}

// putRetrying retries a put until it is acknowledged: a put that failed
// during a leader change may or may not have landed, and a put is idempotent.
func putRetrying(t *testing.T, cl *clientv3.Client, k, v string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := cl.Put(ctx, k, v)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("put %s: %v", k, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// eventually polls a linearizable read of k through member i until it gives want.
func eventually(t *testing.T, cl *clientv3.Client, k, want string) {
	t.Helper()
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		r, err := cl.Get(ctx, k)
		return err == nil && len(r.Kvs) == 1 && string(r.Kvs[0].Value) == want
	}, 20*time.Second, 50*time.Millisecond, "%s never read %q", k, want)
}

func TestKillLeaderElectsAnotherAndRestartCatchesUp(t *testing.T) {
	c := startT(t, t.TempDir())
	cl, err := c.Client()
	require.NoError(t, err)
	defer cl.Close()
	putRetrying(t, cl, "/k/before", "1")

	old, err := c.KillLeader(10 * time.Second)
	require.NoError(t, err)
	require.False(t, c.Running(old))
	next, err := c.Leader(10 * time.Second)
	require.NoError(t, err)
	require.NotEqual(t, old, next, "the killed member still leads")
	for i := 0; i < 20; i++ {
		putRetrying(t, cl, fmt.Sprintf("/k/during/%d", i), "2")
	}
	require.NoError(t, c.Restart(old))
	require.Error(t, c.Restart(old), "restarting a running member")
	own := memberClient(t, c, old)
	eventually(t, own, "/k/before", "1")
	eventually(t, own, "/k/during/19", "2")
}

func TestIsolatedMemberServesNothingThenCatchesUp(t *testing.T) {
	c := startT(t, t.TempDir())
	cl, err := c.Client()
	require.NoError(t, err)
	defer cl.Close()
	putRetrying(t, cl, "/k/a", "1")
	lead, err := c.Leader(10 * time.Second)
	require.NoError(t, err)
	victim := (lead + 1) % c.Size()
	require.NoError(t, c.Isolate(victim))
	putRetrying(t, cl, "/k/a", "2") // the majority still commits

	own := memberClient(t, c, victim)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_, err = own.Get(ctx, "/k/a") // linearizable: needs the leader it cannot reach
	cancel()
	require.Error(t, err, "an isolated member answered a linearizable read")

	c.Heal()
	eventually(t, own, "/k/a", "2")
}

func TestRestartOnSameDirKeepsDataAndAddresses(t *testing.T) {
	dir := t.TempDir()
	c, err := etcdcluster.Start(etcdcluster.Config{Dir: dir})
	require.NoError(t, err)
	eps := c.Endpoints()
	cl, err := c.Client()
	require.NoError(t, err)
	putRetrying(t, cl, "/k/kept", "yes")
	cl.Close()
	c.Close()
	c.Close() // idempotent

	c2 := startT(t, dir)
	require.Equal(t, eps, c2.Endpoints())
	cl2, err := c2.Client()
	require.NoError(t, err)
	defer cl2.Close()
	eventually(t, cl2, "/k/kept", "yes")
}

func TestBadConfigAndBadMembersFail(t *testing.T) {
	_, err := etcdcluster.Start(etcdcluster.Config{})
	require.True(t, errors.Is(err, etcdcluster.ErrInvalidConfig), "%v", err)
	_, err = etcdcluster.Start(etcdcluster.Config{Dir: t.TempDir(), Members: 9})
	require.True(t, errors.Is(err, etcdcluster.ErrInvalidConfig), "%v", err)
	c := startT(t, t.TempDir())
	require.ErrorIs(t, c.Kill(7), etcdcluster.ErrNoMember)
	require.ErrorIs(t, c.Isolate(-1), etcdcluster.ErrNoMember)
}

// TestRestartWaitsForItsPortToBeFree: while a member is down, another
// process may bind its client port for a moment (a parallel test picking
// free ports does). Restart keeps the member's addresses, so it waits for
// the port instead of failing with "address already in use".
func TestRestartWaitsForItsPortToBeFree(t *testing.T) {
	c := startT(t, t.TempDir())
	victim := 0
	require.NoError(t, c.Kill(victim))
	u, err := url.Parse(c.Endpoints()[victim])
	require.NoError(t, err)
	l, err := net.Listen("tcp", u.Host)
	require.NoError(t, err, "the killed member's port is not free")
	released := make(chan struct{})
	go func() {
		time.Sleep(500 * time.Millisecond)
		l.Close()
		close(released)
	}()
	require.NoError(t, c.Restart(victim))
	<-released
	require.True(t, c.Running(victim))
	putRetrying(t, memberClient(t, c, victim), "/k/after", "1")
}
