package api

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// More stored-only kinds: PersistentVolumeClaims, StatefulSets, DaemonSets
// and Jobs have no controller in converge. They are stored and served as
// envtest serves them (a kube-apiserver with no controller manager), so
// that manifests and operators that write them work. Their specs and
// statuses are k8s.io/api's own types.

// PersistentVolumeClaim is core/v1 PersistentVolumeClaim.
type PersistentVolumeClaim struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       corev1.PersistentVolumeClaimSpec   `json:"spec,omitempty"`
	Status     corev1.PersistentVolumeClaimStatus `json:"status,omitempty"`
}

// PersistentVolumeClaimList is core/v1 PersistentVolumeClaimList.
type PersistentVolumeClaimList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []PersistentVolumeClaim `json:"items"`
}

// StatefulSet is apps/v1 StatefulSet.
type StatefulSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       appsv1.StatefulSetSpec   `json:"spec,omitempty"`
	Status     appsv1.StatefulSetStatus `json:"status,omitempty"`
}

// StatefulSetList is apps/v1 StatefulSetList.
type StatefulSetList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []StatefulSet `json:"items"`
}

// DaemonSet is apps/v1 DaemonSet.
type DaemonSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       appsv1.DaemonSetSpec   `json:"spec,omitempty"`
	Status     appsv1.DaemonSetStatus `json:"status,omitempty"`
}

// DaemonSetList is apps/v1 DaemonSetList.
type DaemonSetList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []DaemonSet `json:"items"`
}

// Job is batch/v1 Job.
type Job struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       batchv1.JobSpec   `json:"spec,omitempty"`
	Status     batchv1.JobStatus `json:"status,omitempty"`
}

// JobList is batch/v1 JobList.
type JobList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Job `json:"items"`
}

func (l *PersistentVolumeClaimList) GetItems() []Object {
	return itemPointers[PersistentVolumeClaim](l.Items)
}
func (l *PersistentVolumeClaimList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[PersistentVolumeClaim](objs)
	return err
}

func (l *StatefulSetList) GetItems() []Object { return itemPointers[StatefulSet](l.Items) }
func (l *StatefulSetList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[StatefulSet](objs)
	return err
}

func (l *DaemonSetList) GetItems() []Object { return itemPointers[DaemonSet](l.Items) }
func (l *DaemonSetList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[DaemonSet](objs)
	return err
}

func (l *JobList) GetItems() []Object { return itemPointers[Job](l.Items) }
func (l *JobList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Job](objs)
	return err
}

var (
	_ Object     = (*PersistentVolumeClaim)(nil)
	_ Object     = (*StatefulSet)(nil)
	_ Object     = (*DaemonSet)(nil)
	_ Object     = (*Job)(nil)
	_ ListObject = (*PersistentVolumeClaimList)(nil)
	_ ListObject = (*StatefulSetList)(nil)
	_ ListObject = (*DaemonSetList)(nil)
	_ ListObject = (*JobList)(nil)
)

// workloadEntries are the resource table's rows for these kinds, with
// upstream's short names, categories and subresources.
var workloadEntries = []entry{
	{ResourceInfo{Resource: "persistentvolumeclaims", Singular: "persistentvolumeclaim", Kind: "PersistentVolumeClaim",
		ListKind: "PersistentVolumeClaimList", Version: "v1", Namespaced: true, ShortNames: []string{"pvc"},
		Verbs: standardVerbs, Subresources: []Subresource{statusOf("PersistentVolumeClaim", "")}},
		func() Object { return &PersistentVolumeClaim{} }, func() ListObject { return &PersistentVolumeClaimList{} }},
	{ResourceInfo{Resource: "statefulsets", Singular: "statefulset", Kind: "StatefulSet", ListKind: "StatefulSetList",
		Group: "apps", Version: "v1", Namespaced: true, ShortNames: []string{"sts"}, Verbs: standardVerbs,
		Categories: []string{"all"}, Subresources: []Subresource{statusOf("StatefulSet", "apps"), scaleOf()}},
		func() Object { return &StatefulSet{} }, func() ListObject { return &StatefulSetList{} }},
	{ResourceInfo{Resource: "daemonsets", Singular: "daemonset", Kind: "DaemonSet", ListKind: "DaemonSetList",
		Group: "apps", Version: "v1", Namespaced: true, ShortNames: []string{"ds"}, Verbs: standardVerbs,
		Categories: []string{"all"}, Subresources: []Subresource{statusOf("DaemonSet", "apps")}},
		func() Object { return &DaemonSet{} }, func() ListObject { return &DaemonSetList{} }},
	{ResourceInfo{Resource: "jobs", Singular: "job", Kind: "Job", ListKind: "JobList",
		Group: "batch", Version: "v1", Namespaced: true, Verbs: standardVerbs,
		Categories: []string{"all"}, Subresources: []Subresource{statusOf("Job", "batch")}},
		func() Object { return &Job{} }, func() ListObject { return &JobList{} }},
}
