package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// document is one non-empty document of a manifest stream, as JSON.
type document struct {
	n    int // 1-based, counting non-empty documents
	line int // 1-based line where it starts
	json []byte
	err  error // set when the document is not well-formed
}

func (d document) label() string { return fmt.Sprintf("document %d (line %d)", d.n, d.line) }

// DecodeManifests decodes what `kubectl apply -f` accepts: YAML or JSON,
// several documents separated by "---" lines (or concatenated JSON
// objects), and v1 List (or typed list) documents whose items are
// expanded. Every object must name a known kind at its apiVersion and may
// hold no unknown fields. On any problem it returns no objects and a
// *StatusError (400 BadRequest) naming the document number and line.
// Defaulting and validation are left to the caller.
func DecodeManifests(data []byte) (objs []Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			objs, err = nil, NewBadRequest(fmt.Sprintf("manifest could not be decoded: %v", r))
		}
	}()
	for _, d := range splitDocuments(data) {
		if d.err != nil {
			return nil, NewBadRequest(d.label() + ": " + d.err.Error())
		}
		got, err := decodeDocument(d.json, d.label())
		if err != nil {
			return nil, err
		}
		objs = append(objs, got...)
	}
	return objs, nil
}

// Decode decodes a single request body for resource, which may name a
// subresource ("deployments/scale" decodes a Scale). kind and apiVersion
// may be omitted; if present they must be the resource's. The result has
// TypeMeta set. An unknown or duplicate field is an error: a 400.
func Decode(resource string, data []byte) (Object, error) {
	return refuseStrict(DecodeFields(resource, "", data))
}

// DecodeAt is Decode for a request at apiVersion: a custom resource's
// body must be at that version (or name none), as a request at another
// version than the storage one sends it. Any other resource is Decode's.
func DecodeAt(resource, apiVersion string, data []byte) (Object, error) {
	return refuseStrict(DecodeFields(resource, apiVersion, data))
}

// DecodeFields is DecodeAt that leaves unknown and duplicate fields to the
// caller, as kube-apiserver's handlers get them from its strict
// serializer, to apply a request's fieldValidation: obj is decoded without
// the unknown fields (of duplicates the last wins), and strict holds one
// error for each (`unknown field "spec.x"`). apiVersion "" is the
// resource's own.
func DecodeFields(resource, apiVersion string, data []byte) (obj Object, strict []error, err error) {
	defer func() {
		if r := recover(); r != nil {
			obj, strict, err = nil, nil, NewBadRequest(fmt.Sprintf("body could not be decoded: %v", r))
		}
	}()
	if c, ok := customSnapshot()[resource]; ok {
		if apiVersion == "" {
			apiVersion = c.res.Info.APIVersion()
		}
		_, version, _ := strings.Cut(apiVersion, "/")
		if !c.res.ServesVersion(version) {
			return nil, nil, NewNotFound(GroupResource{Resource: resource}, "")
		}
		want := &CustomObject{TypeMeta: TypeMeta{Kind: c.res.Info.Kind, APIVersion: apiVersion}}
		return decodeSlow(want, want.TypeMeta, data)
	}
	var want Object
	if res, sub, ok := strings.Cut(resource, "/"); ok {
		want, _, err = newSubresourceBody(res, sub)
	} else {
		want, err = New(resource)
	}
	if err != nil {
		return nil, nil, NewNotFound(GroupResource{Resource: resource}, "")
	}
	expected := *TypeOf(want)
	if ok, strict := decodeFast(data, want, expected); ok {
		return want, strict, nil
	}
	return decodeSlow(want, expected, data)
}

// CannotBeHandled is the 400 kube-apiserver's handlers answer for a body
// of kind tm that does not decode, or that Strict field validation refuses.
func CannotBeHandled(tm TypeMeta, err error) *StatusError {
	version := tm.APIVersion[strings.LastIndex(tm.APIVersion, "/")+1:]
	return NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", tm.Kind, version, tm.Kind, err))
}

// refuseStrict turns DecodeFields' unknown and duplicate fields into the
// strict serializer's error.
func refuseStrict(obj Object, strict []error, err error) (Object, error) {
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		return nil, NewBadRequest(runtime.NewStrictDecodingError(strict).Error())
	}
	return obj, nil
}

