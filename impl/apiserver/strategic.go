package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"

	"github.com/converge-dev/converge/impl/api"
)

// Strategic merge patch is k8s.io/apimachinery's strategicpatch, as in
// kube-apiserver: the merge keys, patch strategies ($retainKeys on
// volumes, atomic tolerations, ...) and directives come from the struct
// tags of the kind's k8s.io/api type, which strategicSchemaTypes names
// for every served kind. A resource without one answers 415, as
// kube-apiserver does for custom resources.

// strategicSchemaTypes is the k8s.io/api type whose struct tags drive a
// strategic merge patch of each kind converge serves, by kind: a status
// subresource patches its whole object, a scale subresource an
// autoscaling/v1 Scale.
//
// events.k8s.io/v1 Events are patched as core/v1 Events: serveEventsV1
// renames the patch's fields to core's before it reaches servePatch, so
// the document and the patch are core/v1's (neither type has a list
// field, so their strategic merges agree).
var strategicSchemaTypes = map[string]any{
	"Deployment":              appsv1.Deployment{},
	"ReplicaSet":              appsv1.ReplicaSet{},
	"StatefulSet":             appsv1.StatefulSet{},
	"DaemonSet":               appsv1.DaemonSet{},
	"Job":                     batchv1.Job{},
	"CronJob":                 batchv1.CronJob{},
	"HorizontalPodAutoscaler": autoscalingv2.HorizontalPodAutoscaler{},
	"Ingress":                 networkingv1.Ingress{},
	"NetworkPolicy":           networkingv1.NetworkPolicy{},
	"PodDisruptionBudget":     policyv1.PodDisruptionBudget{},
	"Role":                    rbacv1.Role{},
	"ClusterRole":             rbacv1.ClusterRole{},
	"RoleBinding":             rbacv1.RoleBinding{},
	"ClusterRoleBinding":      rbacv1.ClusterRoleBinding{},
	"Pod":                     corev1.Pod{},
	"Node":                    corev1.Node{},
	"Service":                 corev1.Service{},
	"Endpoints":               corev1.Endpoints{},
	"EndpointSlice":           discoveryv1.EndpointSlice{},
	"Namespace":               corev1.Namespace{},
	"Event":                   corev1.Event{},
	"ConfigMap":               corev1.ConfigMap{},
	"Secret":                  corev1.Secret{},
	"ServiceAccount":          corev1.ServiceAccount{},
	"PersistentVolumeClaim":   corev1.PersistentVolumeClaim{},
	"Lease":                   coordinationv1.Lease{},
	"Scale":                   autoscalingv1.Scale{},

	"CustomResourceDefinition": apiextensionsv1.CustomResourceDefinition{},
}

// strategicSchemas is strategicSchemaTypes read once.
var strategicSchemas = func() map[string]strategicpatch.LookupPatchMeta {
	out := make(map[string]strategicpatch.LookupPatchMeta, len(strategicSchemaTypes))
	for kind, t := range strategicSchemaTypes {
		meta, err := strategicpatch.NewPatchMetaFromStruct(t)
		if err != nil {
			panic(fmt.Sprintf("apiserver: strategic merge schema of %s: %v", kind, err))
		}
		out[kind] = meta
	}
	return out
}()

// strategicSchema is the schema of the body of resource, which may name a
// subresource ("deployments/scale").
func strategicSchema(resource string) (strategicpatch.LookupPatchMeta, bool) {
	res, sub, hasSub := strings.Cut(resource, "/")
	info, ok := api.LookupResource(res)
	if !ok {
		return nil, false
	}
	kind := info.Kind
	if hasSub {
		s, ok := info.Subresource(sub)
		if !ok {
			return nil, false
		}
		kind = s.Kind
	}
	s, ok := strategicSchemas[kind]
	return s, ok
}

// strategicMergePatch applies a strategic merge patch to doc, a JSON
// object of resource.
func strategicMergePatch(resource string, doc, patch []byte) ([]byte, error) {
	schema, ok := strategicSchema(resource)
	if !ok {
		return nil, api.NewUnsupportedMediaType([]string{jsonPatchType, mergePatchType, applyPatchType})
	}
	var original map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &original); err != nil {
		return nil, api.NewInternalError(err)
	}
	var p map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(patch, &p); err != nil {
		return nil, api.NewBadRequest(err.Error())
	}
	out, err := strategicpatch.StrategicMergeMapPatchUsingLookupPatchMeta(original, p, schema)
	if err != nil {
		return nil, strategicPatchError(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	return b, nil
}

// strategicPatchError is the Status of a strategic merge that failed, as
// kube-apiserver's interpretStrategicMergePatchError words it: a malformed
// directive is 400, lists of lists and content outside $retainKeys are
// 422. kube-apiserver answers every other error of the library (a list
// element without its merge key, an unknown $patch) with a 500; converge
// answers 422 with the same message, since a bad patch is the client's
// error and converge's apiserver never answers user input with a 5xx.
func strategicPatchError(err error) error {
	switch {
	case errors.Is(err, mergepatch.ErrBadJSONDoc),
		errors.Is(err, mergepatch.ErrBadPatchFormatForPrimitiveList),
		errors.Is(err, mergepatch.ErrBadPatchFormatForRetainKeys),
		errors.Is(err, mergepatch.ErrBadPatchFormatForSetElementOrderList),
		errors.Is(err, mergepatch.ErrUnsupportedStrategicMergePatchFormat):
		return api.NewBadRequest(err.Error())
	case errors.Is(err, mergepatch.ErrNoListOfLists),
		errors.Is(err, mergepatch.ErrPatchContentNotMatchRetainKeys):
		return unprocessablePatch()
	}
	return invalidPatch(err.Error())
}
