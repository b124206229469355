package project

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
	"k8s.io/apimachinery/pkg/types"
)

var (
	// ErrUnsupported reports an API object (or a field of one) the model
	// cannot represent: another kind, a malformed resourceVersion, an owner
	// of a kind the model lacks, a podCIDR outside the model's ranges.
	ErrUnsupported = errors.New("project: not representable in the model")
	// ErrMismatch reports arguments that do not belong together: a model
	// Pod applied to an API Deployment, different names, a template of the
	// wrong kind.
	ErrMismatch = errors.New("project: object and model object do not match")
	// ErrUnknownUID reports a model UID that UIDs never handed out, so the
	// Kubernetes uid to write is unknown.
	ErrUnknownUID = errors.New("project: unknown uid")
)

// ToModel projects one API object (Deployment, ReplicaSet, Pod, Node,
// Service, Endpoints, EndpointSlice, Namespace) into the model's object of
// the same kind.
func ToModel(obj api.Object, uids *UIDs) (model.Obj, error) {
	if uids == nil {
		return nil, fmt.Errorf("%w: nil UIDs", ErrMismatch)
	}
	if isNil(obj) {
		return nil, fmt.Errorf("%w: nil object", ErrUnsupported)
	}
	m, err := metaToModel(api.Meta(obj), uids)
	if err != nil {
		return nil, err
	}
	var o model.Obj
	switch x := obj.(type) {
	case *api.Deployment:
		o, err = deploymentToModel(x, m)
	case *api.ReplicaSet:
		o = replicaSetToModel(x, m, uids)
	case *api.Pod:
		o, err = podToModel(x, m)
	case *api.Node:
		o, err = nodeToModel(x, m)
	case *api.Service:
		o = serviceToModel(x, m)
	case *api.Endpoints:
		o = endpointsToModel(x, m)
	case *api.EndpointSlice:
		o = endpointSliceToModel(x, m)
	case *api.Namespace:
		o = namespaceToModel(x, m)
	case *api.StatefulSet:
		o = statefulSetToModel(x, m)
	case *api.PersistentVolumeClaim:
		o = claimToModel(x, m)
	case *api.CustomObject:
		o, err = customToModel(x, m)
	default:
		o, err = otherToModel(obj, m)
	}
	if err != nil {
		return nil, fmt.Errorf("%T %s: %w", obj, m.Name, err)
	}
	return o, nil
}

