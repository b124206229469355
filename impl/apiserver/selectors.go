package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/converge-dev/converge/impl/api"
)

// parseFieldSelector reads "a=b,c!=d" over the fields the registry can
// filter lists on, so watches filter with the same rules.
func parseFieldSelector(resource, sel string) ([]fieldTerm, error) {
	var terms []fieldTerm
	for _, t := range strings.Split(sel, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		var ft fieldTerm
		var ok bool
		if ft.field, ft.value, ok = strings.Cut(t, "!="); ok {
			ft.negate = true
		} else if ft.field, ft.value, ok = strings.Cut(t, "=="); !ok {
			ft.field, ft.value, ok = strings.Cut(t, "=")
		}
		if !ok {
			return nil, api.NewBadRequest(fmt.Sprintf("invalid field selector %q: term %q has no operator", sel, t))
		}
		ft.field, ft.value = strings.TrimSpace(ft.field), strings.TrimSpace(ft.value)
		switch {
		case ft.field == "metadata.name", ft.field == "metadata.namespace":
		case ft.field == "spec.nodeName" && resource == "pods":
		default:
			return nil, api.NewBadRequest(fmt.Sprintf("field label not supported: %s", ft.field))
		}
		terms = append(terms, ft)
	}
	return terms, nil
}

// decodeDeleteOptions reads a DeleteOptions body strictly. Clients send
// apiVersion v1 or meta.k8s.io/v1.
func decodeDeleteOptions(b []byte, o *api.DeleteOptions) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(o); err != nil {
		return api.NewBadRequest(fmt.Sprintf("malformed DeleteOptions: %v", err))
	}
	if dec.More() {
		return api.NewBadRequest("malformed DeleteOptions: trailing data")
	}
	if o.Kind != "" && o.Kind != "DeleteOptions" {
		return api.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (DeleteOptions)", o.Kind))
	}
	switch o.APIVersion {
	case "", "v1", "meta.k8s.io/v1", "apps/v1", "autoscaling/v1":
	default:
		return api.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (v1)", o.APIVersion))
	}
	return nil
}
