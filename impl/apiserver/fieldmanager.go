package apiserver

import (
	"errors"
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsapply "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/converge-dev/converge/impl/api"
)

// Field ownership (metadata.managedFields) and server-side apply are
// Kubernetes' own field manager (k8s.io/apimachinery's managedfields, over
// structured-merge-diff), typed by the schemas client-go ships for every
// built-in kind. It works on unstructured objects: impl/api's objects go
// in and come out as their JSON.

// typeConverter knows the merge semantics (list keys, atomic structs and
// maps) of every built-in kind.
var typeConverter = sync.OnceValue(func() managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(scheme.Scheme)
})

// crdTypeConverter is typeConverter for CustomResourceDefinitions, whose
// schemas the apiextensions module ships.
var crdTypeConverter = sync.OnceValue(func() managedfields.TypeConverter {
	s := runtime.NewScheme()
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	return apiextensionsapply.NewTypeConverter(s)
})

// fieldManagerKey names one field manager: a kind, and the subresource
// written through ("" for the main resource, "status" or "scale").
type fieldManagerKey struct {
	gvk         schema.GroupVersionKind
	subresource string
}

var fieldManagers sync.Map // fieldManagerKey -> *managedfields.FieldManager

// fieldManagerFor is the field manager of gvk written through subresource
// ("", "status" or "scale"). As Kubernetes' strategies reset them, a kind
// with a status subresource keeps status out of the main resource's
// ownership, and the status subresource owns nothing but status.
func fieldManagerFor(info api.ResourceInfo, gvk schema.GroupVersionKind, subresource string) (*managedfields.FieldManager, error) {
	key := fieldManagerKey{gvk, subresource}
	if fm, ok := fieldManagers.Load(key); ok {
		return fm.(*managedfields.FieldManager), nil
	}
	var reset *fieldpath.Set
	switch _, hasStatus := info.Subresource("status"); {
	case subresource == "status":
		reset = fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata"))
	case subresource == "" && hasStatus:
		reset = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	}
	tc := typeConverter()
	if gvk.Group == api.APIExtensionsGroup {
		tc = crdTypeConverter()
	}
	if _, custom := api.LookupCustom(info.Resource); gvk == scaleKind || custom {
		// client-go's schemas have no Scale; its fields are all scalars
		// in maps, which a deduced schema merges as a typed one would.
		// Custom resources get a deduced schema too: their CRD's schema
		// is not one of client-go's.
		tc = managedfields.NewDeducedTypeConverter()
	}
	fm, err := managedfields.NewDefaultFieldManager(tc, oneVersion{}, defaulter{info}, creater{},
		gvk, gvk.GroupVersion(), subresource, resetFilters(gvk, reset))
	if err != nil {
		return nil, err
	}
	actual, _ := fieldManagers.LoadOrStore(key, fm)
	return actual.(*managedfields.FieldManager), nil
}

// resetFilters is reset, the fields a write through a subresource leaves
// alone, as the field manager takes them: per apiVersion.
func resetFilters(gvk schema.GroupVersionKind, reset *fieldpath.Set) map[fieldpath.APIVersion]fieldpath.Filter {
	if reset == nil {
		return nil
	}
	return map[fieldpath.APIVersion]fieldpath.Filter{
		fieldpath.APIVersion(gvk.GroupVersion().String()): fieldpath.NewExcludeSetFilter(reset),
	}
}

func gvkOf(info api.ResourceInfo) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: info.Group, Version: info.Version, Kind: info.Kind}
}

// toUnstructured is obj as an unstructured object; nil is the empty
// object of info's kind, as a create's live object is.
func toUnstructured(info api.ResourceInfo, obj api.Object) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if obj == nil {
		u.SetGroupVersionKind(gvkOf(info))
		return u, nil
	}
	b, err := api.Marshal(servedAs(obj, info.Version))
	if err != nil {
		return nil, err
	}
	if err := u.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return u, nil
}

// recordingObject is an unstructured object whose managedFields are kept
// typed beside its content, for recording updates: the field manager
// reads and writes them several times per write, and Unstructured
// converts them by reflection each time. The content holds none, as the
// field manager removes them from a new object before it compares.
type recordingObject struct {
	*unstructured.Unstructured
	managed []metav1.ManagedFieldsEntry
}

func (o *recordingObject) GetManagedFields() []metav1.ManagedFieldsEntry { return o.managed }

func (o *recordingObject) SetManagedFields(m []metav1.ManagedFieldsEntry) { o.managed = m }

// recordingObjectOf is obj (nil: the empty object of info's kind) as a
// recordingObject.
func recordingObjectOf(info api.ResourceInfo, obj api.Object) (*recordingObject, error) {
	u, err := toUnstructured(info, obj)
	if err != nil {
		return nil, err
	}
	r := &recordingObject{Unstructured: u}
	if obj != nil {
		unstructured.RemoveNestedField(u.Object, "metadata", "managedFields")
		r.managed = kubeEntries(api.Meta(obj).ManagedFields)
	}
	return r, nil
}

// fromUnstructured is the impl/api object u holds.
func fromUnstructured(info api.ResourceInfo, u runtime.Object) (api.Object, error) {
	b, err := runtime.Encode(unstructured.UnstructuredJSONScheme, u)
	if err != nil {
		return nil, err
	}
	return api.DecodeAt(info.Resource, info.APIVersion(), b)
}

// asStatusError is err as the Status to answer with: the field manager's
// own Statuses (apply conflicts, a wrong version) as they are, anything
// else a 500, as kube-apiserver answers.
func asStatusError(err error) error {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return fromKube(se)
	}
	var own *api.StatusError
	if errors.As(err, &own) {
		return own
	}
	return api.NewInternalError(err)
}

// oneVersion converts between the one version each converge kind has:
// every conversion is to the object's own version.
type oneVersion struct{}

func (oneVersion) Convert(in, out, _ any) error {
	return fmt.Errorf("apiserver: no conversion from %T to %T", in, out)
}

func (oneVersion) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	if r, ok := in.(*recordingObject); ok {
		in = r.Unstructured // its content is what gets typed
	}
	have := in.GetObjectKind().GroupVersionKind()
	if want, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{have}); ok && want == have {
		return in, nil
	}
	return nil, fmt.Errorf("apiserver: %s is served in one version only", have)
}

func (oneVersion) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// defaulter defaults a merged apply as converge stores it (api.Default),
// so that the applier owns what it sent, not what defaulting added.
type defaulter struct{ info api.ResourceInfo }

func (d defaulter) Default(in runtime.Object) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return
	}
	obj, err := fromUnstructured(d.info, u)
	if err != nil {
		return // validation answers for it when the object is stored
	}
	api.Default(obj)
	if defaulted, err := toUnstructured(d.info, obj); err == nil {
		u.Object = defaulted.Object
	}
}

// creater makes the empty unstructured object of a kind.
type creater struct{}

func (creater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}
