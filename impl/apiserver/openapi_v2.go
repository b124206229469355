package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/crd"
)

// /openapi/v2 is the Swagger 2.0 document clients older than OpenAPI v3
// read (client-go's DiscoveryClient.OpenAPISchema, helm's validation,
// kubectl's fallback for a kind missing from v3). Its definitions are the
// v3 documents' schemas, which use nothing v2 lacks, with their
// references moved to #/definitions; the CRDs' part is upstream's
// builder's (BuildOpenAPIV2 through impl/crd), paths and all. It is served
// as JSON, or as gnostic's protobuf when asked, as kube-apiserver does.

// The protobuf media types of /openapi/v2: client-go asks for the
// deprecated one, and kube-apiserver answers either with the other.
const (
	openAPIV2ProtobufDeprecated = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	openAPIV2Protobuf           = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
)

// openAPIV2Format is the first format of Accept that /openapi/v2 serves:
// "json", "protobuf", or "" for none (406).
func openAPIV2Format(accept string) string {
	if strings.TrimSpace(accept) == "" {
		return "json"
	}
	for _, clause := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(clause), ";")
		switch strings.TrimSpace(mt) {
		case openAPIV2ProtobufDeprecated, openAPIV2Protobuf:
			return "protobuf"
		case "application/json", "application/*", "*/*":
			return "json"
		}
	}
	return ""
}

var builtinV2 = sync.OnceValues(func() (map[string]any, error) {
	defs := map[string]any{}
	for _, gv := range servedGroupVersions {
		b, err := openAPIDocument(gv)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal([]byte(strings.ReplaceAll(string(b), `"#/components/schemas/`, `"#/definitions/`)), &doc); err != nil {
			return nil, err
		}
		for name, s := range doc.Components.Schemas {
			defs[name] = s
		}
	}
	return defs, nil
})

// openAPIV2Document is the whole v2 document as JSON, built-ins and the
// CRDs served now.
func openAPIV2Document() ([]byte, error) {
	builtin, err := builtinV2()
	if err != nil {
		return nil, err
	}
	defs := make(map[string]any, len(builtin))
	for k, v := range builtin {
		defs[k] = v
	}
	paths := map[string]any{}
	for _, info := range api.Resources() {
		c, ok := api.LookupCustom(info.Resource)
		k, isCRD := c.Extra.(*apiextensionsv1.CustomResourceDefinition)
		if !ok || !isCRD {
			continue
		}
		sw, err := crd.OpenAPIV2(k)
		if err != nil {
			continue // as for v3: left out
		}
		b, err := json.Marshal(sw)
		if err != nil {
			continue
		}
		var part struct {
			Paths       map[string]any `json:"paths"`
			Definitions map[string]any `json:"definitions"`
		}
		if json.Unmarshal(b, &part) != nil {
			continue
		}
		for p, v := range part.Paths {
			paths[p] = v
		}
		for d, v := range part.Definitions {
			if _, builtin := defs[d]; !builtin {
				defs[d] = v
			}
		}
	}
	return json.Marshal(map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "Kubernetes", "version": api.Version},
		"paths":       paths,
		"definitions": defs,
	})
}

// serveOpenAPIV2 answers GET /openapi/v2.
func serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	b, err := openAPIV2Document()
	if err != nil {
		writeError(w, api.NewInternalError(err))
		return
	}
	format := openAPIV2Format(r.Header.Get("Accept"))
	if format == "" {
		writeError(w, notAcceptable("only application/json and "+openAPIV2Protobuf+" are served at /openapi/v2"))
		return
	}
	contentType := "application/json"
	if format == "protobuf" {
		doc, err := openapi_v2.ParseDocument(b)
		if err == nil {
			b, err = proto.Marshal(doc)
		}
		if err != nil {
			writeError(w, api.NewInternalError(fmt.Errorf("apiserver: openapi v2 as protobuf: %w", err)))
			return
		}
		contentType = openAPIV2Protobuf
	}
	sum := sha256.Sum256(b)
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Etag", `"`+strings.ToUpper(hex.EncodeToString(sum[:]))+`"`)
	w.Header().Set("Vary", "Accept")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(b)
	}
}
