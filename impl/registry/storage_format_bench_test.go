package registry

import (
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// The storage format, weighed: converge stores built-in kinds in etcd as
// Kubernetes protobuf, as kube-apiserver does, and custom resources as
// JSON. A protobuf value is about half the size and encodes and decodes
// several times faster; in exchange a LIST can no longer splice each
// value's resourceVersion into its bytes (withResourceVersion) and decodes
// and re-encodes each item. These benchmarks measure both per pod.

// runningPod is a pod as the control plane leaves it: scheduled, started
// and Ready, owned by a ReplicaSet.
const runningPod = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-7d4b9c8f6-x2x9k","generateName":"web-7d4b9c8f6-","namespace":"default",
"uid":"0b6f2f0e-3a51-4c55-9d7e-5f2a8e3f9c11","creationTimestamp":"2026-11-27T01:00:00Z","labels":{"app":"web","pod-template-hash":"7d4b9c8f6"},
"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d4b9c8f6","uid":"7c1d0a55-1f0e-4c55-8e2a-1b2c3d4e5f60","controller":true,"blockOwnerDeletion":true}]},
"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],
"resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"250m","memory":"64Mi"}},
"readinessProbe":{"httpGet":{"path":"/","port":80,"scheme":"HTTP"},"periodSeconds":10,"timeoutSeconds":1,"successThreshold":1,"failureThreshold":3},
"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","nodeName":"node-3",
"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],
"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority","priority":0},
"status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"2026-11-27T01:00:00Z"},
{"type":"Initialized","status":"True","lastTransitionTime":"2026-11-27T01:00:01Z"},{"type":"ContainersReady","status":"True","lastTransitionTime":"2026-11-27T01:00:02Z"},
{"type":"Ready","status":"True","lastTransitionTime":"2026-11-27T01:00:02Z"}],"hostIP":"127.100.3.1","podIP":"127.100.3.7","podIPs":[{"ip":"127.100.3.7"}],
"startTime":"2026-11-27T01:00:01Z","containerStatuses":[{"name":"web","state":{"running":{"startedAt":"2026-11-27T01:00:01Z"}},"ready":true,"restartCount":0,
"image":"nginx:1.27","imageID":"sha256:3b25b682ea82b2db3cc4fd48db818be788ee3f902ac7378090cf2624ec2442df","containerID":"containerd://9f8e7d6c5b4a","started":true}],
"qosClass":"Burstable"}}`

func benchPodObject(b *testing.B) api.Object {
	obj, err := api.Decode("pods", []byte(runningPod))
	if err != nil {
		b.Fatal(err)
	}
	return obj
}

// BenchmarkStoredPod is a write's encoding and a read's decoding of a
// running pod, and a LIST's rendering of one stored value, per format.
func BenchmarkStoredPod(b *testing.B) {
	obj := benchPodObject(b)
	tm := *api.TypeOf(obj)
	formats := []struct {
		name   string
		encode func(api.Object) ([]byte, error)
	}{{"json", encodeJSON}, {"protobuf", encode}}
	for _, f := range formats {
		v, err := f.encode(obj)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(f.name+"/write", func(b *testing.B) {
			for b.Loop() {
				if _, err := f.encode(obj); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(v)), "bytes")
		})
		b.Run(f.name+"/read", func(b *testing.B) {
			for b.Loop() {
				if _, err := decode("pods", v, 7); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(f.name+"/list-item", func(b *testing.B) {
			for b.Loop() {
				if _, err := withResourceVersion("pods", tm, store.Object{Value: v, Rev: 7}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// encodeJSON is encode as it was before built-in kinds were protobuf.
func encodeJSON(obj api.Object) ([]byte, error) {
	m := api.Meta(obj)
	rv := m.ResourceVersion
	m.ResourceVersion = ""
	defer func() { m.ResourceVersion = rv }()
	return api.Marshal(obj)
}
