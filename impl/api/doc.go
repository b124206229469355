// Package api holds the Kubernetes API types converge serves (apps/v1
// Deployment and ReplicaSet; v1 Pod, Node, Service, Endpoints, Namespace,
// Binding; autoscaling/v1 Scale), with the resource table, defaulting,
// validation, Status errors and manifest decoding the apiserver, the client
// and the CLI share.
//
// Guarantees:
//   - JSON field names and omitempty follow Kubernetes exactly, so real
//     kubectl can read and write these objects. Time marshals as RFC 3339
//     in UTC with one-second precision, and as null when zero.
//   - One table (Resources) describes every resource: plural, singular,
//     kind, list kind, group, version, scope, short names, verbs and
//     subresources. Lookups by resource, kind, short name, or whatever a
//     user types (ResolveResource). Every kind implements Object; every
//     list implements ListObject.
//   - Default is idempotent and fills what Kubernetes fills (replicas 1,
//     RollingUpdate 25%/25%, restartPolicy Always, imagePullPolicy from the
//     tag, protocol TCP, targetPort = port, namespace "default", ...).
//   - Validate and ValidateUpdate never panic and return nil or a
//     *StatusError with reason Invalid (422) listing every problem as a
//     cause, with Kubernetes field paths ("spec.template.spec.containers[0].image")
//     and Kubernetes wording.
//   - Every Status constructor uses Kubernetes' reason, code and message
//     format; IsNotFound, IsConflict, ReasonOf, CodeOf and friends see
//     through %w wrapping.
//   - DecodeManifests and Decode never panic, are strict (unknown or
//     duplicate fields are errors), and report problems as 400 BadRequest
//     naming the document number and line. Marshal never mutates its input.
//   - Names are deterministic: the pod-template-hash label holds the
//     model's hash of the template (impl/project.TemplateHash).
//   - DeepCopy shares no memory with its input.
//   - Protobuf is Kubernetes' own protobuf serializer over k8s.io/api's
//     generated code; MarshalProtobuf writes what kube-apiserver stores in
//     etcd. Canonicalize and CanonicalizeProtobuf make an object, in place,
//     what a JSON or a protobuf round trip of it gives, or report that they
//     cannot (rapid tests compare them with the real round trips).
//
// The value types Kubernetes shares across kinds are k8s.io/apimachinery's,
// aliased: Quantity and ResourceList (served in canonical form: "0.5" as
// "500m"), IntOrString, LabelSelector, and the Status of every error
// (Status, StatusDetails, StatusCause, their reasons and cause types). Sentinel errors
// (ErrInvalidIntOrPercent, ErrUnknownResource) carry the package name and
// are wrapped with %w.
package api
