package main

import (
	"fmt"
	"os"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/converge-dev/converge/impl/etcd"
)

// tempEtcd starts an embedded etcd (fsync off) in a fresh temporary
// directory and returns a client to it; stop closes both and removes the
// directory. Subcommands that need a throwaway etcd share it.
func tempEtcd(purpose string) (c *clientv3.Client, stop func(), err error) {
	dir, err := os.MkdirTemp("", "converge-"+purpose+"-")
	if err != nil {
		return nil, nil, fmt.Errorf("temp dir for etcd: %w", err)
	}
	e, err := etcd.StartEmbedded(etcd.Config{DataDir: dir})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	if c, err = e.InProcessClient(); err != nil {
		e.Close()
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return c, func() { c.Close(); e.Close(); os.RemoveAll(dir) }, nil
}
