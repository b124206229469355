package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks obj as the apiserver does on create, after Default. It
// returns nil, or a *StatusError (422 Invalid) with one cause per problem.
// An object with an empty name but a generateName is accepted, so the
// store may assign the name after validating.
func Validate(obj Object) error {
	km, e, err := validateObject(obj)
	if err != nil {
		return err
	}
	return invalidOrNil(obj, km, e.list)
}

// ValidateUpdate checks an update from old to obj: everything Validate
// checks, plus the fields Kubernetes makes immutable. An empty uid or zero
// creationTimestamp in obj means "not sent"; the store keeps the old value,
// as Kubernetes' update path does.
func ValidateUpdate(old, obj Object) error {
	km, e, err := validateObject(obj)
	if err != nil {
		return err
	}
	okm, ok := metaOf(old)
	if !ok || isNilObject(old) || okm.kind != km.kind {
		return NewBadRequest(fmt.Sprintf("api: cannot validate an update from %T to %T", old, obj))
	}
	validateMetaUpdate(e, Meta(old), Meta(obj))
	switch o := obj.(type) {
	case *Deployment:
		immutable(e, "spec.selector", o.Spec.Selector, old.(*Deployment).Spec.Selector)
	case *ReplicaSet:
		immutable(e, "spec.selector", o.Spec.Selector, old.(*ReplicaSet).Spec.Selector)
	case *Pod:
		// Binding sets nodeName through its own path; after that it is fixed.
		if was := old.(*Pod).Spec.NodeName; was != "" && o.Spec.NodeName != was {
			e.invalid("spec.nodeName", o.Spec.NodeName, "field is immutable")
		}
		validateSchedulingGatesUpdate(e, old.(*Pod).Spec.SchedulingGates, o.Spec.SchedulingGates)
	case *Service:
		if was := old.(*Service).Spec.ClusterIP; was != "" && o.Spec.ClusterIP != "" && o.Spec.ClusterIP != was {
			e.invalid("spec.clusterIP", o.Spec.ClusterIP, "field is immutable")
		}
	case *Node:
		validateNodeUpdate(e, old.(*Node), o)
	case *CustomResourceDefinition:
		e.list = nil
		validateCRD(e, o, old.(*CustomResourceDefinition))
	case *CustomObject:
		// Create's checks ran above; the update's add the CEL transition
		// rules, which see the old object.
		e.list = nil
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateMetaUpdate(e, Meta(old), Meta(obj))
		validateCustom(e, o, old.(*CustomObject), false)
	default:
		validateStoredUpdate(e, old, obj)
		validateWorkloadUpdate(e, old, obj)
		validateOwnedUpdate(e, old, obj)
		validateEndpointSliceUpdate(e, old, obj)
	}
	return invalidOrNil(obj, km, e.list)
}

// ValidateStatusUpdate checks a write of obj's status over old, as the
// status subresource does upstream: the metadata update and the status.
// The rest of obj is old's, checked when it was written, so it is not
// checked again: a pod's status update was spending more on its spec than
// on anything else.
func ValidateStatusUpdate(old, obj Object) error {
	km, ok := metaOf(obj)
	okm, oldOK := metaOf(old)
	if !ok || !oldOK || isNilObject(obj) || isNilObject(old) || okm.kind != km.kind {
		return NewBadRequest(fmt.Sprintf("api: cannot validate a status update from %T to %T", old, obj))
	}
	e := &errs{}
	switch o := obj.(type) {
	case *CustomObject:
		// The apiextensions strategies check the metadata update too.
		validateCustom(e, o, old.(*CustomObject), true)
	case *CustomResourceDefinition:
		validateCRDStatus(e, o, old.(*CustomResourceDefinition))
	case *Node:
		validateMetaUpdate(e, Meta(old), Meta(obj))
		validateNodeStatus(e, o)
	default:
		validateMetaUpdate(e, Meta(old), Meta(obj))
	}
	return invalidOrNil(obj, km, e.list)
}

// validateObject runs the create-time checks and returns what it found;
// err is set only when obj is not a kind converge validates.
func validateObject(obj Object) (kindMeta, *errs, error) {
	km, ok := metaOf(obj)
	if !ok || isNilObject(obj) {
		return km, nil, NewBadRequest(fmt.Sprintf("api: cannot validate %T", obj))
	}
	e := &errs{}
	switch o := obj.(type) {
	case *Deployment:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateDeploymentSpec(e, &o.Spec, "spec")
	case *ReplicaSet:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateReplicaSetSpec(e, &o.Spec, "spec")
	case *Pod:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validatePodSpec(e, &o.Spec, "spec")
		if o.Spec.NodeName != "" && len(o.Spec.SchedulingGates) > 0 {
			e.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared")
		}
	case *Node:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateNode(e, o)
	case *Service:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNS1035Label)
		validateServiceSpec(e, &o.Spec, "spec")
	case *Endpoints:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateEndpointSubsets(e, o.Subsets, "subsets")
	case *Namespace:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSLabel)
		validateNamespaceFinalizers(e, o.Spec.Finalizers)
	case *Event:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateEvent(e, o)
	case *Binding:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateBinding(e, o)
	case *Scale:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		e.nonNegative("spec.replicas", int64(o.Spec.Replicas))
	case *CustomObject:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateCustom(e, o, nil, false)
	case *CustomResourceDefinition:
		// The apiextensions module checks the metadata too.
		validateCRD(e, o, nil)
	default:
		if validateStored(e, obj, km) || validateWorkload(e, obj, km) || validateOwned(e, obj, km) || validateEndpointSlice(e, obj, km) {
			return km, e, nil
		}
		return km, nil, NewBadRequest(fmt.Sprintf("api: cannot validate %T", obj))
	}
	return km, e, nil
}

