package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/converge-dev/converge/impl/api"
)

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
	// Every served group version has DeleteOptions, as upstream's scheme
	// registers it in each (controller-runtime sends the custom
	// resource's own).
	group, version, grouped := strings.Cut(o.APIVersion, "/")
	switch {
	case o.APIVersion == "" || o.APIVersion == "v1" || o.APIVersion == "meta.k8s.io/v1":
	case grouped && servesGroupVersion(group, version):
	default:
		return api.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (v1)", o.APIVersion))
	}
	return nil
}
