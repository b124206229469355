package apiserver

import (
	"fmt"
	"net/http"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/converge-dev/converge/impl/api"
)

// A write's fieldValidation says what to do with the fields of its body
// that the kind does not have (unknown fields, and for a custom resource
// the fields its schema prunes) and with duplicate fields, as
// kube-apiserver's handlers do with its strict serializer's errors:
// Strict refuses the body, Warn (the default, which client-go and
// controller-runtime get) drops the fields with a warning each, and
// Ignore drops them silently. kubectl sends Strict.

// writeOptionsKinds are the options kinds of the writes that take
// fieldValidation.
var writeOptionsKinds = map[string]string{"create": "CreateOptions", "update": "UpdateOptions", "patch": "PatchOptions"}

// checkFieldValidation refuses a fieldValidation that is none of
// upstream's three, as its options validation does, for every resource.
func checkFieldValidation(r *http.Request, verb string) error {
	kind, write := writeOptionsKinds[verb]
	v := r.URL.Query().Get("fieldValidation")
	if !write || v == "" || v == "Ignore" || v == "Warn" || v == "Strict" {
		return nil
	}
	return api.NewInvalid(api.GroupKind{Group: "meta.k8s.io", Kind: kind}, "",
		api.FieldErrors{api.FieldNotSupported("fieldValidation", v, []string{"Ignore", "Strict", "Warn"})})
}

// validateFields applies the request's fieldValidation to strict, the
// decoder's unknown and duplicate fields of obj's body, and prunes and
// defaults a custom resource by its schema. patched is the patched object
// a patch decoded obj from (nil for a create or an update): Strict then
// refuses it as an invalid patch, as upstream's patch handler does.
func validateFields(w http.ResponseWriter, r *http.Request, obj api.Object, strict []error, patched []byte) error {
	if c, ok := obj.(*api.CustomObject); ok {
		unknown, err := api.PrepareCustom(c)
		if err != nil {
			return api.NewBadRequest(err.Error())
		}
		for _, f := range unknown {
			strict = append(strict, fmt.Errorf("unknown field %q", f))
		}
	}
	if len(strict) == 0 {
		return nil
	}
	switch r.URL.Query().Get("fieldValidation") {
	case "Strict":
		err := runtime.NewStrictDecodingError(strict)
		if patched != nil {
			return api.NewInvalid(api.GroupKind{}, "", api.FieldErrors{api.FieldInvalid("patch", string(patched), err.Error())})
		}
		return api.CannotBeHandled(*api.TypeOf(obj), err)
	case "Ignore":
	default:
		for _, e := range strict {
			addWarning(w, e.Error())
		}
	}
	return nil
}

// addWarning adds a Warning header once per text, as upstream's warning
// recorder does (a patch retried on a conflict warns again).
func addWarning(w http.ResponseWriter, text string) {
	v := fmt.Sprintf("299 - %q", text)
	if !slices.Contains(w.Header().Values("Warning"), v) {
		w.Header().Add("Warning", v)
	}
}