func invalidOrNil(obj Object, km kindMeta, list FieldErrors) error {
	if len(list) == 0 {
		return nil
	}
	m := Meta(obj)
	name := m.Name
	if name == "" {
		name = m.GenerateName
	}
	return NewInvalid(GroupKind{Group: km.group, Kind: km.kind}, name, list)
}

// isNilObject catches both a nil interface and a typed nil pointer, whose
// promoted GetObjectMeta would panic.
func isNilObject(obj Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// validateMeta checks metadata on create, with upstream's pieces of
// ValidateObjectMeta in its order. nameFn is the kind's name syntax. The
// name is not required when generateName is set: converge validates
// before it generates the name.
func validateMeta(e *errs, m *ObjectMeta, km kindMeta, nameFn apivalidation.ValidateNameFunc) {
	p := fieldPath("metadata")
	if m.GenerateName != "" && !plainGenerateName(m.GenerateName) {
		e.invalidEach(p.child("generateName"), m.GenerateName, nameFn(m.GenerateName, true))
	}
	if m.Name == "" && m.GenerateName == "" {
		e.required(p.child("name"), "name or generateName is required")
	}
	if m.Name != "" && !plainName(m.Name) {
		e.invalidEach(p.child("name"), m.Name, nameFn(m.Name, false))
	}
	if km.namespaced {
		if m.Namespace == "" {
			e.required(p.child("namespace"), "")
		} else if !plainName(m.Namespace) {
			e.invalidEach(p.child("namespace"), m.Namespace, apivalidation.ValidateNamespaceName(m.Namespace, false))
		}
	} else if m.Namespace != "" {
		e.forbidden(p.child("namespace"), "not allowed on this type")
	}
	e.nonNegative(p.child("generation"), m.Generation)
	validateLabels(e, m.Labels, p.child("labels"))
	validateAnnotations(e, m.Annotations, p.child("annotations"))
	validateOwnerReferences(e, m.OwnerReferences, p.child("ownerReferences"))
	if len(m.Finalizers) > 0 {
		e.addList(apivalidation.ValidateFinalizers(m.Finalizers, p.child("finalizers").path()))
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// inKeyOrder runs an upstream check of a whole map. It ranges over the map,
// so when it finds more than one problem the keys are checked again one by
// one in sorted order, for the same list every time; whole-map errors (the
// annotations' total size) come last.
func inKeyOrder(e *errs, m map[string]string, check func(map[string]string) field.ErrorList) {
	if len(m) == 0 {
		return
	}
	all := check(m)
	if len(all) <= 1 {
		e.addList(all)
		return
	}
	for _, k := range sortedKeys(m) {
		for _, fe := range check(map[string]string{k: m[k]}) {
			if fe.Type != field.ErrorTypeTooLong {
				e.addList(field.ErrorList{fe})
			}
		}
	}
	for _, fe := range all {
		if fe.Type == field.ErrorTypeTooLong {
			e.addList(field.ErrorList{fe})
		}
	}
}

func validateLabels(e *errs, labels map[string]string, p fieldPath) {
	if labelsHaveShape(labels) {
		return
	}
	inKeyOrder(e, labels, func(m map[string]string) field.ErrorList { return metav1validation.ValidateLabels(m, p.path()) })
}

func validateAnnotations(e *errs, ann map[string]string, p fieldPath) {
	inKeyOrder(e, ann, func(m map[string]string) field.ErrorList { return apivalidation.ValidateAnnotations(m, p.path()) })
}

func validateOwnerReferences(e *errs, refs []OwnerReference, p fieldPath) {
	if len(refs) == 0 {
		return
	}
	up := make([]metav1.OwnerReference, len(refs))
	for i, r := range refs {
		up[i] = metav1.OwnerReference{APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, UID: types.UID(r.UID),
			Controller: r.Controller, BlockOwnerDeletion: r.BlockOwnerDeletion}
	}
	e.addList(apivalidation.ValidateOwnerReferences(up, p.path()))
}

func validateMetaUpdate(e *errs, old, m *ObjectMeta) {
	p := fieldPath("metadata")
	immutable(e, p.child("name"), m.Name, old.Name)
	immutable(e, p.child("namespace"), m.Namespace, old.Namespace)
	if m.UID != "" {
		immutable(e, p.child("uid"), m.UID, old.UID)
	}
	if !m.CreationTimestamp.IsZero() && !m.CreationTimestamp.Equal(&old.CreationTimestamp) {
		e.invalid(p.child("creationTimestamp"), m.CreationTimestamp, "field is immutable")
	}
	if m.Generation < old.Generation {
		e.invalid(p.child("generation"), m.Generation, "must not be decremented")
	}
	if old.DeletionTimestamp != nil {
		var added []string
		for _, f := range m.Finalizers {
			if !slices.Contains(old.Finalizers, f) {
				added = append(added, f)
			}
		}
		if len(added) > 0 {
			sort.Strings(added)
			e.forbidden(p.child("finalizers"), fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %q", added))
		}
	}
}

// immutable compares by JSON so that nil and empty collections are equal,
// as Kubernetes' semantic equality treats them.
func immutable(e *errs, p fieldPath, now, was any) {
	a, errA := json.Marshal(now)
	b, errB := json.Marshal(was)
	if errA != nil || errB != nil || string(a) != string(b) {
		e.invalid(p, now, "field is immutable")
	}
}
