// Package kubeproto converts a Kubernetes protobuf request body
// (application/vnd.kubernetes.protobuf, as the typed clientset in kubectl
// sends for `kubectl create namespace|deployment|service`) into the JSON
// document the same object would have been sent as, so the apiserver can
// decode, check and store it exactly as it does JSON.
//
// Guarantees:
//   - ToJSON accepts the wire format Kubernetes writes: the 4-byte magic
//     "k8s\x00", then a runtime.Unknown whose typeMeta names the apiVersion
//     and kind and whose raw bytes are the object's own protobuf message.
//     The JSON carries that apiVersion and kind, so the caller's kind checks
//     see them.
//   - Objects are converted by a schema table written from Kubernetes'
//     generated.proto field numbers, for the kinds converge serves: v1
//     Namespace, Pod, Service, Node, Endpoints; apps/v1 Deployment,
//     ReplicaSet. Any other kind is ErrUnsupportedKind.
//   - A field number the table does not know is ErrUnknownField naming the
//     message, the number and where it was found; nothing is silently
//     dropped. Fields Kubernetes always writes but converge does not model
//     (selfLink, hostNetwork, externalTrafficPolicy, ...) are known: they
//     vanish when zero and otherwise reach the JSON, where strict decoding
//     rejects them as it would in a JSON body.
//   - The JSON follows Kubernetes' own JSON encoding: plain scalars are
//     omitted when zero (Go omitempty), optional (pointer) scalars that are
//     present appear even when zero (replicas: 0), nested messages appear
//     when present (resources: {}), metav1.Time is an RFC 3339 UTC string
//     (null when empty or the zero time), IntOrString is a number or a
//     string, resource.Quantity is its string, map<string,string> and
//     map<string,Quantity> are objects, repeated fields are arrays, and
//     int32 varints are sign-extended (a 10-byte varint for a negative
//     value). Keys are sorted, so the output is deterministic.
//   - Nothing panics on any input. Every length is bounds-checked, wire
//     types must match the table, int32 values must fit, strings must be
//     UTF-8, times must lie in years 1-9999, and nesting is capped at
//     maxDepth. Malformed input is ErrMalformed, wrong magic ErrNotProtobuf,
//     all wrapped with %w and a path such as
//     "spec.template.spec.containers[0]". A bug that panics anyway is
//     recovered into an error, which FuzzToJSON treats as a failure.
package kubeproto
