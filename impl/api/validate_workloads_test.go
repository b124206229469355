package api

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

const (
	stsYAML = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: "postgres:16"}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`
	dsYAML = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "agent:1"}]
      volumes: [{name: logs, hostPath: {path: /var/log}}, {name: scratch}]
`
	jobYAML = `apiVersion: batch/v1
kind: Job
metadata: {name: pi}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: pi, image: "perl:5.34"}]
`
	pvcYAML = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
`
)

// workload decodes one manifest and fills its defaults, as the apiserver
// does before validating.
func workload(t *testing.T, y string, mut func(string) string) Object {
	t.Helper()
	if mut != nil {
		y = mut(y)
	}
	objs, err := DecodeManifests([]byte(y))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	Default(objs[0])
	return objs[0]
}

func TestWorkloadsValidAndDefaulted(t *testing.T) {
	for _, y := range []string{stsYAML, dsYAML, jobYAML, pvcYAML} {
		assert.NoError(t, Validate(workload(t, y, nil)))
	}
	sts := workload(t, stsYAML, nil).(*StatefulSet)
	assert.Equal(t, int32(1), *sts.Spec.Replicas)
	assert.Equal(t, "OrderedReady", string(sts.Spec.PodManagementPolicy))
	assert.Equal(t, int32(0), *sts.Spec.UpdateStrategy.RollingUpdate.Partition)
	assert.Equal(t, "Retain", string(sts.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted))
	vct := sts.Spec.VolumeClaimTemplates[0]
	assert.Equal(t, []string{"v1", "PersistentVolumeClaim", "Filesystem", "Pending"},
		[]string{vct.APIVersion, vct.Kind, string(*vct.Spec.VolumeMode), string(vct.Status.Phase)})
	c := sts.Spec.Template.Spec.Containers[0]
	assert.Equal(t, []string{"IfNotPresent", "/dev/termination-log", "File", "Always", "ClusterFirst"},
		[]string{string(c.ImagePullPolicy), c.TerminationMessagePath, string(c.TerminationMessagePolicy),
			string(sts.Spec.Template.Spec.RestartPolicy), string(sts.Spec.Template.Spec.DNSPolicy)})

	ds := workload(t, dsYAML, nil).(*DaemonSet)
	assert.Equal(t, "1/0", ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable.String()+"/"+ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge.String())
	assert.Equal(t, corev1.HostPathUnset, *ds.Spec.Template.Spec.Volumes[0].HostPath.Type)
	assert.NotNil(t, ds.Spec.Template.Spec.Volumes[1].EmptyDir, "a volume with no source is an emptyDir")

	job := workload(t, jobYAML, nil).(*Job)
	assert.Equal(t, []int32{1, 1, 6}, []int32{*job.Spec.Completions, *job.Spec.Parallelism, *job.Spec.BackoffLimit})
	assert.Equal(t, batchv1.NonIndexedCompletion, *job.Spec.CompletionMode)
	assert.Equal(t, batchv1.TerminatingOrFailed, *job.Spec.PodReplacementPolicy)
	job.UID = "u-1"
	PrepareForCreate(job)
	assert.Equal(t, map[string]string{batchv1.ControllerUidLabel: "u-1"}, job.Spec.Selector.MatchLabels)
	assert.Equal(t, "pi", job.Spec.Template.Labels["job-name"])
	assert.Equal(t, "u-1", job.Labels["controller-uid"], "a Job with no labels takes its pods'")
	assert.NoError(t, Validate(job), "the generated selector is valid")

	pvc := workload(t, pvcYAML, nil).(*PersistentVolumeClaim)
	assert.Equal(t, corev1.ClaimPending, pvc.Status.Phase)
}

// Each case breaks one thing; the field error is upstream's.
func TestWorkloadsRejected(t *testing.T) {
	rep := func(old, new string) func(string) string {
		return func(s string) string { return strings.Replace(s, old, new, 1) }
	}
	for _, c := range []struct {
		name, y string
		mut     func(string) string
		want    string
	}{
		{"sts without selector", stsYAML, rep("  selector: {matchLabels: {app: db}}\n", ""), "spec.selector: Required value"},
		{"sts selector not matching", stsYAML, rep("{app: db}}\n  template", "{app: other}}\n  template"), "spec.template.metadata.labels: Invalid value: {\"app\":\"db\"}: `selector` does not match template `labels`"},
		{"sts restart policy", stsYAML, rep("      containers", "      restartPolicy: Never\n      containers"), `spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
		{"sts claim without storage", stsYAML, rep("resources: {requests: {storage: 1Gi}}", "resources: {}"), "spec.volumeClaimTemplates[0].spec.resources[storage]: Required value"},
		{"sts bad pod policy", stsYAML, rep("  serviceName: db\n", "  serviceName: db\n  podManagementPolicy: Random\n"), `spec.podManagementPolicy: Unsupported value: "Random"`},
		{"ds empty selector", dsYAML, rep("{matchLabels: {app: agent}}", "{}"), "spec.selector: Invalid value"},
		{"ds without containers", dsYAML, rep("      containers: [{name: agent, image: \"agent:1\"}]\n", ""), "spec.template.spec.containers: Required value"},
		{"job restart always", jobYAML, rep("restartPolicy: Never", "restartPolicy: Always"), `spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`},
		{"job selector not generated", jobYAML, rep("spec:\n  template", "spec:\n  selector: {matchLabels: {a: b}}\n  template"), "spec.selector: Invalid value"},
		{"job negative backoff", jobYAML, rep("spec:\n  template", "spec:\n  backoffLimit: -1\n  template"), "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"},
		{"job container without image", jobYAML, rep(`, image: "perl:5.34"`, ""), "spec.template.spec.containers[0].image: Required value"},
		{"pvc without access modes", pvcYAML, rep("  accessModes: [ReadWriteOnce]\n", ""), "spec.accessModes: Required value: at least 1 access mode is required"},
		{"pvc bad access mode", pvcYAML, rep("[ReadWriteOnce]", "[WriteOnly]"), `spec.accessModes: Unsupported value: "WriteOnly"`},
		{"pvc zero storage", pvcYAML, rep("storage: 5Gi", "storage: \"0\""), `spec.resources[storage]: Invalid value: "0": must be greater than zero`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(workload(t, c.y, c.mut))
			var se *StatusError
			require.True(t, errors.As(err, &se), "%v", err)
			assert.Equal(t, int32(422), se.Status.Code)
			assert.Contains(t, se.Error(), c.want)
		})
	}
}

func TestWorkloadUpdatesRefused(t *testing.T) {
	sts := workload(t, stsYAML, nil).(*StatefulSet)
	next := DeepCopy(sts)
	next.Spec.ServiceName = "other"
	assert.ErrorContains(t, ValidateUpdate(sts, next), "spec: Forbidden: updates to statefulset spec for fields other than")
	next = DeepCopy(sts)
	next.Spec.Replicas = ptr[int32](4)
	assert.NoError(t, ValidateUpdate(sts, next), "replicas may change")

	pvc := workload(t, pvcYAML, nil).(*PersistentVolumeClaim)
	grown := DeepCopy(pvc)
	grown.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	assert.ErrorContains(t, ValidateUpdate(pvc, grown), "spec: Forbidden: spec is immutable after creation")

	job := workload(t, jobYAML, nil).(*Job)
	job.UID = "u"
	PrepareForCreate(job)
	moved := DeepCopy(job)
	moved.Spec.Completions = ptr[int32](3)
	assert.ErrorContains(t, ValidateUpdate(job, moved), "spec.completions: Invalid value: 3: field is immutable")
}
