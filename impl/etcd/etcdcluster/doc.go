// Package etcdcluster runs a multi-member etcd cluster inside the current
// process and injects member faults into it, so that converge can be run
// and tested on more than one member (converge up --etcd-members 3).
//
// Each member is a go.etcd.io/etcd/server/v3/embed server with its own data
// directory (Dir/<name>) and its own loopback client and peer URLs. The URLs
// are picked once and kept in Dir/cluster.json, so a later Start on the same
// Dir restarts the same members on the same addresses.
//
// Guarantees:
//   - Start returns once every member is ready and the cluster has a leader,
//     or fails with nothing left running.
//   - Client dials every member's client URL; clientv3 fails over between
//     them, so a client keeps working while a minority of members is down.
//   - Kill stops a member at once, without handing its leadership over
//     (etcd's HardStop), as a crash would; its data dir is kept. Restart
//     starts it again on the same data dir and URLs, and returns once it
//     serves. KillLeader kills whichever member leads and so forces an
//     election among the others.
//   - Isolate cuts a member off from its peers (its raft traffic is refused
//     both ways) while it stays up for clients; Heal reconnects it.
//   - Fault methods are safe for concurrent use. Close stops every member
//     and is idempotent; it does not remove Dir.
//   - Every address is on 127.0.0.1.
package etcdcluster
