package project

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// A custom resource is opaque to the model (model.Custom): its metadata
// projects as every kind's does, and the rest of it is canonical JSON. So
// is an object of a built-in kind the model lacks (a ConfigMap), which the
// garbage collector and the namespace controller delete or orphan as any
// other. The model writes only such an object's metadata.

// customToModel projects a custom resource of a served kind, or of one
// served before in this process: the last events of a CRD's resources may
// reach an informer once the CRD went.
func customToModel(c *api.CustomObject, m model.Meta) (model.Obj, error) {
	typ, ok := "", false
	if info, served := api.CustomKind(c.APIVersion, c.Kind); served {
		typ, ok = customType(info), true
		knownTypes.Store(c.APIVersion+"/"+c.Kind, typ)
	} else if t, known := knownTypes.Load(c.APIVersion + "/" + c.Kind); known {
		typ, ok = t.(string), true
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s %s is not served", ErrUnsupported, c.APIVersion, c.Kind)
	}
	body, err := json.Marshal(c.Content) // map keys in order: canonical
	if err != nil {
		return nil, fmt.Errorf("%w: body: %v", ErrUnsupported, err)
	}
	return &model.Custom{Meta: m, Type: typ, Body: string(body)}, nil
}

// otherToModel projects an object of a built-in kind the model lacks, as
// an opaque object whose type is its resource's full name ("configmaps",
// "statefulsets.apps").
func otherToModel(obj api.Object, m model.Meta) (model.Obj, error) {
	info, ok := api.ResourceFor(obj)
	if !ok {
		return nil, fmt.Errorf("%w: kind %T", ErrUnsupported, obj)
	}
	raw, err := json.Marshal(obj)
	var fields map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(raw, &fields)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrUnsupported, obj, err)
	}
	delete(fields, "apiVersion")
	delete(fields, "kind")
	delete(fields, "metadata")
	body, err := json.Marshal(fields) // map keys in order: canonical
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrUnsupported, obj, err)
	}
	typ := info.Resource
	if info.Group != "" {
		typ = customType(info)
	}
	return &model.Custom{Meta: m, Type: typ, Body: string(body)}, nil
}

// knownTypes maps "apiVersion/kind" to the model's type of every custom
// kind projected so far.
var knownTypes sync.Map

// ResourceOf is the registry's name of r's resource: an opaque object's
// plural, its type less the group.
func ResourceOf(r model.Ref) string {
	if r.Kind == model.KindCustom {
		return api.ResourceNamed(r.Type)
	}
	return r.Kind.Resource()
}

// customType is the model's name for a custom resource: its full name, as
// kubectl names it ("widgets.example.com").
func customType(info api.ResourceInfo) string { return info.Resource + "." + info.Group }

// customTypeMeta is the apiVersion and kind that name a served custom
// resource of the model's type t in an ownerReference.
func customTypeMeta(t string) (api.TypeMeta, bool) {
	for _, info := range api.Resources() {
		if _, custom := api.LookupCustom(info.Resource); custom && customType(info) == t {
			return api.TypeMeta{APIVersion: info.APIVersion(), Kind: info.Kind}, true
		}
	}
	return api.TypeMeta{}, false
}
