package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/impl/api"
)

// events.k8s.io/v1 Events are core/v1 Events seen another way, as upstream
// has them: one object stored once (the same etcd key), served under both
// groups. Upstream converts through its internal Event; converge, whose
// stored form is core/v1's, converts at the edge: a request under
// /apis/events.k8s.io/v1 is served as the core/v1 request it stands for,
// with its body's fields renamed to core's on the way in (regarding is
// involvedObject, note is message, ...) and the response's back to
// events.k8s.io's on the way out, watch events included. What is written
// through one group is read through the other at once.

const (
	eventsGroup   = "events.k8s.io"
	eventsV1Path  = "/apis/" + eventsGroup + "/v1/"
	eventsV1      = eventsGroup + "/v1"
	eventsInvalid = "Event.events.k8s.io "
)

// eventsV1ToCore maps events.k8s.io/v1 field names to core/v1's (the
// fields both have, eventTime, series, action, reason, type, related and
// reportingInstance, keep their names).
var eventsV1ToCore = map[string]string{
	"regarding":                "involvedObject",
	"note":                     "message",
	"reportingController":      "reportingComponent",
	"deprecatedSource":         "source",
	"deprecatedFirstTimestamp": "firstTimestamp",
	"deprecatedLastTimestamp":  "lastTimestamp",
	"deprecatedCount":          "count",
}

var eventsCoreToV1 = func() map[string]string {
	out := make(map[string]string, len(eventsV1ToCore))
	for k, v := range eventsV1ToCore {
		out[v] = k
	}
	return out
}()

// isEventsV1Resource: path names events.k8s.io/v1 events (not discovery).
func isEventsV1Resource(path string) bool {
	return strings.HasPrefix(path, eventsV1Path) && len(splitPath(path)) > 3
}

// serveEventsV1 serves an events.k8s.io/v1 request as core/v1: serve is
// the core request's handler.
func (s *Server) serveEventsV1(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request)) {
	segs := splitPath(r.URL.Path)
	if res := segs[3]; res == "namespaces" && len(segs) > 5 {
		res = segs[5]
		if res != "events" {
			writeError(w, notFoundPath(r.URL.Path))
			return
		}
	} else if res != "events" {
		writeError(w, notFoundPath(r.URL.Path))
		return
	}
	core := r.Clone(r.Context())
	core.URL.Path = "/api/v1/" + strings.Join(segs[3:], "/")
	core.URL.RawPath = ""
	if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
		body, ct, err := eventsV1Body(r, s.maxBody)
		if err != nil {
			writeError(w, err)
			return
		}
		core.Body = http.NoBody
		if len(body) > 0 {
			core.Body = readCloser{bytes.NewReader(body)}
		}
		core.ContentLength = int64(len(body))
		core.Header.Set("Content-Type", ct)
	}
	out := &eventsV1Writer{w: w}
	serve(out, core)
	out.finish()
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// eventsV1Body is the request's body in core/v1's terms and its media
// type. Objects and patches are renamed alike: a merge or strategic patch
// is a partial object, a JSON patch names fields in its paths.
func eventsV1Body(r *http.Request, limit int64) ([]byte, string, error) {
	r.Body = http.MaxBytesReader(nil, r.Body, limit)
	accepted := []string{"application/json", "application/yaml", protobufType}
	if r.Method == http.MethodPatch {
		accepted = []string{jsonPatchType, mergePatchType, strategicPatchType, applyPatchType}
	}
	b, mt, err := readBody(r, accepted...)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return b, r.Header.Get("Content-Type"), err
	}
	if mt == "application/yaml" || mt == applyPatchType {
		if b, err = yaml.YAMLToJSON(b); err != nil {
			return nil, "", api.NewBadRequest("the body is not valid YAML: " + err.Error())
		}
	}
	if mt == "application/yaml" {
		mt = "application/json"
	}
	if mt == jsonPatchType {
		var ops []map[string]any
		if err := json.Unmarshal(b, &ops); err != nil {
			return nil, "", api.NewBadRequest("the JSON patch is not a list of operations: " + err.Error())
		}
		for _, op := range ops {
			for _, k := range []string{"path", "from"} {
				if p, ok := op[k].(string); ok {
					op[k] = renamePointer(p)
				}
			}
		}
		b, err = json.Marshal(ops)
		return b, mt, err
	}
	var obj map[string]any
	if err := decodeNumbers(b, &obj); err != nil {
		return nil, "", api.NewBadRequest("the body is not a JSON object: " + err.Error())
	}
	if err := eventV1ToCore(obj, r.Method == http.MethodPost); err != nil {
		return nil, "", err
	}
	b, err = json.Marshal(obj)
	return b, mt, err
}

// renamePointer renames the first segment of a JSON pointer.
func renamePointer(p string) string {
	segs := strings.SplitN(p, "/", 3)
	if len(segs) > 1 {
		if c, ok := eventsV1ToCore[segs[1]]; ok {
			segs[1] = c
		}
	}
	return strings.Join(segs, "/")
}

func decodeNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// eventV1ToCore renames an events.k8s.io/v1 Event (or a partial one) to
// core/v1's fields. A core-only field name is unknown in events.k8s.io/v1,
// and a create is checked as upstream checks an events.k8s.io/v1 create.
func eventV1ToCore(obj map[string]any, create bool) error {
	for k := range eventsCoreToV1 {
		if _, ok := obj[k]; ok {
			return api.CannotBeHandled(api.TypeMeta{Kind: "Event", APIVersion: eventsV1},
				runtime.NewStrictDecodingError([]error{fmt.Errorf("unknown field %q", k)}))
		}
	}
	if create {
		if err := validateEventV1Create(obj); err != nil {
			return err
		}
	}
	for v1, core := range eventsV1ToCore {
		if val, ok := obj[v1]; ok {
			delete(obj, v1)
			obj[core] = val
		}
	}
	if av, ok := obj["apiVersion"]; ok && av == eventsV1 {
		obj["apiVersion"] = "v1"
	}
	return nil
}