// isNil reports a nil interface or a nil pointer in one, whose metadata
// cannot be reached.
func isNil(obj api.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// Apply writes o's model-visible fields onto a deep copy of base and returns
// the copy, ready for an update or a status update. Only fields whose
// projection differs from o are written; the rest of base is kept. A model
// Version of 0 clears resourceVersion (an unconditional write, like the
// model's any-version writes); otherwise resourceVersion becomes o.Version,
// so the write is conditional on the version the decision was made from.
func Apply(base api.Object, o model.Obj, uids *UIDs) (api.Object, error) {
	if uids == nil {
		return nil, fmt.Errorf("%w: nil UIDs", ErrMismatch)
	}
	if isNil(base) || o == nil || reflect.ValueOf(o).IsNil() {
		return nil, fmt.Errorf("%w: nil object", ErrMismatch)
	}
	if name := api.Meta(base).Name; name != model.MetaOf(o).Name {
		return nil, fmt.Errorf("%w: %s applied to %q", ErrMismatch, model.RefOf(o), name)
	}
	var out api.Object
	var err error
	switch b := base.(type) {
	case *api.Deployment:
		out, err = applyAs(b, o, applyDeployment)
	case *api.ReplicaSet:
		out, err = applyAs(b, o, applyReplicaSet)
	case *api.Pod:
		out, err = applyAs(b, o, applyPod)
	case *api.Node:
		out, err = applyAs(b, o, applyNode)
	case *api.Service:
		out, err = applyAs(b, o, applyService)
	case *api.Endpoints:
		out, err = applyAs(b, o, applyEndpoints)
	case *api.EndpointSlice:
		out, err = applyAs(b, o, applyEndpointSlice)
	case *api.Namespace:
		out, err = applyAs(b, o, applyNamespace)
	case *api.StatefulSet:
		out, err = applyAs(b, o, applyStatefulSet)
	case *api.PersistentVolumeClaim:
		out, err = applyAs(b, o, func(*api.PersistentVolumeClaim, *model.PersistentVolumeClaim) {})
	default:
		if _, opaque := o.(*model.Custom); !opaque {
			return nil, fmt.Errorf("%w: kind %T", ErrUnsupported, base)
		}
		out = api.DeepCopy(base) // the model writes only an opaque object's metadata
	}
	if err != nil {
		return nil, err
	}
	if err := applyMeta(api.Meta(out), model.MetaOf(o), uids); err != nil {
		return nil, fmt.Errorf("%s: %w", model.RefOf(o), err)
	}
	return out, nil
}

// applyAs deep-copies base and applies o's kind-specific fields, checking
// that o has the model type that matches base.
func applyAs[A api.Object, M model.Obj](base A, o model.Obj, apply func(A, M)) (api.Object, error) {
	m, ok := o.(M)
	if !ok {
		return nil, fmt.Errorf("%w: %s applied to a %T", ErrMismatch, model.RefOf(o), base)
	}
	out := api.DeepCopy(base)
	apply(out, m)
	return out, nil
}

// New builds the API object for a model object that a controller or the
// user creates. template supplies what the model does not carry: the
// ReplicaSet (or Deployment) whose pod template a Pod is stamped from, the
// Deployment a ReplicaSet is made for, the Service whose port name
// Endpoints reuse; nil otherwise, and it is ignored for other kinds. A
// nameless Pod with an owner gets generateName "<owner>-", as the
// ReplicaSet controller creates them.
func New(o model.Obj, template api.Object, uids *UIDs) (api.Object, error) {
	if uids == nil {
		return nil, fmt.Errorf("%w: nil UIDs", ErrMismatch)
	}
	if o == nil || reflect.ValueOf(o).IsNil() {
		return nil, fmt.Errorf("%w: nil model object", ErrMismatch)
	}
	var obj api.Object
	var err error
	switch x := o.(type) {
	case *model.Deployment:
		obj, err = newDeployment(x)
	case *model.ReplicaSet:
		obj, err = newReplicaSet(x, template)
	case *model.Pod:
		obj, err = newPod(x, template)
	case *model.Node:
		obj = newNode(x)
	case *model.Service:
		obj = newService(x)
	case *model.Endpoints:
		obj, err = newEndpoints(x, template)
	case *model.EndpointSlice:
		obj, err = newEndpointSlice(x, template)
	case *model.Namespace:
		obj = newNamespace(x)
	case *model.StatefulSet:
		obj, err = newStatefulSet(x)
	case *model.PersistentVolumeClaim:
		obj, err = newClaim(x, template)
	default:
		return nil, fmt.Errorf("%w: model type %T", ErrUnsupported, o)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", model.RefOf(o), err)
	}
	m := model.MetaOf(o)
	om := api.Meta(obj)
	om.UID = types.UID(uids.String(m.UID)) // "" when unknown: the store assigns it
	if err := applyMeta(om, m, uids); err != nil {
		return nil, fmt.Errorf("%s: %w", model.RefOf(o), err)
	}
	return obj, nil
}

// typeMeta is the kind and apiVersion of a model kind's API object.
func typeMeta(k model.Kind) api.TypeMeta {
	info, _ := api.LookupResource(k.Resource())
	return api.TypeMeta{Kind: info.Kind, APIVersion: info.APIVersion()}
}

// objectMeta starts the metadata of a new object: everything the model
// carries but the owner and uid, which need a UIDs (New adds them), and for
// namespaced kinds the model's namespace, else the template's, else
// "default".
func objectMeta(k model.Kind, m *model.Meta, template api.Object) api.ObjectMeta {
	om := api.ObjectMeta{Name: m.Name, Labels: cloneMap(m.Labels), ResourceVersion: formatVersion(m.Version), Finalizers: cloneList(m.Finalizers)}
	if m.Deleting {
		om.DeletionTimestamp = ptr(api.Unix(0)) // no clock: only the fact is modelled
		om.DeletionGracePeriodSeconds = gracePeriod(m.Graceful)
	}
	if m.Name == "" && m.Owner.UID != 0 {
		om.GenerateName = m.Owner.Name + "-"
	}
	if info, _ := api.LookupResource(k.Resource()); info.Namespaced {
		switch {
		case m.Namespace != "":
			om.Namespace = m.Namespace
		case template != nil && api.Meta(template) != nil && api.Meta(template).Namespace != "":
			om.Namespace = api.Meta(template).Namespace
		default:
			om.Namespace = api.DefaultNamespace
		}
	}
	return om
}

// cloneList copies a list, nil when empty (the model's zero value).
func cloneList(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return slices.Clone(l)
}

// gracePeriod is the deletionGracePeriodSeconds of a model object being
// deleted: the pod default when its kubelet must finish it, else 0.
func gracePeriod(graceful bool) *int64 {
	if graceful {
		return ptr(int64(api.DefaultTerminationGracePeriodSeconds))
	}
	return ptr(int64(0))
}

// ownerKinds maps an ownerReference kind to the model's kind.
var ownerKinds = map[string]model.Kind{
	"Deployment": model.KindDeployment,
	"ReplicaSet": model.KindReplicaSet,
	"Pod":        model.KindPod,
	"Node":       model.KindNode,
	"Service":    model.KindService,
	"Endpoints":  model.KindEndpoints,
	// StatefulSet: its pods; its claims, when whenDeleted is Delete.
	"StatefulSet": model.KindStatefulSet,
}

func metaToModel(om *api.ObjectMeta, uids *UIDs) (model.Meta, error) {
	v, err := parseVersion(om.ResourceVersion)
	if err != nil {
		return model.Meta{}, fmt.Errorf("%s: %w", om.Name, err)
	}
	owner, err := ownerToModel(om, uids)
	if err != nil {
		return model.Meta{}, fmt.Errorf("%s: %w", om.Name, err)
	}
	return model.Meta{
		Name:       om.Name,
		Namespace:  om.Namespace,
		UID:        uids.Of(string(om.UID)),
		Version:    v,
		Labels:     uids.Shared(om.Labels),
		Owner:      owner,
		Deleting:   om.DeletionTimestamp != nil,
		Graceful:   om.DeletionTimestamp != nil && om.DeletionGracePeriodSeconds != nil && *om.DeletionGracePeriodSeconds > 0,
		Finalizers: cloneList(om.Finalizers),
	}, nil
}

func parseVersion(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%w: resourceVersion %q is not a revision", ErrUnsupported, rv)
	}
	return v, nil
}

