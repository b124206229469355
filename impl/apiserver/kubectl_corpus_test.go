package apiserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// TestKubectlCorpusRoundTrip: every manifest under testdata/corpus —
// realistic operator and chart output for each served kind — applied with
// the real kubectl is stored and served back with every field it set,
// client-side and server-side.
func TestKubectlCorpusRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("corpus has %d manifests, want at least 20", len(files))
	}
	// Namespaces first: other manifests live in them.
	slices.SortStableFunc(files, func(a, b string) int {
		return boolCmp(!strings.HasPrefix(filepath.Base(a), "namespace"), !strings.HasPrefix(filepath.Base(b), "namespace"))
	})
	k := newKubectlEnv(t)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) { roundTrip(t, k, path) })
	}
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// roundTrip applies the manifest at path with kubectl (client-side),
// checks `kubectl get -f path -o yaml` holds every field it set in the
// form upstream serves it (servedForm), applies it again, then applies it
// server-side and checks again.
//
// Applying again reports "unchanged" when the manifest is already in
// served form. Otherwise kubectl's three-way merge sees the live object
// differ from the manifest (a canonicalized quantity, an omitted zero, a
// stringData key) and sends the difference again: "configured", on a
// real cluster too.
func roundTrip(t *testing.T, k *kubectlEnv, path string) {
	t.Helper()
	run := func(args ...string) string {
		t.Helper()
		out, err := k.try(args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	want, normalized := servedForm(t, path)
	for _, n := range normalized {
		t.Logf("served form: %s", n)
	}
	if out := run("apply", "-f", path); !strings.Contains(out, " created") {
		t.Fatalf("apply: %s", out)
	}
	check := func(when string) {
		t.Helper()
		got := yamlToAny(t, []byte(run("get", "-f", path, "-o", "yaml")))
		for _, diff := range missingFrom(want, got, "") {
			t.Errorf("%s: %s", when, diff)
		}
	}
	check("after apply")
	reapply := "unchanged"
	if len(normalized) > 0 || resendsOnReapply(want) {
		reapply = "configured"
	}
	if out := run("apply", "-f", path); !strings.Contains(out, " "+reapply) {
		t.Errorf("re-apply: %s, want %s", out, reapply)
	}
	if out := run("apply", "--server-side", "--force-conflicts", "-f", path); !strings.Contains(out, " serverside-applied") {
		t.Errorf("server-side apply: %s", out)
	}
	check("after server-side apply")
}

// resendsOnReapply: kubectl's three-way merge sends part of this manifest
// again on a second apply, on a real cluster too, so it reports
// "configured". An atomic list the server defaults differs live from the
// applied one: a StatefulSet's volumeClaimTemplates (volumeMode,
// status.phase), a NetworkPolicy's rules (a port's protocol), a binding's
// subjects (a User's or Group's apiGroup). A PodDisruptionBudget's
// selector has patch strategy "replace", which kubectl always sends. A
// pod template's downwardAPI items and projected sources are atomic lists
// whose entries the server defaults (a fieldRef's apiVersion, a token's
// expirationSeconds).
func resendsOnReapply(obj any) bool {
	m, _ := obj.(map[string]any)
	spec, _ := m["spec"].(map[string]any)
	if template, _ := spec["template"].(map[string]any); template != nil {
		podSpec, _ := template["spec"].(map[string]any)
		volumes, _ := podSpec["volumes"].([]any)
		for _, v := range volumes {
			if v, _ := v.(map[string]any); v["downwardAPI"] != nil || v["projected"] != nil {
				return true
			}
		}
	}
	switch m["kind"] {
	case "StatefulSet":
		return spec["volumeClaimTemplates"] != nil
	case "NetworkPolicy":
		return spec["ingress"] != nil || spec["egress"] != nil
	case "RoleBinding", "ClusterRoleBinding":
		return m["subjects"] != nil
	case "PodDisruptionBudget":
		return spec["selector"] != nil
	}
	return false
}

// upstreamTypes decodes a manifest into k8s.io/api's own type for its
// kind, the oracle of what upstream keeps of it.
var upstreamTypes = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme,
		coordinationv1.AddToScheme, discoveryv1.AddToScheme, eventsv1.AddToScheme, autoscalingv2.AddToScheme, networkingv1.AddToScheme, policyv1.AddToScheme,
		rbacv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// servedForm is the manifest at path as a real apiserver serves it back:
// the same fields and values, but for the normalizations upstream makes on
// write, each listed in normalized:
//
//   - A Secret's stringData is write-only: the apiserver merges each key
//     into data, base64-encoded, overriding data's key of the same name,
//     and never stores or serves stringData (upstream's conversion of a
//     v1 Secret to the internal type).
//   - A resource.Quantity is served in canonical form (0.5 -> 500m,
//     1000m -> 1, 1.5Gi -> 1536Mi): upstream's Quantity marshals the
//     amount it parsed, not the text sent.
//   - A zero (false, 0) set on a non-pointer omitempty field of upstream's
//     Go type (hostNetwork: false, minReadySeconds: 0, readOnly: false) is
//     not served: upstream's JSON encoding omits it.
//
// The last two are read off k8s.io/api's own type for the kind, decoded
// strictly, so a manifest field upstream does not know fails the test.
func servedForm(t *testing.T, path string) (want any, normalized []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	var manifest map[string]any
	if err := json.Unmarshal(j, &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest["kind"] == "Secret" && manifest["apiVersion"] == "v1" {
		if sd, ok := manifest["stringData"].(map[string]any); ok {
			data, _ := manifest["data"].(map[string]any)
			if data == nil {
				data = map[string]any{}
			}
			for key, v := range sd {
				data[key] = base64.StdEncoding.EncodeToString([]byte(v.(string)))
				normalized = append(normalized, fmt.Sprintf(".stringData.%s merged into .data", key))
			}
			manifest["data"] = data
			delete(manifest, "stringData")
		}
	}
	if j, err = json.Marshal(manifest); err != nil {
		t.Fatal(err)
	}
	gv, err := schema.ParseGroupVersion(fmt.Sprint(manifest["apiVersion"]))
	if err != nil {
		t.Fatal(err)
	}
	typed, err := upstreamTypes.New(gv.WithKind(fmt.Sprint(manifest["kind"])))
	if err != nil {
		t.Fatalf("no upstream type for %s: %v", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(typed); err != nil {
		t.Fatalf("%s is not a valid upstream %T: %v", path, typed, err)
	}
	out, err := json.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	var upstream map[string]any
	if err := json.Unmarshal(out, &upstream); err != nil {
		t.Fatal(err)
	}
	var errs []string
	want = asServed(manifest, upstream, "", &normalized, &errs)
	for _, e := range errs {
		t.Errorf("%s: upstream would not serve %s as written", path, e)
	}
	return want, normalized
}

// asServed walks the manifest beside upstream's encoding of it, keeping
// the manifest's values but for omitted zeros and canonical quantities.
func asServed(m, up any, path string, normalized, errs *[]string) any {
	switch m := m.(type) {
	case map[string]any:
		u, _ := up.(map[string]any)
		for k, v := range m {
			p := path + "." + k
			uv, ok := u[k]
			switch {
			case !ok && isZero(v):
				*normalized = append(*normalized, p+": zero omitted")
				delete(m, k)
			case !ok:
				*errs = append(*errs, p)
			default:
				m[k] = asServed(v, uv, p, normalized, errs)
			}
		}
		return m
	case []any:
		u, _ := up.([]any)
		if len(u) != len(m) {
			*errs = append(*errs, path)
			return m
		}
		for i := range m {
			m[i] = asServed(m[i], u[i], fmt.Sprintf("%s[%d]", path, i), normalized, errs)
		}
		return m
	}
	if canonical, ok := canonicalQuantity(m); ok && canonical == up && canonical != m {
		*normalized = append(*normalized, fmt.Sprintf("%s: quantity %v served as %v", path, m, up))
		return up
	}
	if fmt.Sprint(m) != fmt.Sprint(up) {
		*errs = append(*errs, fmt.Sprintf("%s (%v, upstream %v)", path, m, up))
	}
	return m
}

func isZero(v any) bool { return v == false || v == float64(0) }

// canonicalQuantity is v, a string or a YAML number, as upstream's
// resource.Quantity serves it.
func canonicalQuantity(v any) (string, bool) {
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case float64:
		s = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return "", false
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return "", false
	}
	return q.String(), true
}
