// Package proxy is converge's userspace kube-proxy: it listens on each
// Service's clusterIP:port and forwards every TCP connection to one of the
// Service's backends (pod IP and targetPort), round-robin.
//
// Every node of a converge cluster shares the host's network namespace, so
// one Proxy per host serves all nodes: it is fed the Services and their
// backends (any node's kube-proxy rules table) by whoever runs it.
//
// Guarantees:
//   - Sync makes the listeners match what it is given: new Services get a
//     listener, gone ones lose theirs (open connections are left to
//     finish), and backends change in place with no restart, so a
//     connection accepted after Sync returns uses the new backends.
//   - Backends are taken in turn, one per connection; a backend that
//     refuses the connection is skipped for the next one, and a connection
//     with no reachable backend is closed at once.
//   - A listener that cannot be opened (address in use, no permission) is
//     reported by Sync and retried by the next Sync; the others still work.
//   - Close stops every listener and every forwarded connection.
package proxy
