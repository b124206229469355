// Package serving puts converge's apiserver handler on a socket with the
// limits Kubernetes' own apiserver has against slow and hostile clients.
//
// Guarantees:
//   - A client that does not finish its request headers within
//     Limits.ReadHeader is disconnected; the TLS handshake is bounded the
//     same way. A keep-alive connection idle for Limits.Idle is closed.
//   - A request body (any method but GET, HEAD and OPTIONS) must arrive
//     within Limits.Body of its headers; a slower one fails to read, and the
//     handler answers or ends. Watches, which send no body, are not cut.
//   - Headers larger than Limits.MaxHeaderBytes are refused (431).
//   - Each write or flush of a response must reach the client within
//     Limits.WriteStall; a client that stops reading, such as a slow
//     watcher, has its response cut off, so the events it does not read
//     do not pile up in memory without bound. The bound runs only while a
//     write is under way: a quiet watch is never cut.
//   - So no client holds a goroutine longer than these bounds unless it
//     reads a response, as a watch does; a dropped watch ends its
//     goroutines. The body size limit itself (413) is the handler's.
package serving