// decodeSlow is DecodeFields for any input, with the error worded.
func decodeSlow(want Object, expected TypeMeta, data []byte) (Object, []error, error) {
	docs := splitDocuments(data)
	if len(docs) != 1 {
		return nil, nil, NewBadRequest(fmt.Sprintf("expected one object in the request body, found %d", len(docs)))
	}
	if docs[0].err != nil {
		return nil, nil, NewBadRequest(docs[0].err.Error())
	}
	m, err := asObject(docs[0].json)
	if err != nil {
		return nil, nil, NewBadRequest(err.Error())
	}
	if c, ok := want.(*CustomObject); ok {
		strict, err := decodeCustom(m, docs[0].json, c, expected)
		if err != nil {
			var se *StatusError
			if errors.As(err, &se) {
				return nil, nil, se
			}
			return nil, nil, NewBadRequest(err.Error())
		}
		return c, strict, nil
	}
	if v, ok := m["apiVersion"].(string); ok && v != "" && v != expected.APIVersion {
		return nil, nil, NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", v, expected.APIVersion))
	}
	if k, ok := m["kind"].(string); ok && k != "" && k != expected.Kind {
		return nil, nil, NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", k, expected.Kind))
	}
	strict, err := kjson.UnmarshalStrict(docs[0].json, want)
	if err != nil {
		return nil, nil, CannotBeHandled(expected, err)
	}
	*TypeOf(want) = expected
	return want, strict, nil
}

// splitDocuments cuts a manifest stream into documents and converts each
// to JSON. A stream starting with '{' is read as concatenated JSON.
func splitDocuments(data []byte) []document {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return splitJSON(data)
	}
	var docs []document
	n := 0
	flush := func(chunk []string, start int) {
		if blankYAML(chunk) {
			return
		}
		n++
		// Point at the document's first line of content, past comments.
		for _, l := range chunk {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
				break
			}
			start++
		}
		d := document{n: n, line: start}
		j, err := yaml.YAMLToJSONStrict([]byte(strings.Join(chunk, "\n")))
		switch {
		case err != nil:
			d.err = fmt.Errorf("malformed YAML: %w", err)
		case string(j) == "null":
			n-- // only comments or an explicit null: nothing to apply
			return
		default:
			d.json = j
		}
		docs = append(docs, d)
	}
	lines := strings.Split(string(data), "\n")
	var chunk []string
	start := 1
	for i, l := range lines {
		if isDocSeparator(l) {
			flush(chunk, start)
			chunk, start = nil, i+2
			continue
		}
		chunk = append(chunk, l)
	}
	flush(chunk, start)
	return docs
}

// isDocSeparator accepts "---" optionally followed by spaces or a comment.
func isDocSeparator(line string) bool {
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "---")
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	return rest == "" || strings.HasPrefix(rest, "#")
}

func blankYAML(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

func splitJSON(data []byte) []document {
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []document
	for n := 1; ; n++ {
		var raw json.RawMessage
		before := dec.InputOffset()
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs
		}
		offset := int(before)
		// Skip the whitespace before the value so the line is the value's.
		for offset < len(data) && strings.IndexByte(" \t\r\n", data[offset]) >= 0 {
			offset++
		}
		d := document{n: n, line: 1 + bytes.Count(data[:offset], []byte("\n"))}
		if err != nil {
			d.err = fmt.Errorf("malformed JSON: %w", err)
			return append(docs, d)
		}
		d.json = raw
		docs = append(docs, d)
	}
}

