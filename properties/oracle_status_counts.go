package properties

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// workloadCounts are the observed replica counts each apps/v1 workload
// reports in its status, by the names apps/v1 gives them.
var workloadCounts = map[string][]string{
	"Deployment":  {"replicas", "updatedReplicas", "readyReplicas", "availableReplicas"},
	"StatefulSet": {"replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"},
	"ReplicaSet":  {"replicas", "readyReplicas", "availableReplicas"},
}

// allCounts are the names of workloadCounts, once each, sorted.
var allCounts = func() []string {
	var out []string
	for _, names := range workloadCounts {
		for _, n := range names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}()

// declaredCounts lists the integer status properties of a CRD version's
// schema that bear an apps/v1 replica count's name.
func declaredCounts(v *apiextensionsv1.CustomResourceValidation) []string {
	if v == nil || v.OpenAPIV3Schema == nil {
		return nil
	}
	st, ok := v.OpenAPIV3Schema.Properties["status"]
	if !ok {
		return nil
	}
	var out []string
	for _, n := range allCounts {
		if p, ok := st.Properties[n]; ok && p.Type == "integer" {
			out = append(out, n)
		}
	}
	return out
}

// statusCountsAtConvergence is the status-counts oracle. Convention: a
// status reports what was observed, not what was asked for (the API
// conventions' spec/status split), and apps/v1 names its observed
// counts: status.replicas, readyReplicas, availableReplicas,
// updatedReplicas. A custom resource whose status schema declares a
// count of the same name, and which controls a workload, mirrors that
// workload's count once the run has converged, as the HPA and kubectl
// read a scale subresource's statusReplicasPath. An operator that writes
// readyReplicas from spec.replicas says so only where pods fail, which
// the world faults make happen.
//
// A count absent from the workload's status is 0 (apps/v1's omitempty).
// Exemption: a count absent from the custom resource's status is not
// judged, since many operators declare a count they never write; this
// also lets through a count left at 0 under omitempty while pods are
// ready (a hole: only a count the operator has written is compared). A
// custom resource that controls several workloads may
// report their sum or any one child's count, so it passes with either;
// a count from the spec still fails where no child and no sum has it
// (TestStatusCountsCatchSpecCountOverTwoWorkloads). The teeth test of
// the single child is TestStatusCountsCatchReadyReplicasFromSpec.
func (r *operatorRun) statusCountsAtConvergence() {
	r.rt.Helper()
	if r.skipped(oracleStatusCounts) {
		return
	}
	workloads := map[types.UID][]*unstructured.Unstructured{}
	for _, c := range r.children() {
		if c.obj.GroupVersionKind().Group == "apps" && workloadCounts[c.obj.GetKind()] != nil {
			workloads[c.owner] = append(workloads[c.owner], c.obj)
		}
	}
	for _, k := range r.kinds {
		if len(k.counts) == 0 {
			continue
		}
		for _, o := range r.listKind(k.gvk) {
			for _, n := range k.counts {
				said, written, _ := unstructured.NestedInt64(o.Object, "status", n)
				if !written {
					continue
				}
				if seen, ok := countSeen(workloads[o.GetUID()], n, said); !ok {
					r.fail("status counts: at convergence %s/%s says status.%s=%d, but %s (convention: a status reports what was observed, and apps/v1's %s counts observed pods; Operator.Skip[%q] turns this off)",
						k.resource, traceName(o.GetNamespace(), o.GetName()), n, said, seen, n, oracleStatusCounts)
				}
			}
		}
	}
}

// countSeen tells whether a count said matches the workloads' count n:
// one child's or their sum. Without a workload that reports n there is
// nothing to compare. If not, it describes what the workloads say.
func countSeen(ws []*unstructured.Unstructured, n string, said int64) (string, bool) {
	var sum int64
	var seen []string
	var one string
	for _, w := range ws {
		if !slices.Contains(workloadCounts[w.GetKind()], n) {
			continue
		}
		c, _, _ := unstructured.NestedInt64(w.Object, "status", n)
		if c == said {
			return "", true
		}
		sum += c
		seen = append(seen, fmt.Sprintf("%s has status.%s=%d", describe(w), n, c))
		one = fmt.Sprintf("%s, which it controls, has status.%s=%d", describe(w), n, c)
	}
	switch {
	case len(seen) == 0 || sum == said:
		return "", true
	case len(seen) == 1:
		return one, false
	}
	return fmt.Sprintf("of the workloads it controls, %s (%d in all)", strings.Join(seen, ", "), sum), false
}
