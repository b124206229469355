package apiserver

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/converge-dev/converge/impl/api"
)

// What the apiserver needs to know of the stored workload kinds
// (PersistentVolumeClaim, StatefulSet, DaemonSet, Job): their tables, as
// Kubernetes' printers print them, and a StatefulSet's Scale.

// workloadPrinter is kubectl's table for a stored workload kind; ok false
// for other kinds.
func workloadPrinter(kind string) ([]tableColumn, func(api.Object) []any, bool) {
	name := func(o api.Object) string { return api.Meta(o).Name }
	switch kind {
	case "PersistentVolumeClaim":
		return []tableColumn{col("Name", "string", 0), col("Status", "string", 0), col("Volume", "string", 0),
				col("Capacity", "string", 0), col("Access Modes", "string", 0), col("StorageClass", "string", 0),
				col("VolumeAttributesClass", "string", 0), col("Age", "string", 0), col("VolumeMode", "string", 1)},
			func(o api.Object) []any {
				c := o.(*api.PersistentVolumeClaim)
				phase := string(c.Status.Phase)
				if c.DeletionTimestamp != nil {
					phase = "Terminating"
				}
				capacity, modes := "", ""
				if q, ok := c.Status.Capacity[corev1.ResourceStorage]; ok {
					capacity = q.String()
					modes = accessModes(c.Status.AccessModes)
				}
				class := c.Annotations[corev1.BetaStorageClassAnnotation]
				if c.Spec.StorageClassName != nil {
					class = *c.Spec.StorageClassName
				}
				vac := "<unset>"
				if v := c.Spec.VolumeAttributesClassName; v != nil && *v != "" {
					vac = *v
				}
				mode := "<unset>"
				if c.Spec.VolumeMode != nil {
					mode = string(*c.Spec.VolumeMode)
				}
				return []any{name(o), phase, c.Spec.VolumeName, capacity, modes, class, vac, age(o), mode}
			}, true
	case "StatefulSet":
		return []tableColumn{col("Name", "string", 0), col("Ready", "string", 0), col("Age", "string", 0),
				col("Containers", "string", 1), col("Images", "string", 1)},
			func(o api.Object) []any {
				s := o.(*api.StatefulSet)
				cs, is := kubeContainersImages(s.Spec.Template.Spec.Containers)
				return []any{name(o), fmt.Sprintf("%d/%d", s.Status.ReadyReplicas, replicas(s.Spec.Replicas)), age(o), cs, is}
			}, true
	case "DaemonSet":
		return []tableColumn{col("Name", "string", 0), col("Desired", "integer", 0), col("Current", "integer", 0),
				col("Ready", "integer", 0), col("Up-to-date", "integer", 0), col("Available", "integer", 0),
				col("Node Selector", "string", 0), col("Age", "string", 0), col("Containers", "string", 1),
				col("Images", "string", 1), col("Selector", "string", 1)},
			func(o api.Object) []any {
				d := o.(*api.DaemonSet)
				st := d.Status
				cs, is := kubeContainersImages(d.Spec.Template.Spec.Containers)
				return []any{name(o), int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
					int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), labels.FormatLabels(d.Spec.Template.Spec.NodeSelector),
					age(o), cs, is, selectorString(d.Spec.Selector)}
			}, true
	case "Job":
		return []tableColumn{col("Name", "string", 0), col("Status", "string", 0), col("Completions", "string", 0),
				col("Duration", "string", 0), col("Age", "string", 0), col("Containers", "string", 1),
				col("Images", "string", 1), col("Selector", "string", 1)},
			func(o api.Object) []any {
				j := o.(*api.Job)
				cs, is := kubeContainersImages(j.Spec.Template.Spec.Containers)
				return []any{name(o), jobStatus(j), jobCompletions(j), jobDuration(j), age(o), cs, is, selectorString(j.Spec.Selector)}
			}, true
	}
	return nil, nil, false
}

func kubeContainersImages(cs []corev1.Container) (string, string) {
	var n, i []string
	for _, c := range cs {
		n, i = append(n, c.Name), append(i, c.Image)
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

func selectorString(s *metav1.LabelSelector) string {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return "<error>"
	}
	return orNone(sel.String())
}

// accessModes abbreviates as kubectl does: RWO, ROX, RWX, RWOP.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	short := map[corev1.PersistentVolumeAccessMode]string{corev1.ReadWriteOnce: "RWO", corev1.ReadOnlyMany: "ROX",
		corev1.ReadWriteMany: "RWX", corev1.ReadWriteOncePod: "RWOP"}
	var out []string
	for _, m := range modes {
		if s, ok := short[m]; ok && !containsString(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, ",")
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// jobStatus is the printers' Status column: the first true terminal
// condition, Terminating, Suspended, or Running.
func jobStatus(j *api.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		for _, c := range j.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuspended):
		return "Suspended"
	}
	return "Running"
}

func jobCompletions(j *api.Job) string {
	switch {
	case j.Spec.Completions != nil:
		return fmt.Sprintf("%d/%d", j.Status.Succeeded, *j.Spec.Completions)
	case j.Spec.Parallelism != nil && *j.Spec.Parallelism > 1:
		return fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *j.Spec.Parallelism)
	}
	return fmt.Sprintf("%d/1", j.Status.Succeeded)
}

func jobDuration(j *api.Job) string {
	start, done := j.Status.StartTime, j.Status.CompletionTime
	switch {
	case start == nil:
		return ""
	case done == nil:
		return humanDuration(time.Since(start.Time))
	}
	return humanDuration(done.Sub(start.Time))
}
