package properties

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// configHistory is when each ConfigMap's and Secret's data last changed
// and when each container last started, as store revisions, so that the
// two compare.
type configHistory struct {
	byName  map[string]dataSeen // by "kind/namespace/name": a recreated one with the same data has not changed
	started map[containerKey]startSeen
}

type dataSeen struct {
	digest  string
	changed int64 // revision of the write that gave it this data
}

type containerKey struct {
	pod       types.UID
	container string
}

type startSeen struct {
	restarts int32
	started  int64 // revision of the pod's status write that first showed it running
}

var configKinds = []string{"ConfigMap", "Secret"}

// configStep notes, after a step, ConfigMaps and Secrets whose data
// changed and containers that (re)started.
func (r *operatorRun) configStep() {
	r.rt.Helper()
	h := &r.seen.config
	for _, kind := range configKinds {
		for _, o := range r.listKind(corev1.SchemeGroupVersion.WithKind(kind)) {
			d := dataDigest(&o)
			key := kind + "/" + o.GetNamespace() + "/" + o.GetName()
			if prev, ok := h.byName[key]; !ok || prev.digest != d {
				h.byName[key] = dataSeen{digest: d, changed: revOf(&o)}
			}
		}
	}
	for _, p := range r.pods() {
		for _, cs := range p.Status.ContainerStatuses {
			if cs.State.Running == nil {
				continue
			}
			key := containerKey{pod: p.UID, container: cs.Name}
			if prev, ok := h.started[key]; !ok || prev.restarts != cs.RestartCount {
				h.started[key] = startSeen{restarts: cs.RestartCount, started: revOf(p)}
			}
		}
	}
}

// configAtConvergence is the config-reaches-pods oracle. Convention: a
// container reads the ConfigMaps and Secrets it takes through env
// (valueFrom configMapKeyRef, secretKeyRef) or envFrom once, when it
// starts; a running container never sees a later change (Kubernetes
// documents it: "ConfigMaps consumed as environment variables are not
// updated automatically and require a pod restart"). An operator that
// changes such config must roll the pods (a hash of the config in the pod
// template is the usual way). So at convergence no running container
// takes, through env, config whose data changed after it started.
// Exempt: config mounted as a volume, which the kubelet updates in place
// (TestConfigReachesPodsExemptsMountedVolumes is its teeth: the same
// operator consuming through env is caught).
func (r *operatorRun) configAtConvergence() {
	r.rt.Helper()
	if r.skipped(oracleConfigReachesPods) {
		return
	}
	h := &r.seen.config
	for _, p := range r.pods() {
		if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
			continue
		}
		for _, c := range p.Spec.Containers {
			st, ok := h.started[containerKey{pod: p.UID, container: c.Name}]
			if !ok {
				continue
			}
			for _, ref := range envSources(c) {
				d, ok := h.byName[ref.kind+"/"+p.Namespace+"/"+ref.name]
				if ok && d.changed > st.started {
					r.fail("config reaches pods: at convergence pod %s/%s's container %s takes %s %s through %s, whose data changed (revision %d) after the container started (revision %d): it still runs with the old values (convention: env from a ConfigMap or Secret is read once, at container start; roll the pods when it changes, e.g. with a hash of it in the pod template; Operator.Skip[%q] turns this off)",
						p.Namespace, p.Name, c.Name, ref.kind, ref.name, ref.via, d.changed, st.started, oracleConfigReachesPods)
				}
			}
		}
	}
}

// envSource is a ConfigMap or Secret a container reads at its start.
type envSource struct{ kind, name, via string }

// envSources are the ConfigMaps and Secrets c takes through env and
// envFrom (not volumes: those update in place).
func envSources(c corev1.Container) []envSource {
	var out []envSource
	for _, e := range c.Env {
		switch vf := e.ValueFrom; {
		case vf == nil:
		case vf.ConfigMapKeyRef != nil:
			out = append(out, envSource{"ConfigMap", vf.ConfigMapKeyRef.Name, "env " + e.Name})
		case vf.SecretKeyRef != nil:
			out = append(out, envSource{"Secret", vf.SecretKeyRef.Name, "env " + e.Name})
		}
	}
	for _, f := range c.EnvFrom {
		if f.ConfigMapRef != nil {
			out = append(out, envSource{"ConfigMap", f.ConfigMapRef.Name, "envFrom"})
		}
		if f.SecretRef != nil {
			out = append(out, envSource{"Secret", f.SecretRef.Name, "envFrom"})
		}
	}
	return out
}

// pods lists every pod, typed.
func (r *operatorRun) pods() []*corev1.Pod {
	r.rt.Helper()
	var out []*corev1.Pod
	for _, o := range r.listKind(corev1.SchemeGroupVersion.WithKind("Pod")) {
		p := &corev1.Pod{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, p); err != nil {
			r.fail("config reaches pods: pod %s: %v", o.GetName(), err)
		}
		out = append(out, p)
	}
	return out
}

// dataDigest is a digest of a ConfigMap's or Secret's data and binaryData.
func dataDigest(o *unstructured.Unstructured) string {
	b, _ := json.Marshal([]any{o.Object["data"], o.Object["binaryData"]})
	return fmt.Sprintf("%x", sha256.Sum256(b))
}
