package apiserver

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/converge-dev/converge/impl/api"
)

// A client may ask for a response converted to one of meta.k8s.io/v1's
// kinds through a parameter of its Accept header, as kube-apiserver's
// content negotiation has it: kubectl asks for a Table; client-go's
// metadata client, and so controller-runtime's metadata-only watches and
// caches, ask for PartialObjectMetadata (a single object, or each object
// of a watch) and PartialObjectMetadataList.

// outputAs is what a response is converted to.
type outputAs int

const (
	asObject outputAs = iota
	asTable
	asPartial
	asPartialList
)

// negotiateOutput takes the first clause of the Accept header that
// converge can serve: JSON, with no conversion or one it knows. Clauses it
// cannot serve (protobuf, other groups or versions of a conversion) are
// passed over, as kube-apiserver passes over what it does not offer;
// converge serves responses as JSON only.
func negotiateOutput(r *http.Request) outputAs {
	for _, clause := range strings.Split(r.Header.Get("Accept"), ",") {
		params := strings.Split(clause, ";")
		switch strings.ToLower(strings.TrimSpace(params[0])) {
		case "application/json", "application/*", "*/*":
		default:
			continue
		}
		got := map[string]string{}
		for _, p := range params[1:] {
			k, v, _ := strings.Cut(p, "=")
			got[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		if got["as"] == "" {
			return asObject
		}
		if got["g"] != "meta.k8s.io" || got["v"] != "v1" {
			continue
		}
		switch got["as"] {
		case "Table":
			return asTable
		case "PartialObjectMetadata":
			return asPartial
		case "PartialObjectMetadataList":
			return asPartialList
		}
	}
	return asObject
}

// wantsTable: the client accepts application/json;as=Table;v=v1;g=meta.k8s.io.
func wantsTable(r *http.Request) bool { return negotiateOutput(r) == asTable }

// partialObjectMetadataList is meta.k8s.io/v1 PartialObjectMetadataList.
type partialObjectMetadataList struct {
	api.TypeMeta `json:",inline"`
	api.ListMeta `json:"metadata"`
	Items        []partialObjectMetadata `json:"items"`
}

func partialOf(o api.Object) partialObjectMetadata {
	return partialObjectMetadata{TypeMeta: api.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
		Metadata: *api.Meta(o)}
}

// convertOutput converts obj as negotiated. Statuses and other kinds pass
// unchanged; asking a list for PartialObjectMetadata, or an object for
// PartialObjectMetadataList, is kube-apiserver's 406.
func convertOutput(r *http.Request, as outputAs, obj any) (any, error) {
	switch as {
	case asTable:
		if t, ok := toTable(r, obj); ok {
			return t, nil
		}
	case asPartial:
		switch o := obj.(type) {
		case api.ListObject:
			return nil, notAcceptable(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%T)", obj))
		case api.Object:
			return partialOf(o), nil
		}
	case asPartialList:
		switch o := obj.(type) {
		case api.ListObject:
			l := partialObjectMetadataList{TypeMeta: api.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: "meta.k8s.io/v1"},
				ListMeta: *api.ListMetaOf(o), Items: []partialObjectMetadata{}}
			for _, it := range api.Items(o) {
				l.Items = append(l.Items, partialOf(it))
			}
			return &l, nil
		case api.Object:
			return nil, notAcceptable(fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%T)", obj))
		}
	}
	return obj, nil
}

// notAcceptable is 406 with kube-apiserver's message for a conversion it
// cannot make.
func notAcceptable(message string) error {
	err := api.NewNotAcceptable(nil)
	err.Status.Message = message
	return err
}
