package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
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
	validateMetaUpdate(e, old.GetObjectMeta(), obj.GetObjectMeta())
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
	case *Service:
		if was := old.(*Service).Spec.ClusterIP; was != "" && o.Spec.ClusterIP != "" && o.Spec.ClusterIP != was {
			e.invalid("spec.clusterIP", o.Spec.ClusterIP, "field is immutable")
		}
	case *Node:
		validateNodeUpdate(e, old.(*Node), o)
	default:
		validateStoredUpdate(e, old, obj)
		validateWorkloadUpdate(e, old, obj)
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
	validateMetaUpdate(e, old.GetObjectMeta(), obj.GetObjectMeta())
	if n, ok := obj.(*Node); ok {
		validateNodeStatus(e, n)
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
		validateMeta(e, &o.ObjectMeta, km, isDNS1123Subdomain)
		validateDeploymentSpec(e, &o.Spec, "spec")
	case *ReplicaSet:
		validateMeta(e, &o.ObjectMeta, km, isDNS1123Subdomain)
		validateReplicaSetSpec(e, &o.Spec, "spec")
	case *Pod:
		validateMeta(e, &o.ObjectMeta, km, isDNS1123Subdomain)
		validatePodSpec(e, &o.Spec, "spec")
	case *Node:
		validateMeta(e, &o.ObjectMeta, km, isDNS1123Subdomain)
		validateNode(e, o)
	case *Service:
		validateMeta(e, &o.ObjectMeta, km, isDNS1035Label)
		validateServiceSpec(e, &o.Spec, "spec")
	case *Endpoints:
		validateMeta(e, &o.ObjectMeta, km, isDNS1123Subdomain)
		validateEndpointSubsets(e, o.Subsets, "subsets")
	case *Namespace:
		validateMeta(e, &o.ObjectMeta, km, isDNS1123Label)
		validateNamespaceFinalizers(e, o.Spec.Finalizers)
	case *Event:
		validateMeta(e, &o.ObjectMeta, km, isDNS1123Subdomain)
		validateEvent(e, o)
	case *Binding:
		validateMeta(e, &o.ObjectMeta, km, isDNS1123Subdomain)
		validateBinding(e, o)
	case *Scale:
		validateMeta(e, &o.ObjectMeta, km, isDNS1123Subdomain)
		e.nonNegative("spec.replicas", int64(o.Spec.Replicas))
	default:
		if validateStored(e, obj, km) || validateWorkload(e, obj, km) || validateEndpointSlice(e, obj, km) {
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
	m := obj.GetObjectMeta()
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

// validateMeta checks metadata on create. nameCheck is the kind's name
// syntax.
func validateMeta(e *errs, m *ObjectMeta, km kindMeta, nameCheck func(string) []string) {
	p := fieldPath("metadata")
	if m.Name == "" && m.GenerateName == "" {
		e.required(p.child("name"), "name or generateName is required")
	}
	if m.Name != "" {
		e.invalidEach(p.child("name"), m.Name, nameCheck(m.Name))
	}
	if m.GenerateName != "" {
		e.invalidEach(p.child("generateName"), m.GenerateName, nameCheck(maskTrailingDash(m.GenerateName)))
	}
	if km.namespaced {
		if m.Namespace == "" {
			e.required(p.child("namespace"), "")
		} else {
			e.invalidEach(p.child("namespace"), m.Namespace, isDNS1123Label(m.Namespace))
		}
	} else if m.Namespace != "" {
		e.forbidden(p.child("namespace"), "not allowed on this type")
	}
	e.nonNegative(p.child("generation"), m.Generation)
	validateLabels(e, m.Labels, p.child("labels"))
	validateAnnotations(e, m.Annotations, p.child("annotations"))
	validateOwnerReferences(e, m.OwnerReferences, p.child("ownerReferences"))
	for i, f := range m.Finalizers {
		e.invalidEach(p.child("finalizers").index(i), f, isQualifiedName(f))
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

func validateLabels(e *errs, labels map[string]string, p fieldPath) {
	for _, k := range sortedKeys(labels) {
		e.invalidEach(p, k, isQualifiedName(k))
		e.invalidEach(p, labels[k], isValidLabelValue(labels[k]))
	}
}

func validateAnnotations(e *errs, ann map[string]string, p fieldPath) {
	total := 0
	for _, k := range sortedKeys(ann) {
		e.invalidEach(p, k, isQualifiedName(strings.ToLower(k)))
		total += len(k) + len(ann[k])
	}
	if total > totalAnnotationBytes {
		e.add(FieldTooLong(p.String(), totalAnnotationBytes))
	}
}

func validateOwnerReferences(e *errs, refs []OwnerReference, p fieldPath) {
	var controllers []string
	for i, r := range refs {
		ip := p.index(i)
		if r.APIVersion == "" {
			e.invalid(ip.child("apiVersion"), r.APIVersion, "version must not be empty")
		}
		if r.Kind == "" {
			e.invalid(ip.child("kind"), r.Kind, "kind must not be empty")
		}
		if r.Name == "" {
			e.invalid(ip.child("name"), r.Name, "name must not be empty")
		}
		if r.UID == "" {
			e.invalid(ip.child("uid"), r.UID, "uid must not be empty")
		}
		if r.Controller != nil && *r.Controller {
			controllers = append(controllers, fmt.Sprintf("%s/%s", r.Kind, r.Name))
		}
	}
	if len(controllers) > 1 {
		e.invalid(p, refs, fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %s", strings.Join(controllers, " and ")))
	}
}

func validateMetaUpdate(e *errs, old, m *ObjectMeta) {
	p := fieldPath("metadata")
	immutable(e, p.child("name"), m.Name, old.Name)
	immutable(e, p.child("namespace"), m.Namespace, old.Namespace)
	if m.UID != "" {
		immutable(e, p.child("uid"), m.UID, old.UID)
	}
	if !m.CreationTimestamp.IsZero() && !m.CreationTimestamp.Equal(old.CreationTimestamp) {
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