// validateEventV1Create is upstream's check of an events.k8s.io/v1 create
// beyond core/v1's: a new-style event has an eventTime and none of the
// deprecated fields. (The reporting fields are core/v1's checks of an
// event with an eventTime, and their errors are renamed on the way out.)
func validateEventV1Create(obj map[string]any) error {
	var errs api.FieldErrors
	if t, _ := obj["eventTime"].(string); t == "" {
		errs = append(errs, api.FieldRequired("eventTime", ""))
	}
	if t, _ := obj["type"].(string); t != api.EventTypeNormal && t != api.EventTypeWarning {
		errs = append(errs, api.FieldInvalid("type", "", "has invalid value: "+t))
	}
	for _, f := range []string{"deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount", "deprecatedSource"} {
		if v, ok := obj[f]; ok && v != nil && fmt.Sprint(v) != "0" && fmt.Sprint(v) != "map[]" {
			errs = append(errs, api.FieldInvalid(f, "", "needs to be unset"))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	return api.NewInvalid(api.GroupKind{Group: eventsGroup, Kind: "Event"}, name, errs)
}

// eventsV1Writer converts each JSON document the core handler writes (one
// per line: a body, or a watch event) to events.k8s.io/v1's terms.
type eventsV1Writer struct {
	w   http.ResponseWriter
	buf []byte
}

func (e *eventsV1Writer) Header() http.Header { return e.w.Header() }

func (e *eventsV1Writer) WriteHeader(code int) { e.w.WriteHeader(code) }

func (e *eventsV1Writer) Write(b []byte) (int, error) {
	e.buf = append(e.buf, b...)
	for {
		i := bytes.IndexByte(e.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		if _, err := e.w.Write(append(eventsV1Document(e.buf[:i]), '\n')); err != nil {
			return len(b), err
		}
		e.buf = e.buf[i+1:]
	}
}

// Flush passes a watch's flushes on.
func (e *eventsV1Writer) Flush() {
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (e *eventsV1Writer) finish() {
	if len(bytes.TrimSpace(e.buf)) > 0 {
		_, _ = e.w.Write(eventsV1Document(e.buf))
	}
	e.buf = nil
}

// eventsV1Document converts one JSON document; what is not JSON, or not
// an event, a list, a table, a watch event or a Status, passes unchanged.
func eventsV1Document(b []byte) []byte {
	var doc map[string]any
	if decodeNumbers(b, &doc) != nil {
		return b
	}
	eventsV1Convert(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		return b
	}
	return out
}

func eventsV1Convert(doc map[string]any) {
	if obj, ok := doc["object"].(map[string]any); ok && doc["type"] != nil && doc["kind"] == nil {
		eventsV1Convert(obj) // a watch event
		return
	}
	switch doc["kind"] {
	case "Event":
		coreEventToV1(doc)
	case "EventList":
		doc["apiVersion"] = eventsV1
		items, _ := doc["items"].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				coreEventToV1(m)
			}
		}
	case "Table":
		rows, _ := doc["rows"].([]any)
		for _, row := range rows {
			if m, ok := row.(map[string]any); ok {
				if obj, ok := m["object"].(map[string]any); ok && obj["kind"] == "Event" {
					coreEventToV1(obj)
				}
			}
		}
	case "Status":
		eventsV1Status(doc)
	}
}

func coreEventToV1(ev map[string]any) {
	for core, v1 := range eventsCoreToV1 {
		if val, ok := ev[core]; ok {
			delete(ev, core)
			ev[v1] = val
		}
	}
	if ev["apiVersion"] == "v1" {
		ev["apiVersion"] = eventsV1
	}
}

// eventsV1Status names the group in a Status about events and renames the
// fields its causes name.
func eventsV1Status(st map[string]any) {
	d, ok := st["details"].(map[string]any)
	if !ok || (d["kind"] != "events" && d["kind"] != "Event") || d["group"] != nil && d["group"] != "" {
		return
	}
	d["group"] = eventsGroup
	msg, _ := st["message"].(string)
	switch {
	case strings.HasPrefix(msg, `events "`):
		msg = "events.events.k8s.io " + strings.TrimPrefix(msg, "events ")
	case strings.HasPrefix(msg, `Event "`):
		msg = eventsInvalid + strings.TrimPrefix(msg, "Event ")
	}
	causes, _ := d["causes"].([]any)
	for _, c := range causes {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		if f, ok := m["field"].(string); ok {
			head, rest, _ := strings.Cut(f, ".")
			if v1, ok := eventsCoreToV1[head]; ok {
				m["field"] = strings.TrimSuffix(v1+"."+rest, ".")
				msg = strings.ReplaceAll(msg, f+":", m["field"].(string)+":")
			}
		}
	}
	st["message"] = msg
}

// eventsV1Info is events.k8s.io/v1 events as discovery and OpenAPI
// describe them: core/v1 events' names and verbs in the other group.
func eventsV1Info() api.ResourceInfo {
	info, _ := api.LookupResource("events")
	info.Group = eventsGroup
	return info
}