func formatVersion(v int64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

// ownerToModel is the ownerReference with controller=true; other references
// are invisible to the model. So is a controller of a built-in kind the
// model does not have (a ConfigMap), and a cluster-scoped custom resource
// controlling a namespaced object (the model looks an owner up in its
// dependent's namespace): the object is the model's to run as if it had no
// owner, and Apply keeps that reference as it is. A served custom
// resource's controller is a KindCustom owner.
func ownerToModel(om *api.ObjectMeta, uids *UIDs) (model.Owner, error) {
	for _, r := range om.OwnerReferences {
		if r.Controller == nil || !*r.Controller {
			continue
		}
		if k, ok := ownerKinds[r.Kind]; ok {
			return normalOwner(model.Owner{Kind: k, Name: r.Name, UID: uids.Of(string(r.UID))}), nil
		}
		if info, ok := api.CustomKind(r.APIVersion, r.Kind); ok && (info.Namespaced || om.Namespace == "") {
			return normalOwner(model.Owner{Kind: model.KindCustom, Type: customType(info), Name: r.Name, UID: uids.Of(string(r.UID))}), nil
		}
		return model.Owner{}, nil
	}
	return model.Owner{}, nil
}

// normalOwner treats UID 0 as no owner at all, whatever Kind and Name say.
func normalOwner(o model.Owner) model.Owner {
	if o.UID == 0 {
		return model.Owner{}
	}
	return o
}

// applyMeta writes the model's metadata fields that differ from om.
func applyMeta(om *api.ObjectMeta, m *model.Meta, uids *UIDs) error {
	if !sameMap(om.Labels, m.Labels) {
		om.Labels = cloneMap(m.Labels)
	}
	want := normalOwner(m.Owner)
	if cur, err := ownerToModel(om, uids); err != nil || cur != want {
		refs, err := withController(om.OwnerReferences, want, uids)
		if err != nil {
			return err
		}
		om.OwnerReferences = refs
	}
	if (om.DeletionTimestamp != nil) != m.Deleting {
		om.DeletionTimestamp, om.DeletionGracePeriodSeconds = nil, nil
		if m.Deleting {
			om.DeletionTimestamp = ptr(api.Unix(0)) // no clock: only the fact is modelled
			om.DeletionGracePeriodSeconds = gracePeriod(m.Graceful)
		}
	}
	if !slices.Equal(om.Finalizers, m.Finalizers) {
		om.Finalizers = cloneList(m.Finalizers)
	}
	if v, err := parseVersion(om.ResourceVersion); err != nil || v != m.Version {
		om.ResourceVersion = formatVersion(m.Version)
	}
	return nil
}

// withController replaces the controller reference of refs by owner (none
// if owner is zero), keeping every other reference and the position.
func withController(refs []api.OwnerReference, owner model.Owner, uids *UIDs) ([]api.OwnerReference, error) {
	var ref *api.OwnerReference
	if owner.UID != 0 {
		uid := uids.String(owner.UID)
		if uid == "" {
			return nil, fmt.Errorf("%w: owner %s/%s has uid %d", ErrUnknownUID, owner.Kind.Resource(), owner.Name, owner.UID)
		}
		tm := typeMeta(owner.Kind)
		if owner.Kind == model.KindCustom {
			var ok bool
			if tm, ok = customTypeMeta(owner.Type); !ok {
				// Its CRD went since the object was projected: the model
				// never sets a custom owner, it only keeps one, so keep
				// the references as they are.
				return refs, nil
			}
		}
		yes := true
		ref = &api.OwnerReference{APIVersion: tm.APIVersion, Kind: tm.Kind, Name: owner.Name, UID: types.UID(uid),
			Controller: &yes, BlockOwnerDeletion: &yes}
	}
	var out []api.OwnerReference
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			if ref != nil {
				out = append(out, *ref)
				ref = nil
			}
			continue
		}
		out = append(out, r)
	}
	if ref != nil {
		out = append(out, *ref)
	}
	return out, nil
}

// cloneMap copies m; an empty map becomes nil so projections compare with
// reflect.DeepEqual.
func cloneMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// sameMap treats nil and empty alike.
func sameMap(a, b map[string]string) bool { return maps.Equal(a, b) }

func ptr[T any](v T) *T { return &v }

// i32 converts a model count for an API field, saturating instead of
// wrapping.
func i32(n int) int32 {
	switch {
	case n > 1<<31-1:
		return 1<<31 - 1
	case n < -1<<31:
		return -1 << 31
	}
	return int32(n)
}
