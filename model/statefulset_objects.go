package model

import (
	"strconv"
	"strings"
)

// StatefulSet is apps/v1 StatefulSet, reduced to what its controller
// decides from: a pod template (as a Deployment's), the governing
// Service, the pod management policy, the claim templates and their
// retention policy.
type StatefulSet struct {
	Meta
	Replicas     int
	Image        string
	PodLabels    map[string]string // template labels, also the selector
	NodeSelector map[string]string
	Template     string // as Deployment.Template
	// ServiceName is spec.serviceName, the headless Service that gives
	// each pod its DNS name: the pod's subdomain.
	ServiceName string
	// Parallel is podManagementPolicy Parallel; false is OrderedReady,
	// the default.
	Parallel bool
	// ClaimTemplates are the names of spec.volumeClaimTemplates, which
	// the apiserver does not let an update change.
	ClaimTemplates []string
	// DeleteClaimsWhenDeleted and DeleteClaimsWhenScaled are
	// persistentVolumeClaimRetentionPolicy's whenDeleted and whenScaled
	// set to Delete; false is Retain, the default.
	DeleteClaimsWhenDeleted bool
	DeleteClaimsWhenScaled  bool
	Generation              int64
	Status                  StatefulSetStatus
}

// StatefulSetStatus is the status its controller writes.
type StatefulSetStatus struct {
	ObservedGeneration                                                           int64
	Replicas, ReadyReplicas, CurrentReplicas, UpdatedReplicas, AvailableReplicas int
	// CurrentRevision and UpdateRevision name the template revisions
	// (StatefulSetRevision) the pods run and are updated to.
	CurrentRevision, UpdateRevision string
}

func (s *StatefulSet) meta() *Meta  { return &s.Meta }
func (s *StatefulSet) Kind() Kind   { return KindStatefulSet }
func (s *StatefulSet) shallow() Obj { c := *s; return &c }

// PersistentVolumeClaim is v1 PersistentVolumeClaim: the model carries
// only its identity and ownership. No provisioner binds it (claims stay
// Pending) and nothing the model schedules waits for it.
type PersistentVolumeClaim struct {
	Meta
}

func (c *PersistentVolumeClaim) meta() *Meta  { return &c.Meta }
func (c *PersistentVolumeClaim) Kind() Kind   { return KindPersistentVolumeClaim }
func (c *PersistentVolumeClaim) shallow() Obj { d := *c; return &d }

// The labels upstream's StatefulSet controller puts on its pods.
const (
	LabelStatefulSetPodName = "statefulset.kubernetes.io/pod-name"
	LabelPodIndex           = "apps.kubernetes.io/pod-index"
	LabelRevisionHash       = "controller-revision-hash"
)

// StatefulSetPodName is the stable identity of the set's pod number
// ordinal: "<set>-<ordinal>".
func StatefulSetPodName(set string, ordinal int) string {
	return set + "-" + strconv.Itoa(ordinal)
}

// StatefulSetClaimName is the claim of template for the set's pod number
// ordinal: "<template>-<set>-<ordinal>", as upstream names it.
func StatefulSetClaimName(template, set string, ordinal int) string {
	return template + "-" + StatefulSetPodName(set, ordinal)
}

// StatefulSetOrdinal reads the ordinal of a pod named for set; ok is false
// for a name that is not "<set>-<ordinal>" (upstream's getParentNameAndOrdinal).
func StatefulSetOrdinal(set, pod string) (int, bool) {
	rest, ok := strings.CutPrefix(pod, set+"-")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// StatefulSetRevision names the revision of the set's pod template, as
// upstream names its ControllerRevisions: "<set>-<hash>"; the pods carry it
// as their controller-revision-hash label.
func StatefulSetRevision(s *StatefulSet) string {
	return s.Name + "-" + TemplateHash(s.Image, s.PodLabels, s.Template)
}

// StatefulSetClaims are the claims pod number ordinal of s mounts.
func StatefulSetClaims(s *StatefulSet, ordinal int) []string {
	var out []string
	for _, t := range s.ClaimTemplates {
		out = append(out, StatefulSetClaimName(t, s.Name, ordinal))
	}
	return out
}

// statefulSetFields are a StatefulSet's observable fields (Snapshot.Fields).
func statefulSetFields(x *StatefulSet) []Field {
	var f []Field
	add := func(name, v string) {
		if v != "" && v != "0" && v != "false" {
			f = append(f, Field{name, v})
		}
	}
	itoa := strconv.Itoa
	add("metadata.generation", strconv.FormatInt(x.Generation, 10))
	f = append(f, Field{"spec.replicas", itoa(x.Replicas)})
	add("spec.template.image", x.Image)
	add("spec.template.labels", labelString(x.PodLabels))
	add("spec.template.nodeSelector", labelString(x.NodeSelector))
	add("spec.template.rest", x.Template)
	add("spec.serviceName", x.ServiceName)
	policy := "OrderedReady"
	if x.Parallel {
		policy = "Parallel"
	}
	add("spec.podManagementPolicy", policy)
	add("spec.volumeClaimTemplates", strings.Join(x.ClaimTemplates, ","))
	retain := func(del bool) string {
		if del {
			return "Delete"
		}
		return "Retain"
	}
	add("spec.persistentVolumeClaimRetentionPolicy", "whenDeleted="+retain(x.DeleteClaimsWhenDeleted)+",whenScaled="+retain(x.DeleteClaimsWhenScaled))
	s := x.Status
	add("status.observedGeneration", strconv.FormatInt(s.ObservedGeneration, 10))
	add("status.replicas", itoa(s.Replicas))
	add("status.readyReplicas", itoa(s.ReadyReplicas))
	add("status.currentReplicas", itoa(s.CurrentReplicas))
	add("status.updatedReplicas", itoa(s.UpdatedReplicas))
	add("status.availableReplicas", itoa(s.AvailableReplicas))
	add("status.currentRevision", s.CurrentRevision)
	add("status.updateRevision", s.UpdateRevision)
	return f
}
