// Package apiserver serves converge's registry over HTTP the way
// kube-apiserver does, so the real kubectl can drive it: discovery, the
// REST verbs, patches, the status, scale and binding subresources, watches,
// bearer-token authentication and rule-based authorization.
//
// Guarantees:
//   - Every failure is answered with a v1 Status JSON body carrying
//     Kubernetes' code and reason (400 BadRequest, 401, 403 with RBAC's
//     message format, 404 also for unknown resources and subresources, 405,
//     406, 409 AlreadyExists/Conflict, 410 Expired, 413, 415, 422, 500).
//     A failed request writes nothing to the store.
//   - A panic in a handler is recovered, logged and answered with a 500
//     Status; no user input is meant to reach one.
//   - Request bodies are capped (Config.MaxBodyBytes, 3 MiB by default) and
//     decoded strictly: unknown fields, a kind or apiVersion that is not
//     the URL's, a namespace or name that contradicts the URL are 400.
//   - Discovery (/api, /api/v1, /apis, /apis/apps/v1, /apis/autoscaling/v1)
//     is plain application/json even when aggregated discovery is asked
//     for, so kubectl falls back to the legacy documents. autoscaling/v1
//     (home of Scale) is served but not listed in /apis, which lists
//     autoscaling at v2 (HorizontalPodAutoscalers): discovery clients fail
//     on a group version without top-level resources.
//   - Reads and watches answer with a meta.k8s.io/v1 Table when the Accept
//     header asks for one (as kubectl get does), with kube-apiserver's
//     columns for pods, deployments, replicasets, nodes, services and
//     namespaces (NAME and AGE for the rest); otherwise objects are plain
//     JSON. An Accept header that excludes JSON is 406. Bodies must be
//     JSON or YAML, and creates and updates (POST, PUT) may also be
//     Kubernetes protobuf, as kubectl's typed clientset sends them (create
//     namespace, create deployment, create service): k8s.io/api's generated
//     code decodes it, and its JSON is then checked like a JSON body; a
//     body that does not decode is 400. Other media types are 415; PATCH
//     takes only the patch media types.
//   - PATCH takes merge (RFC 7386), JSON (RFC 6902) and strategic merge
//     patches; apply patches go to server-side apply, which with field
//     ownership (managedFields) is Kubernetes' own field manager
//     (k8s.io/apimachinery's managedfields, typed by client-go's schemas). A patch without its
//     own resourceVersion is applied to a fresh read and retried on a lost
//     race; with one, the resourceVersion is a precondition (409).
//     The patches are Kubernetes' own libraries, with kube-apiserver's
//     limits and Statuses: JSON and merge patches are
//     github.com/evanphx/json-patch (at most 10000 operations, else 413;
//     negative indices count from the end; an operation that does not
//     apply is 422), strategic merge is k8s.io/apimachinery's
//     strategicpatch over the kind's k8s.io/api type (its merge keys,
//     strategies and directives). Where kube-apiserver answers a bad
//     strategic patch with a 500 (a list element without its merge key),
//     converge answers 422 with the same message.
//   - Watches stream newline-delimited WatchEvents, flushed per event,
//     starting with the current objects as ADDED when no resourceVersion is
//     given; a compacted resourceVersion ends the stream with an ERROR
//     event holding a 410 Expired Status. With a label or field selector, an
//     object entering the selection is ADDED and one leaving it DELETED, as
//     in Kubernetes.
//   - deletecollection deletes what the same list would return and answers
//     with the deleted objects; it is not atomic.
//   - dryRun=All (kubectl diff, --dry-run=server) runs any write through
//     every check and answers with its result without storing it; other
//     dryRun values are 400.
//   - Authentication (Config.Auth, see LoadAuth) takes bearer tokens from a
//     Kubernetes static token file; a bad token is always 401, no token is
//     401 unless anonymous requests are allowed (user system:anonymous).
//     Authorization rules name users or groups, verbs, resources
//     ("pods/status" for subresources) and namespaces, with "*"; discovery,
//     /version and /openapi are open to every authenticated caller. A nil
//     Auth lets everyone in.
//   - A Tracker (Config.Tracker) hears every authenticated request, with
//     its user, as it starts and as it ends (a watch when it closes), and
//     may answer it instead with an error, which then writes nothing: a
//     check of an operator run as its own process tells the operator's
//     requests from everyone else's by it.
//   - EnsureTLS writes (or reuses) a self-signed ECDSA P-256 CA and a
//     serving certificate for 127.0.0.1, ::1 and localhost.
package apiserver
