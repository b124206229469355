package kubeproto

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/converge-dev/converge/impl/api"
)

// pb builds protobuf messages field by field.
type pb []byte

func (p pb) str(n protowire.Number, s string) pb { return p.raw(n, []byte(s)) }
func (p pb) msg(n protowire.Number, m pb) pb     { return p.raw(n, m) }

func (p pb) raw(n protowire.Number, b []byte) pb {
	p = protowire.AppendTag(p, n, protowire.BytesType)
	return protowire.AppendBytes(p, b)
}

func (p pb) varint(n protowire.Number, v uint64) pb {
	p = protowire.AppendTag(p, n, protowire.VarintType)
	return protowire.AppendVarint(p, v)
}

// int32 appends v as Kubernetes does: negative values sign-extended.
func (p pb) int32(n protowire.Number, v int32) pb { return p.varint(n, uint64(int64(v))) }

// wrap is the runtime.Unknown envelope with the magic prefix.
func wrap(apiVersion, kind string, raw pb) []byte {
	tm := pb{}.str(1, apiVersion).str(2, kind)
	return append([]byte("k8s\x00"), pb{}.msg(1, tm).msg(2, raw)...)
}

// deployment is a minimal valid Deployment named "d" with spec fields.
func deployment(spec pb) []byte {
	meta := pb{}.str(1, "d").msg(8, nil)
	return wrap("apps/v1", "Deployment", pb{}.msg(1, meta).msg(2, spec))
}

