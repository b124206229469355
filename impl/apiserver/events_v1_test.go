package apiserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/converge-dev/converge/impl/api"
)

const (
	evV1Path   = "/apis/events.k8s.io/v1/namespaces/default/events"
	evCorePath = "/api/v1/namespaces/default/events"
	evV1Body   = `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"web.1"},"eventTime":"2026-01-02T03:04:05.000000Z",` +
		`"reportingController":"example.com/operator","reportingInstance":"operator-0","action":"Scaling","reason":"ScaledUp","note":"scaled to 3",` +
		`"type":"Normal","regarding":{"kind":"Deployment","apiVersion":"apps/v1","namespace":"default","name":"web"}}`
)

// TestEventsV1SharesCoreStorage: an event written through events.k8s.io/v1
// is the core/v1 event of the same name, and the other way round, as
// upstream stores one Event for both groups.
func TestEventsV1SharesCoreStorage(t *testing.T) {
	e := newEnv(t)
	w := e.watch(evV1Path + "?watch=true")
	e.must(201, "POST", evV1Path, evV1Body)

	var core api.Event
	e.must(200, "GET", evCorePath+"/web.1", "").into(t, &core)
	if core.InvolvedObject.Name != "web" || core.Message != "scaled to 3" || core.ReportingController != "example.com/operator" || core.APIVersion != "v1" {
		t.Fatalf("core view %+v", core)
	}
	var v1 eventsv1.Event
	r := e.must(200, "GET", evV1Path+"/web.1", "")
	r.into(t, &v1)
	if v1.APIVersion != "events.k8s.io/v1" || v1.Regarding.Name != "web" || v1.Note != "scaled to 3" || v1.ReportingController != "example.com/operator" ||
		string(v1.UID) != string(core.UID) || v1.ResourceVersion != core.ResourceVersion || strings.Contains(string(r.body), `"message"`) {
		t.Fatalf("events.k8s.io view %s", r.body)
	}
	var got eventsv1.Event
	if typ := nextEventV1(t, w, &got); typ != api.EventAdded || got.Note != "scaled to 3" || got.APIVersion != "events.k8s.io/v1" {
		t.Fatalf("watch %s %+v", typ, got)
	}

	// Patches name events.k8s.io's fields; core/v1 reads the change.
	e.must(200, "PATCH", evV1Path+"/web.1", `{"note":"scaled to 4"}`, "Content-Type: "+mergePatchType)
	e.must(200, "PATCH", evV1Path+"/web.1", `[{"op":"add","path":"/series","value":{"count":2,"lastObservedTime":"2026-01-02T03:05:05.000000Z"}}]`, "Content-Type: "+jsonPatchType)
	e.must(200, "PATCH", evV1Path+"/web.1", `[{"op":"test","path":"/note","value":"scaled to 4"}]`, "Content-Type: "+jsonPatchType)
	e.must(200, "GET", evCorePath+"/web.1", "").into(t, &core)
	if core.Message != "scaled to 4" || core.Series == nil || core.Series.Count != 2 {
		t.Fatalf("core view after patches %+v", core)
	}
	if typ := nextEventV1(t, w, &got); typ != api.EventModified || got.Note != "scaled to 4" {
		t.Fatalf("watch %s %+v", typ, got)
	}

	// A legacy event written through core/v1 lists through events.k8s.io.
	e.must(201, "POST", evCorePath, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"old.1"},"involvedObject":{"kind":"Pod","namespace":"default","name":"p"},"reason":"Pulled","message":"pulled","source":{"component":"kubelet"},"count":3,"type":"Normal"}`)
	var list eventsv1.EventList
	r = e.must(200, "GET", "/apis/events.k8s.io/v1/events", "")
	r.into(t, &list)
	if list.APIVersion != "events.k8s.io/v1" || list.Kind != "EventList" || len(list.Items) != 2 {
		t.Fatalf("list %s", r.body)
	}
	old := list.Items[0]
	if old.Name != "old.1" || old.DeprecatedCount != 3 || old.DeprecatedSource.Component != "kubelet" || old.Note != "pulled" || old.Regarding.Kind != "Pod" {
		t.Fatalf("legacy event through events.k8s.io %+v", old)
	}
	tab := string(e.must(200, "GET", evV1Path, "", "Accept: application/json;as=Table;v=v1;g=meta.k8s.io").body)
	if !strings.Contains(tab, `"kind":"Table"`) || !strings.Contains(tab, "scaled to 4") {
		t.Fatalf("table %s", tab)
	}
	e.must(200, "DELETE", evV1Path+"/web.1", "")
	e.must(404, "GET", evCorePath+"/web.1", "")
}

// eventsV1BadRequests are events.k8s.io/v1 writes upstream refuses, with
// its group and field names.
func eventsV1BadRequests() []badRequest {
	drop := func(field string) string {
		i := strings.Index(evV1Body, `"`+field+`"`)
		j := i + strings.Index(evV1Body[i:], `",`) + 2
		return evV1Body[:i] + evV1Body[j:]
	}
	return []badRequest{
		{name: "events.k8s.io event without eventTime", method: "POST", path: evV1Path, body: drop("eventTime"),
			code: 422, reason: api.StatusReasonInvalid, msg: `Event.events.k8s.io "web.1" is invalid: eventTime: Required value`},
		{name: "events.k8s.io event without reportingController", method: "POST", path: evV1Path, body: drop("reportingController"),
			code: 422, reason: api.StatusReasonInvalid, msg: `Event.events.k8s.io "web.1" is invalid: reportingController: Required value`},
		{name: "events.k8s.io event with deprecated fields", method: "POST", path: evV1Path, body: strings.Replace(evV1Body, `"type"`, `"deprecatedCount":2,"type"`, 1),
			code: 422, reason: api.StatusReasonInvalid, msg: "deprecatedCount: Invalid value: \"\": needs to be unset"},
		{name: "events.k8s.io event with core's field names", method: "POST", path: evV1Path, body: strings.Replace(evV1Body, `"note"`, `"message"`, 1),
			code: 400, reason: api.StatusReasonBadRequest, msg: `unknown field "message"`},
		{name: "events.k8s.io event not found", method: "GET", path: evV1Path + "/nothing", code: 404, reason: api.StatusReasonNotFound,
			msg: `events.events.k8s.io "nothing" not found`},
		{name: "events.k8s.io other resource", method: "GET", path: "/apis/events.k8s.io/v1/namespaces/default/pods", code: 404, reason: api.StatusReasonNotFound},
	}
}

