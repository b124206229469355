package apiserver

import (
	"encoding/json"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	appsv1 "k8s.io/api/apps/v1"
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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// protobufDecoder reads Kubernetes protobuf bodies (what kubectl's typed
// clients and client-go send by default) with k8s.io/api's own generated
// code, as kube-apiserver does: every kind of the groups converge serves,
// the autoscaling/v1 Scale of UpdateScale, and DeleteOptions in each group
// version. As upstream, protobuf has no strict decoding: a field number
// the generated code does not know is skipped.
var protobufDecoder = func() runtime.Decoder {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme,
		coordinationv1.AddToScheme, discoveryv1.AddToScheme, eventsv1.AddToScheme, autoscalingv1.AddToScheme, autoscalingv2.AddToScheme, authorizationv1.AddToScheme,
		networkingv1.AddToScheme, policyv1.AddToScheme, rbacv1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(s); err != nil {
			panic("apiserver: the protobuf scheme: " + err.Error())
		}
	}
	s.AddKnownTypes(metav1.SchemeGroupVersion, &metav1.DeleteOptions{})
	return protobuf.NewSerializer(s, s)
}()

// jsonFromProtobuf is the JSON document of a protobuf body, with its
// apiVersion and kind, so that it is checked and decoded as a JSON body
// is.
func jsonFromProtobuf(body []byte) ([]byte, error) {
	obj, gvk, err := protobufDecoder.Decode(body, nil, nil)
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	return json.Marshal(obj)
}
