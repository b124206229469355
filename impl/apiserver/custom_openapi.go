package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/kube-openapi/pkg/spec3"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/crd"
)

// customOpenAPIDocs are the OpenAPI v3 documents of the custom resources'
// group versions, built from their CRDs as upstream's openapiv3
// controller builds them, several CRDs of one group version merged. They
// follow the CRDs live, so they are built on each request.
func customOpenAPIDocs() map[string]openAPIDoc {
	specs := map[string][]*spec3.OpenAPI{}
	for _, info := range api.Resources() {
		c, ok := api.LookupCustom(info.Resource)
		if !ok {
			continue
		}
		k, ok := c.Extra.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			continue
		}
		for _, v := range c.Served {
			s, err := crd.OpenAPIV3(k, v)
			if err != nil {
				continue // the CRD validated; a schema the builder refuses is left out, as upstream logs and skips it
			}
			p := gvPath(info.Group + "/" + v)
			specs[p] = append(specs[p], s)
		}
	}
	docs := map[string]openAPIDoc{}
	for p, ss := range specs {
		merged, err := builder.MergeSpecsV3(ss...)
		if err != nil {
			continue
		}
		b, err := json.Marshal(merged)
		if err != nil {
			continue
		}
		sum := sha256.Sum256(b)
		docs[p] = openAPIDoc{path: p, body: b, hash: strings.ToUpper(hex.EncodeToString(sum[:]))}
	}
	return docs
}
