package apiserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// What client-go's metadata client sends (metadata.go): protobuf first,
// which converge does not serve, then JSON with the conversion, then
// plain JSON.
const (
	partialAccept     = "Accept: application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	partialListAccept = "Accept: application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
)

// wirePartial is a PartialObjectMetadata or a list of them, with whatever
// else the server sent kept to be refused.
type wirePartial struct {
	Kind, APIVersion string
	Metadata         struct {
		Name, ResourceVersion string
		Labels                map[string]string
	}
	Spec  json.RawMessage
	Items []wirePartial
}

func TestPartialObjectMetadataAsNegotiated(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", deployPath, deploymentJSON("web", 2, "nginx:1.27"))
	e.must(201, "POST", deployPath, deploymentJSON("api", 1, "nginx:1.27"))

	var p wirePartial
	e.must(200, "GET", webPath, "", partialAccept).into(t, &p)
	if p.Kind != "PartialObjectMetadata" || p.APIVersion != "meta.k8s.io/v1" || p.Metadata.Name != "web" ||
		p.Metadata.ResourceVersion == "" || p.Spec != nil {
		t.Fatalf("get as PartialObjectMetadata: %+v", p)
	}
	var l wirePartial
	e.must(200, "GET", deployPath, "", partialListAccept).into(t, &l)
	if l.Kind != "PartialObjectMetadataList" || l.APIVersion != "meta.k8s.io/v1" || l.Metadata.ResourceVersion == "" || len(l.Items) != 2 ||
		l.Items[0].Kind != "PartialObjectMetadata" || l.Items[1].Metadata.Name != "web" || l.Items[0].Spec != nil {
		t.Fatalf("list as PartialObjectMetadataList: %+v", l)
	}
	// A list for one object, or an object for a list, is 406.
	if st := e.must(406, "GET", deployPath, "", partialAccept).status(t); !strings.Contains(st.Message, "you requested PartialObjectMetadata, but the requested object is a list") {
		t.Fatalf("406 message: %q", st.Message)
	}
	e.must(406, "GET", webPath, "", partialListAccept)
	// Writes answer converted too.
	e.must(200, "PATCH", webPath, `{"metadata":{"labels":{"tier":"front"}}}`, "Content-Type: application/merge-patch+json", partialAccept).into(t, &p)
	if p.Kind != "PartialObjectMetadata" || p.Metadata.Labels["tier"] != "front" || p.Spec != nil {
		t.Fatalf("patch answered as PartialObjectMetadata: %+v", p)
	}
	// A conversion converge does not know is passed over for the next clause.
	var plain wirePartial
	e.must(200, "GET", webPath, "", "Accept: application/json;as=Frob;g=meta.k8s.io;v=v1,application/json").into(t, &plain)
	if plain.Kind != "Deployment" || plain.Spec == nil {
		t.Fatalf("plain after an unknown conversion: %+v", plain)
	}

	// Watch events, the initial ones and the bookmark that ends them
	// included, carry PartialObjectMetadata.
	w := e.watchWith(deployPath+"?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", partialAccept)
	for i := 0; i < 3; i++ {
		var ev struct {
			Type   string
			Object wirePartial
		}
		if !w.sc.Scan() || json.Unmarshal(w.sc.Bytes(), &ev) != nil {
			t.Fatalf("event %d: %s %v", i, w.sc.Bytes(), w.sc.Err())
		}
		if want := map[bool]string{true: "BOOKMARK", false: "ADDED"}[i == 2]; ev.Type != want || ev.Object.Kind != "PartialObjectMetadata" || ev.Object.Spec != nil {
			t.Fatalf("event %d: %s", i, w.sc.Bytes())
		}
	}
	e.must(406, "GET", deployPath+"?watch=true", "", partialListAccept)
}