// TestEventsV1DiscoveryAndOpenAPI: the group is listed, its resource
// described with k8s.io/api's events.k8s.io/v1 Event.
func TestEventsV1DiscoveryAndOpenAPI(t *testing.T) {
	e := newEnv(t)
	body := string(e.must(200, "GET", "/apis/events.k8s.io/v1", "").body)
	for _, want := range []string{`"groupVersion":"events.k8s.io/v1"`, `"name":"events"`, `"shortNames":["ev"]`, `"kind":"Event"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("events.k8s.io/v1 discovery lacks %s: %s", want, body)
		}
	}
	doc := string(e.must(200, "GET", "/openapi/v3/apis/events.k8s.io/v1", "").body)
	for _, want := range []string{`"io.k8s.api.events.v1.Event"`, `"regarding"`, `"deprecatedCount"`, `"/apis/events.k8s.io/v1/namespaces/{namespace}/events/{name}"`} {
		if !strings.Contains(doc, want) {
			t.Fatalf("events.k8s.io/v1 openapi lacks %s", want)
		}
	}
}

// nextEventV1 is watchStream.next for k8s.io/api's events.k8s.io Event.
func nextEventV1(t *testing.T, w *watchStream, ev *eventsv1.Event) api.EventType {
	t.Helper()
	if !w.sc.Scan() {
		t.Fatalf("watch ended: %v", w.sc.Err())
	}
	var we api.WatchEvent
	*ev = eventsv1.Event{}
	if err := json.Unmarshal(w.sc.Bytes(), &we); err != nil {
		t.Fatalf("event %s: %v", w.sc.Bytes(), err)
	}
	if err := json.Unmarshal(we.Object.Raw, ev); err != nil {
		t.Fatalf("event object %s: %v", we.Object, err)
	}
	return api.EventType(we.Type)
}

// TestEventsV1FromProtobuf: client-go's events.k8s.io recorder sends
// protobuf; it is stored as its JSON would be.
func TestEventsV1FromProtobuf(t *testing.T) {
	e := newEnv(t)
	var in eventsv1.Event
	if err := json.Unmarshal([]byte(evV1Body), &in); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(nil, nil).Encode(&in, &buf); err != nil {
		t.Fatal(err)
	}
	e.must(201, "POST", evV1Path, buf.String(), "Content-Type: "+protobufType)
	var core api.Event
	e.must(200, "GET", evCorePath+"/web.1", "").into(t, &core)
	if core.Message != "scaled to 3" || core.InvolvedObject.Kind != "Deployment" || core.EventTime.IsZero() {
		t.Fatalf("read back %+v", core)
	}
}
