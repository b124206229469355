package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/converge-dev/converge/impl/etcd"
	"github.com/converge-dev/converge/impl/etcd/etcdcluster"
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
	stopCompactor := etcd.CompactHistory(c, time.Minute) // a long campaign would fill the database
	return c, func() { stopCompactor(); c.Close(); e.Close(); os.RemoveAll(dir) }, nil
}

// clusterEtcd starts f.etcdMembers embedded members (fsync on) under
// DATA-DIR/etcd-cluster and returns a client of all of them, which fails
// over when a member goes. A restart on the same data dir brings the same
// members back on the same addresses.
func clusterEtcd(f upFlags) (*clientv3.Client, func(), error) {
	cl, err := etcdcluster.Start(etcdcluster.Config{Dir: filepath.Join(f.dataDir, "etcd-cluster"), Members: f.etcdMembers, Fsync: true})
	if err != nil {
		return nil, nil, err
	}
	c, err := cl.Client()
	if err != nil {
		cl.Close()
		return nil, nil, err
	}
	if f.onEtcdCluster != nil {
		f.onEtcdCluster(cl)
	}
	return c, func() { c.Close(); cl.Close() }, nil
}