// asObject parses a document that must be a JSON object.
func asObject(j []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected an object with kind and apiVersion, got %s", jsonKind(v))
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// decodeDocument decodes one document, expanding lists.
func decodeDocument(j []byte, label string) ([]Object, error) {
	bad := func(format string, args ...any) error {
		return NewBadRequest(label + ": " + fmt.Sprintf(format, args...))
	}
	m, err := asObject(j)
	if err != nil {
		return nil, bad("%v", err)
	}
	kind, apiVersion, err := typeOf(m)
	if err != nil {
		return nil, bad("%v", err)
	}
	listEntry, typedList := byListKind[kind]
	if kind != "List" && !typedList {
		obj, err := decodeObject(m, j, kind, apiVersion)
		if err != nil {
			return nil, bad("%s%v", describe(kind, m), err)
		}
		return []Object{obj}, nil
	}
	// A list: v1 List, or a typed list such as DeploymentList.
	wantVersion := "v1"
	if typedList {
		wantVersion = listEntry.info.APIVersion()
	}
	if apiVersion != wantVersion {
		return nil, bad("no matches for kind %q in version %q (use %q)", kind, apiVersion, wantVersion)
	}
	if strict := duplicateFields(j); len(strict) > 0 {
		return nil, bad("%v", runtime.NewStrictDecodingError(strict))
	}
	for k := range m {
		if k != "kind" && k != "apiVersion" && k != "metadata" && k != "items" {
			return nil, bad("strict decoding error: unknown field %q", k)
		}
	}
	var items []any
	if raw, ok := m["items"]; ok && raw != nil {
		if items, ok = raw.([]any); !ok {
			return nil, bad("items must be a list")
		}
	}
	var out []Object
	for i, it := range items {
		im, ok := it.(map[string]any)
		if !ok {
			return nil, bad("item %d: expected an object, got %s", i, jsonKind(it))
		}
		if typedList {
			// Typed lists from the server may omit each item's type fields.
			if _, ok := im["kind"]; !ok {
				im["kind"] = listEntry.info.Kind
			}
			if _, ok := im["apiVersion"]; !ok {
				im["apiVersion"] = listEntry.info.APIVersion()
			}
		}
		ij, err := json.Marshal(im)
		if err != nil {
			return nil, bad("item %d: %v", i, err)
		}
		ik, iv, err := typeOf(im)
		if err != nil {
			return nil, bad("item %d: %v", i, err)
		}
		if typedList && ik != listEntry.info.Kind {
			return nil, bad("item %d: a %s may only hold %s objects, found %q", i, kind, listEntry.info.Kind, ik)
		}
		obj, err := decodeObject(im, ij, ik, iv)
		if err != nil {
			return nil, bad("item %d: %s%v", i, describe(ik, im), err)
		}
		out = append(out, obj)
	}
	return out, nil
}

// typeOf reads kind and apiVersion, which must both be present strings.
func typeOf(m map[string]any) (kind, apiVersion string, err error) {
	k, hasKind := m["kind"]
	v, hasVersion := m["apiVersion"]
	kind, kindOK := k.(string)
	apiVersion, versionOK := v.(string)
	switch {
	case !hasKind || kind == "" && kindOK:
		return "", "", errors.New(`missing "kind"`)
	case !kindOK:
		return "", "", errors.New(`"kind" must be a string`)
	case !hasVersion || apiVersion == "" && versionOK:
		return "", "", fmt.Errorf(`missing "apiVersion" for kind %q`, kind)
	case !versionOK:
		return "", "", errors.New(`"apiVersion" must be a string`)
	}
	return kind, apiVersion, nil
}

// describe names the object for an error message: `Deployment "myapp": `.
func describe(kind string, m map[string]any) string {
	md, _ := m["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if name == "" {
		return ""
	}
	return fmt.Sprintf("%s %q: ", kind, name)
}

// decodeObject decodes one object of a known kind, strictly.
func decodeObject(m map[string]any, j []byte, kind, apiVersion string) (Object, error) {
	e, ok := byKind[kind]
	if c, custom := customByKind(kind); !ok && custom {
		obj := &CustomObject{}
		info := c.res.Info
		strict, err := decodeCustom(m, j, obj, TypeMeta{Kind: kind, APIVersion: info.APIVersion()})
		if err == nil && len(strict) > 0 {
			err = runtime.NewStrictDecodingError(strict)
		}
		if err != nil {
			return nil, err
		}
		return obj, nil
	}
	if !ok {
		return nil, fmt.Errorf("unknown kind %q (apiVersion %q); converge serves %s", kind, apiVersion, knownKinds())
	}
	if want := e.info.APIVersion(); apiVersion != want {
		return nil, fmt.Errorf("no matches for kind %q in version %q (%s is served at %q)", kind, apiVersion, kind, want)
	}
	obj := e.newObj()
	if err := decodeStrict(j, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func knownKinds() string {
	names := make([]string, len(table))
	for i, e := range table {
		names[i] = e.info.Kind
	}
	return strings.Join(names, ", ")
}

// decodeStrict decodes j into obj as kube-apiserver's strict serializer
// does (sigs.k8s.io/json): case-sensitively, refusing unknown and
// duplicate fields with its "strict decoding error".
func decodeStrict(j []byte, obj any) error {
	strict, err := kjson.UnmarshalStrict(j, obj)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return runtime.NewStrictDecodingError(strict)
	}
	return nil
}

// duplicateFields are the strict decoding errors for the duplicate
// fields of j, where nothing checks j against a Go type (a list's
// envelope, a custom resource).
func duplicateFields(j []byte) []error {
	var v any
	strict, err := kjson.UnmarshalStrict(j, &v, kjson.DisallowDuplicateFields)
	if err != nil {
		return nil // malformed input is reported by the decode that follows
	}
	return strict
}

// Marshal serializes obj as JSON with its kind and apiVersion filled in
// when unset. obj is not modified, so shared cached objects are safe.
func Marshal(obj any) ([]byte, error) {
	tm, known := TypeMetaFor(obj)
	v := reflect.ValueOf(obj)
	if !known || v.Kind() != reflect.Pointer || v.IsNil() {
		return json.Marshal(obj)
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem()) // shallow: only TypeMeta is written below
	f := cp.Elem().FieldByName("TypeMeta")
	if f.IsValid() && f.Type() == reflect.TypeFor[TypeMeta]() {
		cur := f.Addr().Interface().(*TypeMeta)
		if cur.Kind == "" {
			cur.Kind = tm.Kind
		}
		if cur.APIVersion == "" {
			cur.APIVersion = tm.APIVersion
		}
	}
	return json.Marshal(cp.Interface())
}

// MarshalYAML is Marshal rendered as YAML, as `kubectl get -o yaml` prints.
func MarshalYAML(obj any) ([]byte, error) {
	j, err := Marshal(obj)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(j)
}
