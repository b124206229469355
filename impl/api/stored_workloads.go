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
type PersistentVolumeClaim = corev1.PersistentVolumeClaim

// PersistentVolumeClaimList is core/v1 PersistentVolumeClaimList.
type PersistentVolumeClaimList = corev1.PersistentVolumeClaimList

// StatefulSet is apps/v1 StatefulSet.
type StatefulSet = appsv1.StatefulSet

// StatefulSetList is apps/v1 StatefulSetList.
type StatefulSetList = appsv1.StatefulSetList

// DaemonSet is apps/v1 DaemonSet.
type DaemonSet = appsv1.DaemonSet

// DaemonSetList is apps/v1 DaemonSetList.
type DaemonSetList = appsv1.DaemonSetList

// Job is batch/v1 Job.
type Job = batchv1.Job

// JobList is batch/v1 JobList.
type JobList = batchv1.JobList

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