// convert runs ToJSON and decodes the result into a generic map.
func convert(t *testing.T, body []byte) map[string]any {
	t.Helper()
	out, err := ToJSON(body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return m
}

// lookup walks a dotted path through nested objects.
func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func want(t *testing.T, m map[string]any, path string, v any) {
	t.Helper()
	got, ok := lookup(m, path)
	if !ok {
		t.Fatalf("%s missing in %v", path, m)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(v)
	if string(gb) != string(wb) {
		t.Fatalf("%s = %s, want %s", path, gb, wb)
	}
}

func absent(t *testing.T, m map[string]any, path string) {
	t.Helper()
	if v, ok := lookup(m, path); ok {
		t.Fatalf("%s = %v, want it absent", path, v)
	}
}

func TestTime(t *testing.T) {
	ts := pb{}.varint(1, 1700000000).int32(2, 123) // 2023-11-14T22:13:20Z, nanos dropped
	meta := pb{}.str(1, "d").msg(8, ts).msg(9, pb{}).msg(9, nil)
	m := convert(t, wrap("apps/v1", "Deployment", pb{}.msg(1, meta)))
	want(t, m, "metadata.creationTimestamp", "2023-11-14T22:13:20Z")
	want(t, m, "metadata.deletionTimestamp", nil) // an empty Time is the zero time: null

	epoch := pb{}.msg(8, pb{}.varint(1, 0).varint(2, 0))
	want(t, convert(t, wrap("v1", "Namespace", pb{}.msg(1, epoch))), "metadata.creationTimestamp", "1970-01-01T00:00:00Z")
	yearOne := int64(minSeconds) // time.Time{}, which Kubernetes' JSON writes as null
	zero := pb{}.msg(8, pb{}.varint(1, uint64(yearOne)))
	want(t, convert(t, wrap("v1", "Namespace", pb{}.msg(1, zero))), "metadata.creationTimestamp", nil)
}

func TestIntOrStringBothWays(t *testing.T) {
	port := func(ios pb) []byte {
		p := pb{}.str(1, "http").int32(3, 80).msg(4, ios)
		return wrap("v1", "Service", pb{}.msg(1, pb{}.str(1, "s")).msg(2, pb{}.msg(1, p)))
	}
	m := convert(t, port(pb{}.varint(1, 0).int32(2, 8080).str(3, "")))
	list, _ := lookup(m, "spec.ports")
	if b, _ := json.Marshal(list); string(b) != `[{"name":"http","port":80,"targetPort":8080}]` {
		t.Fatalf("int target port: %s", b)
	}
	m = convert(t, port(pb{}.varint(1, 1).int32(2, 0).str(3, "web")))
	list, _ = lookup(m, "spec.ports")
	if b, _ := json.Marshal(list); string(b) != `[{"name":"http","port":80,"targetPort":"web"}]` {
		t.Fatalf("named target port: %s", b)
	}
	if _, err := ToJSON(port(pb{}.varint(1, 2))); !errors.Is(err, ErrMalformed) {
		t.Fatalf("IntOrString type 2: %v", err)
	}
	strategy := pb{}.str(1, "RollingUpdate").msg(2, pb{}.msg(1, pb{}.varint(1, 1).str(3, "25%")).msg(2, pb{}.int32(2, 1)))
	m = convert(t, deployment(pb{}.msg(4, strategy)))
	want(t, m, "spec.strategy.rollingUpdate.maxUnavailable", "25%")
	want(t, m, "spec.strategy.rollingUpdate.maxSurge", 1)
}

func TestQuantityMap(t *testing.T) {
	entry := func(k string, q pb) pb { return pb{}.str(1, k).msg(2, q) }
	res := pb{}.
		msg(1, entry("cpu", pb{}.str(1, "500m"))).
		msg(1, entry("memory", pb{}.str(1, "128Mi"))).
		msg(2, entry("cpu", pb{})) // a Quantity with no string is zero
	c := pb{}.str(1, "c").str(2, "nginx").msg(8, res)
	spec := pb{}.msg(3, pb{}.msg(2, pb{}.msg(2, c)))
	m := convert(t, deployment(spec))
	list, _ := lookup(m, "spec.template.spec.containers")
	b, _ := json.Marshal(list)
	if string(b) != `[{"image":"nginx","name":"c","resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"0"}}}]` {
		t.Fatalf("containers: %s", b)
	}
}

func TestOptionalZeroIsKeptPlainZeroIsOmitted(t *testing.T) {
	m := convert(t, deployment(pb{}.int32(1, 0).int32(5, 0).varint(7, 0).int32(6, 0)))
	want(t, m, "spec.replicas", 0)             // *int32 in Kubernetes: present means set
	want(t, m, "spec.revisionHistoryLimit", 0) // likewise
	absent(t, m, "spec.minReadySeconds")       // int32 omitempty
	absent(t, m, "spec.paused")                // bool omitempty
	obj, err := api.Decode("deployments", mustJSON(t, deployment(pb{}.int32(1, 0))))
	if err != nil {
		t.Fatal(err)
	}
	if r := obj.(*api.Deployment).Spec.Replicas; r == nil || *r != 0 {
		t.Fatalf("replicas %v, want a pointer to 0", r)
	}
	// The last occurrence wins, and a zero one clears a plain scalar.
	m = convert(t, deployment(pb{}.int32(5, 7).int32(5, 0)))
	absent(t, m, "spec.minReadySeconds")
}

func TestNegativeInt32IsSignExtended(t *testing.T) {
	body := deployment(pb{}.int32(1, -3))
	if raw := (pb{}).int32(1, -3); len(raw) != 11 { // tag + 10-byte varint
		t.Fatalf("test encoding of -3 is %d bytes", len(raw))
	}
	want(t, convert(t, body), "spec.replicas", -3)
	// A value beyond int32 (not sign-extended) is malformed, not truncated.
	if _, err := ToJSON(deployment(pb{}.varint(1, 1<<32))); !errors.Is(err, ErrMalformed) {
		t.Fatalf("int32 overflow: %v", err)
	}
}

func TestUnknownFieldNamesMessageAndNumber(t *testing.T) {
	c := pb{}.str(1, "c").str(2, "nginx").varint(99, 1)
	_, err := ToJSON(deployment(pb{}.msg(3, pb{}.msg(2, pb{}.msg(2, c)))))
	if !errors.Is(err, ErrUnknownField) {
		t.Fatalf("want ErrUnknownField, got %v", err)
	}
	for _, s := range []string{"Container", "99", "spec.template.spec.containers[0]"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not name %q", err, s)
		}
	}
	if _, err := ToJSON(wrap("v1", "Namespace", pb{}.varint(7, 1))); !errors.Is(err, ErrUnknownField) || !strings.Contains(err.Error(), "Namespace has no field 7") {
		t.Fatalf("top-level unknown field: %v", err)
	}
}

func TestMalformedInput(t *testing.T) {
	good := deployment(pb{}.int32(1, 2))
	cases := []struct {
		name string
		body []byte
		want error
	}{
		{"empty", nil, ErrNotProtobuf},
		{"bad magic", append([]byte("k8s\x01"), good[4:]...), ErrNotProtobuf},
		{"JSON", []byte(`{"kind":"Deployment"}`), ErrNotProtobuf},
		{"magic only", []byte("k8s\x00"), ErrMalformed},
		{"truncated envelope", good[:len(good)-1], ErrMalformed},
		{"truncated varint", append(append([]byte(nil), good...), 0x08, 0x80), ErrMalformed},
		{"length past the end", append([]byte("k8s\x00"), 0x12, 0x7f, 0x0a), ErrMalformed},
		{"field number 0", append([]byte("k8s\x00"), 0x02, 0x00), ErrMalformed},
		{"unknown kind", wrap("v1", "ConfigMap", nil), ErrUnsupportedKind},
		{"kind in the wrong group", wrap("v1", "Deployment", nil), ErrUnsupportedKind},
		{"wrong wire type", deployment(pb{}.str(1, "2")), ErrMalformed},
		{"group wire type", deployment(pb(protowire.AppendTag(nil, 1, protowire.StartGroupType))), ErrMalformed},
		{"invalid UTF-8", wrap("v1", "Namespace", pb{}.msg(1, pb{}.str(1, "\xff"))), ErrMalformed},
		{"time past 9999", wrap("v1", "Namespace", pb{}.msg(1, pb{}.msg(8, pb{}.varint(1, maxSeconds+1)))), ErrMalformed},
		{"negative nanos", wrap("v1", "Namespace", pb{}.msg(1, pb{}.msg(8, pb{}.int32(2, -1)))), ErrMalformed},
		{"content encoding", append(wrap("v1", "Namespace", nil), pb{}.str(3, "gzip")...), ErrMalformed},
		{"JSON content type", append(wrap("v1", "Namespace", nil), pb{}.str(4, "application/json")...), ErrMalformed},
		{"no kind", append([]byte("k8s\x00"), pb{}.msg(2, nil)...), ErrMalformed},
		{"fieldsV1 not JSON", wrap("v1", "Namespace", pb{}.msg(1, pb{}.msg(17, pb{}.msg(7, pb{}.str(1, "{"))))), ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := ToJSON(c.body)
			if !errors.Is(err, c.want) || out != nil {
				t.Fatalf("want %v, got %v and %q", c.want, err, out)
			}
		})
	}
}

