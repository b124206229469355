package api

import (
	"bytes"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// Protobuf is Kubernetes' protobuf serializer (k8s.io/apimachinery's, over
// k8s.io/api's generated code) for every kind of the groups converge
// serves, the autoscaling/v1 Scale of UpdateScale, and DeleteOptions in
// each group version: what kubectl's typed clients send, and what
// kube-apiserver stores built-in kinds as. Its values begin with the
// "k8s\x00" magic and carry apiVersion and kind in an envelope.
var Protobuf = protobuf.NewSerializer(protobufScheme, protobufScheme)

var protobufScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme,
		coordinationv1.AddToScheme, discoveryv1.AddToScheme, eventsv1.AddToScheme, autoscalingv1.AddToScheme, autoscalingv2.AddToScheme, authenticationv1.AddToScheme, authorizationv1.AddToScheme,
		networkingv1.AddToScheme, policyv1.AddToScheme, rbacv1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(s); err != nil {
			panic("api: the protobuf scheme: " + err.Error())
		}
	}
	s.AddKnownTypes(metav1.SchemeGroupVersion, &metav1.DeleteOptions{})
	return s
}()

// IsProtobuf reports whether b is a value Protobuf wrote.
func IsProtobuf(b []byte) bool {
	ok, _, _ := Protobuf.RecognizesData(b)
	return ok
}

// protoSized is what k8s.io/api's generated code gives each type with a
// protobuf encoding, and what Protobuf needs to encode it.
type protoSized interface {
	MarshalToSizedBuffer([]byte) (int, error)
	Size() int
}

// HasProtobuf reports whether obj is a kind Protobuf encodes: one of
// k8s.io/api's types (or a CRD), not a custom resource.
func HasProtobuf(obj Object) bool {
	if _, ok := obj.(protoSized); !ok {
		return false
	}
	ro, ok := obj.(runtime.Object)
	if !ok {
		return false
	}
	_, _, err := protobufScheme.ObjectKinds(ro)
	return err == nil
}

// MarshalProtobuf encodes obj as Kubernetes protobuf, with its kind and
// apiVersion (TypeMetaFor's) in the envelope whatever its TypeMeta says.
// The serializer reads them from obj itself, so an obj whose TypeMeta
// differs is changed while it encodes: only its owner may encode it then.
func MarshalProtobuf(obj Object) ([]byte, error) {
	ro, ok := obj.(runtime.Object)
	tm, known := TypeMetaFor(obj)
	if !ok || !known || !HasProtobuf(obj) {
		return nil, fmt.Errorf("api: %T has no protobuf encoding", obj)
	}
	if own := *TypeOf(obj); own != tm {
		*TypeOf(obj) = tm
		defer func() { *TypeOf(obj) = own }()
	}
	var buf bytes.Buffer
	err := Protobuf.Encode(ro, &buf)
	return buf.Bytes(), err
}

// UnmarshalProtobuf decodes a value MarshalProtobuf wrote into obj, which
// must be of the kind the value names. obj's TypeMeta is left as it was.
func UnmarshalProtobuf(b []byte, obj Object) error {
	ro, ok := obj.(runtime.Object)
	if !ok {
		return fmt.Errorf("api: %T has no protobuf encoding", obj)
	}
	own := *TypeOf(obj)
	out, gvk, err := Protobuf.Decode(b, nil, ro)
	*TypeOf(obj) = own
	if err != nil {
		return err
	}
	if out != ro {
		return fmt.Errorf("api: a protobuf value of %s is not a %T", gvkString(gvk), obj)
	}
	return nil
}

func gvkString(gvk *schema.GroupVersionKind) string {
	if gvk == nil {
		return "an unknown kind"
	}
	return gvk.String()
}

// SetNestedKinds sets the apiVersion and kind of the objects obj holds
// inside it, which apps/v1 serves and protobuf does not carry: a
// StatefulSet's volumeClaimTemplates are claims (upstream's conversion to
// apps/v1 sets them, kubernetes/kubernetes#87583). The registry calls it
// on whatever it decodes.
func SetNestedKinds(obj Object) {
	if s, ok := obj.(*StatefulSet); ok {
		for i := range s.Spec.VolumeClaimTemplates {
			c := &s.Spec.VolumeClaimTemplates[i]
			if c.APIVersion != "v1" || c.Kind != "PersistentVolumeClaim" {
				c.APIVersion, c.Kind = "v1", "PersistentVolumeClaim"
			}
		}
	}
}
