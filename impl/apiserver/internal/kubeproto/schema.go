package kubeproto

import "google.golang.org/protobuf/encoding/protowire"

// valueKind says how one protobuf field becomes JSON.
type valueKind uint8

const (
	kindString      valueKind = iota + 1 // bytes -> JSON string
	kindBool                             // varint -> true/false
	kindInt32                            // varint, sign-extended -> number
	kindInt64                            // varint -> number
	kindMessage                          // bytes -> object, by the table
	kindInline                           // bytes -> fields merged into the parent (Probe.handler)
	kindTime                             // metav1.Time -> RFC 3339 string or null
	kindIntOrString                      // intstr.IntOrString -> number or string
	kindStringMap                        // repeated {1 key, 2 value} -> object of strings
	kindQuantityMap                      // repeated {1 key, 2 resource.Quantity} -> object of strings
	kindRawJSON                          // metav1.FieldsV1 {1 raw} -> the raw JSON
)

// field is one row of a message's table.
type field struct {
	name string
	kind valueKind
	// msg names the message type of kindMessage and kindInline fields.
	msg      string
	repeated bool
	// optional marks a Go pointer field in Kubernetes: when present it is
	// written even if zero, as Kubernetes' JSON does (replicas: 0).
	optional bool
}

// wireType is the only wire type the field may arrive with.
func (f field) wireType() protowire.Type {
	switch f.kind {
	case kindBool, kindInt32, kindInt64:
		return protowire.VarintType
	default:
		return protowire.BytesType
	}
}

// message maps field numbers to fields.
type message map[protowire.Number]field

// Table constructors keep the schema files one row per field.

func str(name string) field         { return field{name: name, kind: kindString} }
func strList(name string) field     { return field{name: name, kind: kindString, repeated: true} }
func boolean(name string) field     { return field{name: name, kind: kindBool} }
func i32(name string) field         { return field{name: name, kind: kindInt32} }
func i64(name string) field         { return field{name: name, kind: kindInt64} }
func timestamp(name string) field   { return field{name: name, kind: kindTime} }
func intOrStr(name string) field    { return field{name: name, kind: kindIntOrString} }
func strMap(name string) field      { return field{name: name, kind: kindStringMap} }
func quantityMap(name string) field { return field{name: name, kind: kindQuantityMap} }
func rawJSON(name string) field     { return field{name: name, kind: kindRawJSON} }
func msg(name, typ string) field    { return field{name: name, kind: kindMessage, msg: typ} }
func msgList(name, typ string) field {
	return field{name: name, kind: kindMessage, msg: typ, repeated: true}
}
func inline(typ string) field { return field{kind: kindInline, msg: typ} }

// optional marks f as a pointer field (written when present, even if zero).
func optional(f field) field { f.optional = true; return f }

// typeKey is an apiVersion and kind from the runtime.Unknown envelope.
type typeKey struct{ apiVersion, kind string }

// kinds maps the kinds converge serves to their top-level message.
var kinds = map[typeKey]string{
	{"v1", "Namespace"}:       "Namespace",
	{"v1", "Pod"}:             "Pod",
	{"v1", "Service"}:         "Service",
	{"v1", "Node"}:            "Node",
	{"v1", "Endpoints"}:       "Endpoints",
	{"apps/v1", "Deployment"}: "Deployment",
	{"apps/v1", "ReplicaSet"}: "ReplicaSet",
	// A typed client sends DeleteOptions in its own group's version.
	{"v1", "DeleteOptions"}:             "DeleteOptions",
	{"apps/v1", "DeleteOptions"}:        "DeleteOptions",
	{"meta.k8s.io/v1", "DeleteOptions"}: "DeleteOptions",

	{"authorization.k8s.io/v1", "SelfSubjectAccessReview"}: "SelfSubjectAccessReview",
}

// schema is every message the kinds above reach. Field numbers are from
// Kubernetes' generated.proto files (k8s.io/api core/v1 and apps/v1,
// k8s.io/apimachinery meta/v1). It is filled by the schema_*.go files.
var schema = map[string]message{}

// register adds messages to schema; the schema files call it from init.
func register(ms map[string]message) {
	for name, m := range ms {
		schema[name] = m
	}
}
