package registry

import (
	"bytes"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// The storage format, weighed: kube-apiserver stores built-in kinds in
// etcd as Kubernetes protobuf; converge stores the JSON its types encode.
// With impl/api's types, a protobuf value costs a JSON round trip into
// k8s.io/api's type on every write and out of it on every read, and a
// LIST can no longer splice each value's resourceVersion into its bytes
// (withResourceVersion). These benchmarks measure both per pod.

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

var podProtobuf = func() runtime.Serializer {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		panic(err)
	}
	return protobuf.NewSerializer(s, s)
}()

func encodeProtobuf(obj api.Object) ([]byte, error) {
	j, err := encode(obj)
	if err != nil {
		return nil, err
	}
	var kp corev1.Pod
	if err := json.Unmarshal(j, &kp); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = podProtobuf.Encode(&kp, &buf)
	return buf.Bytes(), err
}

func decodeProtobuf(value []byte, rev int64) (api.Object, []byte, error) {
	kp, _, err := podProtobuf.Decode(value, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	j, err := json.Marshal(kp)
	if err != nil {
		return nil, nil, err
	}
	obj, err := decode("pods", j, rev)
	return obj, j, err
}

// BenchmarkStoredPod is a write's encoding and a read's decoding of a
// running pod, and a LIST's rendering of one stored value, per format.
func BenchmarkStoredPod(b *testing.B) {
	obj := benchPodObject(b)
	tm := *api.TypeOf(obj)
	b.Run("json/write+read", func(b *testing.B) {
		var v []byte
		for b.Loop() {
			v, _ = encode(obj)
			if _, err := decode("pods", v, 7); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(v)), "bytes")
	})
	b.Run("protobuf/write+read", func(b *testing.B) {
		var v []byte
		for b.Loop() {
			var err error
			if v, err = encodeProtobuf(obj); err != nil {
				b.Fatal(err)
			}
			if _, _, err := decodeProtobuf(v, 7); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(v)), "bytes")
	})
	jv, _ := encode(obj)
	pv, _ := encodeProtobuf(obj)
	b.Run("json/list-item", func(b *testing.B) {
		for b.Loop() {
			if _, err := withResourceVersion("pods", tm, store.Object{Value: jv, Rev: 7}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protobuf/list-item", func(b *testing.B) {
		for b.Loop() {
			kp, _, err := podProtobuf.Decode(pv, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			kp.(*corev1.Pod).ResourceVersion = "7"
			if _, err := json.Marshal(kp); err != nil {
				b.Fatal(err)
			}
		}
	})
}
