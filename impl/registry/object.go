package registry

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// encode renders obj as its stored value: Kubernetes protobuf for the
// built-in kinds, as kube-apiserver stores them (api.MarshalProtobuf),
// JSON for custom resources, as apiextensions-apiserver stores them. The
// resourceVersion is not stored: it is the key's mod revision, set again
// by decode.
func encode(obj api.Object) ([]byte, error) {
	if c, ok := obj.(*api.CustomObject); ok {
		// Custom resources are stored at their storage version, whatever
		// version they were written at ("None" conversion).
		if info, ok := api.ResourceFor(c); ok {
			c.APIVersion = info.APIVersion()
		}
	}
	m := api.Meta(obj)
	rv := m.ResourceVersion
	m.ResourceVersion = ""
	var b []byte
	var err error
	if api.HasProtobuf(obj) {
		b, err = api.MarshalProtobuf(obj)
	} else {
		b, err = api.Marshal(obj)
	}
	m.ResourceVersion = rv
	if err != nil {
		return nil, api.NewInternalError(fmt.Errorf("registry: encode %T: %w", obj, err))
	}
	return b, nil
}

// newObject is an empty object of a stored resource. One the table does
// not know is a custom resource whose CRD went meanwhile (the events of
// its last deletions reach the watches after the CRD's own): its stored
// value names its kind.
func newObject(resource string) (api.Object, error) {
	if obj, err := api.New(resource); err == nil {
		return obj, nil
	}
	return &api.CustomObject{}, nil
}

// newList is an empty list of resource; store.AllCustom's holds custom
// resources of any kind, and a store.Union's objects of several kinds.
func newList(resource string) (api.ListObject, error) {
	switch {
	case resource == store.AllCustom:
		return &api.CustomObjectList{}, nil
	case store.IsUnion(resource):
		return &unionList{}, nil
	}
	return api.NewList(resource)
}

// unionList is a store.Union's list: objects of several kinds, which only
// a client in process, never one over HTTP, can ask for.
type unionList struct {
	api.TypeMeta
	api.ListMeta
	Items []api.Object
}

func (l *unionList) GetItems() []api.Object { return l.Items }
func (l *unionList) SetItems(objs []api.Object) error {
	l.Items = objs
	return nil
}

// decode reads a stored value of resource, protobuf or JSON (a custom
// resource, or a value stored before built-in kinds were protobuf). It is
// not strict: the values were written by encode.
func decode(resource string, value []byte, rev int64) (api.Object, error) {
	obj, err := newObject(resource)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	tm := *api.TypeOf(obj)
	if api.IsProtobuf(value) {
		err = api.UnmarshalProtobuf(value, obj)
	} else {
		err = json.Unmarshal(value, obj)
	}
	if err != nil {
		return nil, api.NewInternalError(fmt.Errorf("registry: decode stored %s: %w", resource, err))
	}
	if tm.Kind != "" { // not a custom resource whose CRD went: its value names its kind
		*api.TypeOf(obj) = tm
	}
	api.SetNestedKinds(obj)
	api.Meta(obj).ResourceVersion = formatRV(rev)
	return obj, nil
}

// withResourceVersion is the stored value o of resource as the wire has
// it, with metadata.resourceVersion, without decoding it: values written
// by encode begin {"kind":K,"apiVersion":V,"metadata":{ and carry no
// resourceVersion, so it is spliced in at the head of metadata. A value of
// any other shape, protobuf among them, goes through decode and encode.
func withResourceVersion(resource string, tm api.TypeMeta, o store.Object) ([]byte, error) {
	head := `{"kind":"` + tm.Kind + `","apiVersion":"` + tm.APIVersion + `","metadata":{"`
	if bytes.HasPrefix(o.Value, []byte(head)) && !bytes.Contains(o.Value, []byte(`"resourceVersion":`)) {
		rv := `"resourceVersion":"` + formatRV(o.Rev) + `",`
		out := make([]byte, 0, len(o.Value)+len(rv))
		out = append(out, head[:len(head)-1]...)
		out = append(out, rv...)
		return append(out, o.Value[len(head)-1:]...), nil
	}
	obj, err := decode(resource, o.Value, o.Rev)
	if err != nil {
		return nil, err
	}
	b, err := api.Marshal(obj)
	if err != nil {
		return nil, api.NewInternalError(fmt.Errorf("registry: encode %T: %w", obj, err))
	}
	return b, nil
}

