package apiserver

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/converge-dev/converge/impl/api"
)

const (
	slicePath = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
	sliceBody = `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"web-1","labels":{"kubernetes.io/service-name":"web"}},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true}},{"addresses":["10.0.0.2"],"conditions":{"ready":false}}],"ports":[{"name":"http","port":80},{"name":"https","port":443},{"name":"admin","port":8080},{"name":"metrics","port":9090}]}`
)

// TestEndpointSliceCRUD: a slice is created with its ports defaulted,
// listed by its service label, shown in kubectl's columns, patched
// (endpoints are an atomic list), watched and deleted; its addressType
// does not change.
func TestEndpointSliceCRUD(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", slicePath, sliceBody)
	var s api.EndpointSlice
	e.must(200, "GET", slicePath+"/web-1", "").into(t, &s)
	if len(s.Ports) != 4 || string(*s.Ports[0].Protocol) != "TCP" || s.Generation != 1 {
		t.Fatalf("read back %+v", s)
	}
	tab := string(e.must(200, "GET", slicePath, "", "Accept: application/json;as=Table;v=v1;g=meta.k8s.io").body)
	for _, want := range []string{`{"name":"AddressType","type":"string"`, `"cells":["web-1","IPv4","80,443,8080 + 1 more...","10.0.0.1,10.0.0.2",`} {
		if !strings.Contains(tab, want) {
			t.Fatalf("table lacks %s: %s", want, tab)
		}
	}

	w := e.watch(slicePath + "?watch=true&labelSelector=kubernetes.io/service-name%3Dweb")
	if typ := w.next(&s); typ != api.EventAdded {
		t.Fatalf("watch %s", typ)
	}
	e.must(200, "PATCH", slicePath+"/web-1", `{"endpoints":[{"addresses":["10.0.0.3"],"conditions":{"ready":true}}]}`, "Content-Type: "+strategicPatchType)
	if typ := w.next(&s); typ != api.EventModified || len(s.Endpoints) != 1 || s.Endpoints[0].Addresses[0] != "10.0.0.3" {
		t.Fatalf("watch %s %+v", typ, s.Endpoints)
	}
	r := e.must(422, "PATCH", slicePath+"/web-1", `{"addressType":"IPv6","endpoints":null}`, "Content-Type: "+mergePatchType)
	if st := r.status(t); !strings.Contains(st.Message, `addressType: Invalid value: "IPv6": field is immutable`) || st.Details.Group != "discovery.k8s.io" {
		t.Fatalf("status %+v", st)
	}

	// An empty slice serves its lists as upstream does, null.
	e.must(201, "POST", slicePath, `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"empty"},"addressType":"IPv4"}`)
	if b := string(e.must(200, "GET", slicePath+"/empty", "").body); !strings.Contains(b, `"endpoints":null,"ports":null`) {
		t.Fatalf("empty slice %s", b)
	}
	tab = string(e.must(200, "GET", slicePath+"/empty", "", "Accept: application/json;as=Table;v=v1;g=meta.k8s.io").body)
	if !strings.Contains(tab, `"cells":["empty","IPv4","\u003cunset\u003e","\u003cunset\u003e",`) && !strings.Contains(tab, `"cells":["empty","IPv4","<unset>","<unset>",`) {
		t.Fatalf("empty slice table %s", tab)
	}
	var l api.EndpointSliceList
	e.must(200, "GET", "/apis/discovery.k8s.io/v1/endpointslices?labelSelector=kubernetes.io/service-name%3Dweb", "").into(t, &l)
	if len(l.Items) != 1 || l.Kind != "EndpointSliceList" || l.Items[0].Name != "web-1" {
		t.Fatalf("list %+v", l)
	}
	e.must(200, "DELETE", slicePath+"/web-1", "")
	e.must(404, "GET", slicePath+"/web-1", "")
}

// TestEndpointSliceFromProtobuf: a typed client's protobuf slice (what
// client-go's EndpointSlice writers send) is stored as its JSON would be.
func TestEndpointSliceFromProtobuf(t *testing.T) {
	e := newEnv(t)
	var in discoveryv1.EndpointSlice
	if err := json.Unmarshal([]byte(sliceBody), &in); err != nil {
		t.Fatal(err)
	}
	in.TypeMeta = metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(nil, nil).Encode(&in, &buf); err != nil {
		t.Fatal(err)
	}
	e.must(201, "POST", slicePath, buf.String(), "Content-Type: "+protobufType)
	var got api.EndpointSlice
	e.must(200, "GET", slicePath+"/web-1", "").into(t, &got)
	if got.AddressType != discoveryv1.AddressTypeIPv4 || len(got.Endpoints) != 2 || *got.Endpoints[1].Conditions.Ready {
		t.Fatalf("read back %+v", got)
	}
}

// endpointSliceBadRequests are the slice writes Kubernetes refuses, with
// its field paths.
func endpointSliceBadRequests() []badRequest {
	return []badRequest{
		{name: "endpointslice without addressType", method: "POST", path: slicePath, body: strings.Replace(sliceBody, `"addressType":"IPv4",`, "", 1),
			code: 422, reason: api.StatusReasonInvalid, msg: "addressType: Required value"},
		{name: "endpointslice address not of its type", method: "POST", path: slicePath, body: strings.Replace(sliceBody, `"10.0.0.2"`, `"fd00::2"`, 1),
			code: 422, reason: api.StatusReasonInvalid, msg: `endpoints[1].addresses[0]: Invalid value: "fd00::2": must be a valid IPv4 address`},
		{name: "endpointslice duplicate port name", method: "POST", path: slicePath, body: strings.Replace(sliceBody, `"name":"https"`, `"name":"http"`, 1),
			code: 422, reason: api.StatusReasonInvalid, msg: `ports[1].name: Duplicate value: "http"`},
		{name: "endpointslice unknown field", method: "POST", path: slicePath + "?fieldValidation=Strict", body: strings.Replace(sliceBody, `"addressType"`, `"addressTypes"`, 1),
			code: 400, reason: api.StatusReasonBadRequest},
		{name: "endpointslice in the core group", method: "GET", path: "/api/v1/namespaces/default/endpointslices", code: 404, reason: api.StatusReasonNotFound},
	}
}

// TestKubectlEndpointSliceRefused: kubectl apply of an invalid slice is
// refused with upstream's 422 and field path, and nothing is stored.
func TestKubectlEndpointSliceRefused(t *testing.T) {
	k := newKubectlEnv(t)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(`apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: bad}
addressType: IPv4
endpoints:
- addresses: [169.254.0.9]
ports:
- {name: http, port: 80, protocol: ICMP}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := k.try("apply", "-f", bad)
	if err == nil {
		t.Fatalf("apply of an invalid slice succeeded: %s", out)
	}
	for _, want := range []string{`The EndpointSlice "bad" is invalid`,
		`endpoints[0].addresses[0]: Invalid value: "169.254.0.9": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
		`ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl apply lacks %q:\n%s", want, out)
		}
	}
	if out, err := k.try("get", "endpointslice", "bad"); err == nil || !strings.Contains(out, "NotFound") {
		t.Errorf("get after refusal: %v %s", err, out)
	}
}
