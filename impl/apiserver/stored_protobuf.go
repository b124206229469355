package apiserver

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// storedProto decodes Kubernetes protobuf bodies of the stored-only kinds
// with k8s.io/api's own generated code, as kubectl's typed clients send
// them (kubectl create configmap, secret, serviceaccount), and the
// autoscaling/v1 Scale that client-go's UpdateScale sends. Its scheme
// knows only those kinds: any other body is left to kubeproto.
var storedProto = func() runtime.Decoder {
	s := runtime.NewScheme()
	s.AddKnownTypes(corev1.SchemeGroupVersion, &corev1.ConfigMap{}, &corev1.Secret{}, &corev1.ServiceAccount{},
		&corev1.PersistentVolumeClaim{})
	s.AddKnownTypes(appsv1.SchemeGroupVersion, &appsv1.StatefulSet{}, &appsv1.DaemonSet{})
	s.AddKnownTypes(batchv1.SchemeGroupVersion, &batchv1.Job{})
	s.AddKnownTypes(eventsv1.SchemeGroupVersion, &eventsv1.Event{})
	s.AddKnownTypes(coordinationv1.SchemeGroupVersion, &coordinationv1.Lease{})
	s.AddKnownTypes(autoscalingv1.SchemeGroupVersion, &autoscalingv1.Scale{})
	return protobuf.NewSerializer(s, s)
}()

// storedFromProtobuf is the JSON of a stored kind's protobuf body; ok is
// false when the body is not one.
func storedFromProtobuf(body []byte) (out []byte, ok bool, err error) {
	obj, gvk, err := storedProto.Decode(body, nil, nil)
	if err != nil || gvk == nil {
		return nil, false, nil
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	out, err = json.Marshal(obj)
	return out, true, err
}
