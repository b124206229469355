package operator

import (
	"encoding/json"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// written is what the host reads of a write's answer.
type written struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name              string   `json:"name"`
		Namespace         string   `json:"namespace"`
		UID               string   `json:"uid"`
		Generation        int64    `json:"generation"`
		DeletionTimestamp string   `json:"deletionTimestamp"`
		Finalizers        []string `json:"finalizers"`
		OwnerReferences   []struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
			UID        string `json:"uid"`
			Controller *bool  `json:"controller"`
		} `json:"ownerReferences"`
	} `json:"metadata"`
}

// owner is the controller owner's uid and kind.
func (w written) owner() (uid string, gvk schema.GroupVersionKind) {
	for _, r := range w.Metadata.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return r.UID, schema.FromAPIVersionAndKind(r.APIVersion, r.Kind)
		}
	}
	return "", schema.GroupVersionKind{}
}

// controllerRef is the controller owner's name, uid and kind.
func (w written) controllerRef() (name, uid string, gvk schema.GroupVersionKind, ok bool) {
	for _, r := range w.Metadata.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return r.Name, r.UID, schema.FromAPIVersionAndKind(r.APIVersion, r.Kind), true
		}
	}
	return "", "", schema.GroupVersionKind{}, false
}

// answer reads a write's answer; a Status or a list reads as nameless.
func answer(body []byte) written {
	var w written
	if json.Unmarshal(body, &w) != nil || w.Kind == "Status" {
		return written{}
	}
	return w
}

// gvk is the kind of the object written, if the answer names one.
func (w written) gvk() (schema.GroupVersionKind, bool) {
	return schema.FromAPIVersionAndKind(w.APIVersion, w.Kind), w.Kind != "" && w.Metadata.Name != ""
}

// writtenBy names a write that landed, from its request and its answer.
func writtenBy(req *http.Request, w written) Written {
	verb := map[string]string{http.MethodPost: "CREATE", http.MethodPut: "UPDATE", http.MethodPatch: "PATCH", http.MethodDelete: "DELETE"}[req.Method]
	if verb == "UPDATE" && strings.HasSuffix(req.URL.Path, "/status") {
		verb = "STATUS"
	}
	name := w.Metadata.Name
	if w.Metadata.Namespace != "" && w.Metadata.Namespace != "default" {
		name = w.Metadata.Namespace + "/" + name
	}
	return Written{Verb: verb, Resource: resourceOf(req.URL.Path), Name: name}
}
