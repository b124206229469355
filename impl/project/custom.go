package project

import (
	"encoding/json"
	"fmt"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// A custom resource is opaque to the model (model.Custom): its metadata
// projects as every kind's does, and the rest of it is canonical JSON.
// Nothing in the model writes one, so there is no Apply for it.

// customToModel projects a custom resource of a served kind.
func customToModel(c *api.CustomObject, m model.Meta) (model.Obj, error) {
	info, ok := api.CustomKind(c.APIVersion, c.Kind)
	if !ok {
		return nil, fmt.Errorf("%w: %s %s is not served", ErrUnsupported, c.APIVersion, c.Kind)
	}
	body, err := json.Marshal(c.Content) // map keys in order: canonical
	if err != nil {
		return nil, fmt.Errorf("%w: body: %v", ErrUnsupported, err)
	}
	return &model.Custom{Meta: m, Type: customType(info), Body: string(body)}, nil
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
