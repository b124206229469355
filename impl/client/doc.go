// Package client is how every converge component talks to the apiserver.
// Components hold a Client and do not know whether it calls the registry
// in-process (Local) or an apiserver over HTTP (HTTP).
//
// Guarantees:
//   - Local is a thin pass-through: every call is the registry's, with the
//     registry's semantics, errors (*api.StatusError) and guarantees (see
//     package registry). It adds no caching, retries or copies of its own.
//   - Counting calls its hook before every write (Create, Update,
//     UpdateStatus, Delete, Bind) with the write's verb (VerbCreate, ...,
//     the model's trace verbs) and, if the hook returns an error, fails that
//     write with it without sending it. Reads and watches are never counted.
//   - ListOptions and ObjectEvent are the registry's types (aliases), so Client
//     values of either origin are interchangeable.
package client