func TestProbeHandlerIsInlined(t *testing.T) {
	get := pb{}.str(1, "/healthz").msg(2, pb{}.varint(1, 0).int32(2, 8080)).msg(5, pb{}.str(1, "X").str(2, "y"))
	probe := pb{}.msg(1, pb{}.msg(2, get)).int32(3, 2)
	c := pb{}.str(1, "c").str(2, "nginx").msg(11, probe).msg(10, pb{}.msg(1, pb{}.msg(1, pb{}.str(1, "true"))))
	m := convert(t, deployment(pb{}.msg(3, pb{}.msg(2, pb{}.msg(2, c)))))
	list, _ := lookup(m, "spec.template.spec.containers")
	b, _ := json.Marshal(list)
	const w = `[{"image":"nginx","livenessProbe":{"exec":{"command":["true"]}},"name":"c",` +
		`"readinessProbe":{"httpGet":{"httpHeaders":[{"name":"X","value":"y"}],"path":"/healthz","port":8080},"timeoutSeconds":2}}]`
	if string(b) != w {
		t.Fatalf("containers:\n%s\nwant\n%s", b, w)
	}
}

func TestMetadataMapsListsAndManagedFields(t *testing.T) {
	meta := pb{}.str(1, "d").
		msg(11, pb{}.str(1, "app").str(2, "web")).
		msg(11, pb{}.str(1, "tier").str(2, "")).
		msg(12, pb{}.str(1, "note").str(2, "<&>")).
		str(14, "a").str(14, "").
		msg(13, pb{}.str(5, "apps/v1").str(1, "ReplicaSet").str(3, "rs").str(4, "u1").varint(6, 1).varint(7, 0)).
		msg(17, pb{}.str(1, "kubectl").str(2, "Update").msg(7, pb{}.str(1, `{"f:spec":{}}`)))
	m := convert(t, wrap("v1", "Pod", pb{}.msg(1, meta)))
	want(t, m, "metadata.labels", map[string]any{"app": "web", "tier": ""})
	want(t, m, "metadata.annotations.note", "<&>")
	want(t, m, "metadata.finalizers", []any{"a", ""})
	want(t, m, "metadata.ownerReferences", []any{map[string]any{
		"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u1", "controller": true, "blockOwnerDeletion": false}})
	want(t, m, "metadata.managedFields", []any{map[string]any{"manager": "kubectl", "operation": "Update", "fieldsV1": map[string]any{"f:spec": map[string]any{}}}})
	out, _ := ToJSON(wrap("v1", "Pod", pb{}.msg(1, meta)))
	if !strings.Contains(string(out), `"<&>"`) {
		t.Fatalf("HTML characters escaped: %s", out)
	}
}

func TestDepthIsCapped(t *testing.T) {
	schema["Loop"] = message{1: msg("next", "Loop")}
	defer delete(schema, "Loop")
	kinds[typeKey{"test/v1", "Loop"}] = "Loop"
	defer delete(kinds, typeKey{"test/v1", "Loop"})
	nest := func(n int) []byte {
		var b pb
		for range n {
			b = pb{}.msg(1, b)
		}
		return wrap("test/v1", "Loop", b)
	}
	if _, err := ToJSON(nest(maxDepth - 1)); err != nil {
		t.Fatalf("depth %d: %v", maxDepth-1, err)
	}
	if _, err := ToJSON(nest(maxDepth + 1)); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("depth %d: %v", maxDepth+1, err)
	}
}

func mustJSON(t *testing.T, body []byte) []byte {
	t.Helper()
	out, err := ToJSON(body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// DeleteOptions arrive in the body of a typed client's DELETE (kubectl
// drain), in the client's group version.
func TestDeleteOptions(t *testing.T) {
	opts := pb{}.varint(1, 0).msg(2, pb{}.str(1, "u-1")).str(4, "Foreground").str(5, "All")
	for _, gv := range []string{"v1", "apps/v1", "meta.k8s.io/v1"} {
		m := convert(t, wrap(gv, "DeleteOptions", opts))
		want(t, m, "kind", "DeleteOptions")
		want(t, m, "gracePeriodSeconds", json.Number("0"))
		want(t, m, "preconditions.uid", "u-1")
		want(t, m, "propagationPolicy", "Foreground")
	}
}