// wire is withResourceVersion that encodes the object kept for a
// protobuf value, when there is one, instead of decoding the value.
func (r *Registry) wire(resource string, tm api.TypeMeta, o store.Object) ([]byte, error) {
	if kept := r.recent.kept(o); kept != nil && api.IsProtobuf(o.Value) {
		b, err := api.Marshal(kept)
		if err != nil {
			return nil, api.NewInternalError(fmt.Errorf("registry: encode %T: %w", kept, err))
		}
		return b, nil
	}
	return withResourceVersion(resource, tm, o)
}

// field is the exported struct field name of obj ("Spec", "Status"), or
// an invalid Value when the kind has none.
func field(obj api.Object, name string) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName(name)
}

// specChanged compares the specs as JSON, so that nil and empty
// collections are equal, as Kubernetes' semantic equality has it.
func specChanged(old, obj api.Object) bool {
	if c, ok := obj.(*api.CustomObject); ok {
		return customBodyChanged(old.(*api.CustomObject), c)
	}
	a, b := field(old, "Spec"), field(obj, "Spec")
	if !a.IsValid() || !b.IsValid() {
		return false
	}
	ja, errA := json.Marshal(a.Interface())
	jb, errB := json.Marshal(b.Interface())
	return errA != nil || errB != nil || !bytes.Equal(ja, jb)
}

// copyStatus sets dst's status to a deep copy of src's (same kind).
func copyStatus(dst, src api.Object) {
	if c, ok := dst.(*api.CustomObject); ok {
		setCustomStatus(c, api.DeepCopy(src.(*api.CustomObject)))
		return
	}
	d, s := field(dst, "Status"), field(src, "Status")
	if d.IsValid() && s.IsValid() && d.CanSet() && d.Type() == s.Type() {
		d.Set(reflect.ValueOf(api.DeepCopy(s.Interface())))
	}
}

// shallowCopy copies obj's top-level struct only: the copy shares every
// map, slice and pointer with obj. It suits a stored object, which nobody
// changes, that a write changes in a few top-level fields (a status, a
// spec's scalar) and then keeps: the write's canonicalization writes only
// what is not canonical, and what it shares with a stored object is.
func shallowCopy(obj api.Object) api.Object {
	v := reflect.ValueOf(obj)
	c := reflect.New(v.Type().Elem())
	c.Elem().Set(v.Elem())
	return c.Interface().(api.Object)
}

// setStatus sets dst's status to src's (same kind), sharing it.
func setStatus(dst, src api.Object) {
	if c, ok := dst.(*api.CustomObject); ok {
		c.Content = maps.Clone(c.Content) // dst is a shallow copy of a stored object
		setCustomStatus(c, src.(*api.CustomObject))
		return
	}
	d, s := field(dst, "Status"), field(src, "Status")
	if d.IsValid() && s.IsValid() && d.CanSet() && d.Type() == s.Type() {
		d.Set(s)
	}
}

// hasStatusSubresource: the kind's status is written only through
// UpdateStatus.
func hasStatusSubresource(info api.ResourceInfo) bool {
	_, ok := info.Subresource("status")
	return ok
}

// resetStatusOnCreate drops the status a client sent with a create, as
// Kubernetes' strategies do: status is the controllers' and kubelets' to
// write. Nodes (registered by their kubelet with their status) and
// Namespaces (phase Active) keep theirs.
func resetStatusOnCreate(obj api.Object) {
	switch o := obj.(type) {
	case *api.Pod:
		o.Status = api.PodStatus{Phase: api.PodPending}
		if len(o.Spec.SchedulingGates) > 0 {
			// As upstream's pod strategy does, so that kubectl shows
			// SchedulingGated until the last gate goes.
			o.Status.Conditions = []api.PodCondition{{Type: api.PodScheduled, Status: api.ConditionFalse,
				Reason: api.PodReasonSchedulingGated, Message: "Scheduling is blocked due to non-empty scheduling gates"}}
		}
	case *api.Deployment:
		o.Status = api.DeploymentStatus{}
	case *api.ReplicaSet:
		o.Status = api.ReplicaSetStatus{}
	case *api.Service:
		o.Status = api.ServiceStatus{}
	case *api.Namespace:
		prepareNamespace(o)
	case *api.CustomObject:
		if info, ok := api.ResourceFor(o); ok && hasStatusSubresource(info) {
			delete(o.Content, "status")
		}
	default:
		api.PrepareForCreate(obj)
	}
}

// newUID is a random RFC 4122 version 4 UUID. uids are masked by the
// projection, so they need only be unique.
func newUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", api.NewInternalError(fmt.Errorf("registry: uid: %w", err))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]), nil
}

func isNil(obj api.Object) bool {
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
