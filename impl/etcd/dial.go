package etcd

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// DefaultDialTimeout bounds how long Dial waits for a cluster to answer.
const DefaultDialTimeout = 5 * time.Second

// probeKey is read, never written, to prove the cluster serves requests.
const probeKey = "/converge/dial-probe"

// Dial connects to an external etcd cluster and checks that it answers a
// linearizable read (so it has a leader) before returning. The caller closes
// the client.
func Dial(endpoints []string) (*clientv3.Client, error) {
	return dial(endpoints, DefaultDialTimeout)
}

func dial(endpoints []string, timeout time.Duration) (*clientv3.Client, error) {
	if len(endpoints) == 0 {
		return nil, fmt.Errorf("%w: no endpoints given", ErrInvalidConfig)
	}
	c, err := newClient(endpoints, timeout)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if _, err := c.Get(ctx, probeKey, clientv3.WithCountOnly()); err != nil {
		c.Close()
		return nil, fmt.Errorf("%w: %v did not answer within %v: %v", ErrUnreachable, endpoints, timeout, err)
	}
	return c, nil
}

// newClient makes a silent gRPC client; the connection itself is lazy.
func newClient(endpoints []string, timeout time.Duration) (*clientv3.Client, error) {
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: timeout,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd: client for %v: %w", endpoints, err)
	}
	return c, nil
}
