package api

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestValidObjectsPass(t *testing.T) {
	for _, obj := range []Object{
		validDeployment(), validPod(), validService(), validNode(), validReplicaSet(),
		&Namespace{ObjectMeta: ObjectMeta{Name: "prod"}},
		&Endpoints{ObjectMeta: ObjectMeta{Name: "myapp", Namespace: "default"}, Subsets: []EndpointSubset{{
			Addresses: []EndpointAddress{{IP: "10.0.0.1", NodeName: ptrTo("node-1")}},
			Ports:     []EndpointPort{{Port: 80, Protocol: ProtocolTCP}},
		}}},
		&Binding{ObjectMeta: ObjectMeta{Name: "web-0", Namespace: "default"}, Target: ObjectReference{Kind: "Node", Name: "node-1"}},
		&Scale{ObjectMeta: ObjectMeta{Name: "myapp", Namespace: "default"}, Spec: ScaleSpec{Replicas: 0}},
		&Pod{ObjectMeta: ObjectMeta{GenerateName: "myapp-7d9f-", Namespace: "default"}, Spec: validPod().Spec},
		validEvent(), validNewEvent(),
		// A node's events live in "default" and name no namespace.
		&Event{ObjectMeta: ObjectMeta{Name: "node-1.17a2b3c4d5e6f708", Namespace: "default"},
			InvolvedObject: ObjectReference{Kind: "Node", Name: "node-1", UID: "node-1"}, Reason: "NodeReady"},
		func() *Event {
			e := validNewEvent()
			e.Namespace = "kube-system"
			e.InvolvedObject.Namespace = ""
			return e
		}(),
	} {
		assert.NoError(t, Validate(obj), "%T", obj)
	}
}

// Each case breaks one thing and names the cause it must produce.
func TestValidationRejectsBadObjects(t *testing.T) {
	type badCase struct {
		name  string
		obj   Object
		field string
		cause CauseType
	}
	dep := func(mut func(d *Deployment)) Object { d := validDeployment(); mut(d); return d }
	pod := func(mut func(p *Pod)) Object { p := validPod(); mut(p); return p }
	svc := func(mut func(s *Service)) Object { s := validService(); mut(s); return s }
	node := func(mut func(n *Node)) Object { n := validNode(); mut(n); return n }
	rs := func(mut func(r *ReplicaSet)) Object { r := validReplicaSet(); mut(r); return r }
	ev := func(mut func(e *Event)) Object { e := validEvent(); mut(e); return e }
	newEv := func(mut func(e *Event)) Object { e := validNewEvent(); mut(e); return e }
	const (
		invalid   = CauseTypeFieldValueInvalid
		required  = CauseTypeFieldValueRequired
		dup       = CauseTypeFieldValueDuplicate
		notSupp   = CauseTypeFieldValueNotSupported
		forbidden = CauseTypeFieldValueForbidden
	)
	cases := []badCase{
		{"uppercase name", dep(func(d *Deployment) { d.Name = "MyApp" }), "metadata.name", invalid},
		{"name too long", dep(func(d *Deployment) { d.Name = strings.Repeat("a", 254) }), "metadata.name", invalid},
		{"no name", dep(func(d *Deployment) { d.Name = "" }), "metadata.name", required},
		{"bad generateName", pod(func(p *Pod) { p.Name = ""; p.GenerateName = "Web-" }), "metadata.generateName", invalid},
		{"bad namespace", dep(func(d *Deployment) { d.Namespace = "a.b" }), "metadata.namespace", invalid},
		{"namespace on node", node(func(n *Node) { n.Namespace = "default" }), "metadata.namespace", forbidden},
		{"bad label key", dep(func(d *Deployment) { d.Labels["-bad"] = "x" }), "metadata.labels", invalid},
		{"bad label value", dep(func(d *Deployment) { d.Labels["tier"] = "front end" }), "metadata.labels", invalid},
		{"negative replicas", dep(func(d *Deployment) { d.Spec.Replicas = int32p(-1) }), "spec.replicas", invalid},
		{"no selector", dep(func(d *Deployment) { d.Spec.Selector = nil }), "spec.selector", required},
		{"empty selector", dep(func(d *Deployment) { d.Spec.Selector = &LabelSelector{} }), "spec.selector", invalid},
		{"selector mismatch", dep(func(d *Deployment) { d.Spec.Template.Labels = map[string]string{"app": "other"} }),
			"spec.template.metadata.labels", invalid},
		{"bad selector operator", dep(func(d *Deployment) {
			d.Spec.Selector.MatchExpressions = []LabelSelectorRequirement{{Key: "app", Operator: "Like", Values: []string{"x"}}}
		}), "spec.selector.matchExpressions[0].operator", invalid},
		{"In without values", dep(func(d *Deployment) {
			d.Spec.Selector.MatchExpressions = []LabelSelectorRequirement{{Key: "app", Operator: LabelSelectorOpIn}}
		}), "spec.selector.matchExpressions[0].values", required},
		{"no containers", dep(func(d *Deployment) { d.Spec.Template.Spec.Containers = nil }),
			"spec.template.spec.containers", required},
		{"empty image", dep(func(d *Deployment) { d.Spec.Template.Spec.Containers[0].Image = "" }),
			"spec.template.spec.containers[0].image", required},
		{"duplicate container name", dep(func(d *Deployment) {
			c := d.Spec.Template.Spec.Containers[0]
			c.Ports = nil
			d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, c)
		}), "spec.template.spec.containers[1].name", dup},
		{"container name not a label", dep(func(d *Deployment) { d.Spec.Template.Spec.Containers[0].Name = "web_server" }),
			"spec.template.spec.containers[0].name", invalid},
		{"port zero", dep(func(d *Deployment) { d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort = 0 }),
			"spec.template.spec.containers[0].ports[0].containerPort", required},
		{"port too big", dep(func(d *Deployment) { d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort = 70000 }),
			"spec.template.spec.containers[0].ports[0].containerPort", invalid},
		{"bad protocol", dep(func(d *Deployment) { d.Spec.Template.Spec.Containers[0].Ports[0].Protocol = "ICMP" }),
			"spec.template.spec.containers[0].ports[0].protocol", notSupp},
		{"both surge and unavailable zero", dep(func(d *Deployment) {
			d.Spec.Strategy.RollingUpdate = &RollingUpdateDeployment{MaxSurge: IntOrStringPtr(FromInt32(0)), MaxUnavailable: IntOrStringPtr(FromString("0%"))}
		}), "spec.strategy.rollingUpdate.maxUnavailable", invalid},
		{"negative surge", dep(func(d *Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = IntOrStringPtr(FromInt32(-1)) }),
			"spec.strategy.rollingUpdate.maxSurge", invalid},
		{"surge not a percent", dep(func(d *Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = IntOrStringPtr(FromString("lots")) }),
			"spec.strategy.rollingUpdate.maxSurge", invalid},
		{"unavailable over 100%", dep(func(d *Deployment) { d.Spec.Strategy.RollingUpdate.MaxUnavailable = IntOrStringPtr(FromString("150%")) }),
			"spec.strategy.rollingUpdate.maxUnavailable", invalid},
		{"recreate with rollingUpdate", dep(func(d *Deployment) { d.Spec.Strategy.Type = RecreateDeploymentStrategyType }),
			"spec.strategy.rollingUpdate", forbidden},
		{"unknown strategy", dep(func(d *Deployment) { d.Spec.Strategy.Type = "BlueGreen" }), "spec.strategy", notSupp},
		{"template restartPolicy Never", dep(func(d *Deployment) { d.Spec.Template.Spec.RestartPolicy = RestartPolicyNever }),
			"spec.template.spec.restartPolicy", notSupp},
		{"progress deadline not above minReady", dep(func(d *Deployment) { d.Spec.MinReadySeconds = 700 }),
			"spec.progressDeadlineSeconds", invalid},
		{"paused", dep(func(d *Deployment) { d.Spec.Paused = true }), "spec.paused", forbidden},
		{"negative revisionHistoryLimit", dep(func(d *Deployment) { d.Spec.RevisionHistoryLimit = int32p(-2) }),
			"spec.revisionHistoryLimit", invalid},
		{"pod restartPolicy Sometimes", pod(func(p *Pod) { p.Spec.RestartPolicy = "Sometimes" }), "spec.restartPolicy", notSupp},
		{"pod bad pull policy", pod(func(p *Pod) { p.Spec.Containers[0].ImagePullPolicy = "Maybe" }),
			"spec.containers[0].imagePullPolicy", notSupp},
		{"negative cpu quantity", pod(func(p *Pod) { p.Spec.Containers[0].Resources.Requests["cpu"] = resource.MustParse("-100m") }),
			"spec.containers[0].resources.requests[cpu]", invalid},
		{"request above limit", pod(func(p *Pod) { p.Spec.Containers[0].Resources.Requests["memory"] = resource.MustParse("1Gi") }),
			"spec.containers[0].resources.requests[memory]", invalid},
		{"unknown resource name", pod(func(p *Pod) { p.Spec.Containers[0].Resources.Limits["gpu"] = resource.MustParse("1") }),
			"spec.containers[0].resources.limits[gpu]", invalid},
		{"probe port out of range", pod(func(p *Pod) { p.Spec.Containers[0].ReadinessProbe.HTTPGet.Port = FromInt32(0) }),
			"spec.containers[0].readinessProbe.httpGet.port", invalid},
		{"probe without handler", pod(func(p *Pod) { p.Spec.Containers[0].ReadinessProbe.HTTPGet = nil }),
			"spec.containers[0].readinessProbe", required},
		{"probe with two handlers", pod(func(p *Pod) { p.Spec.Containers[0].ReadinessProbe.GRPC = &corev1.GRPCAction{Port: 9090} }),
			"spec.containers[0].readinessProbe.grpc", forbidden},
		{"grpc probe port out of range", pod(func(p *Pod) {
			p.Spec.Containers[0].ReadinessProbe.HTTPGet = nil
			p.Spec.Containers[0].ReadinessProbe.GRPC = &corev1.GRPCAction{Port: 70000}
		}), "spec.containers[0].readinessProbe.grpc.port", invalid},
		{"bad os", pod(func(p *Pod) { p.Spec.OS = &corev1.PodOS{Name: "darwin"} }), "spec.os.name", notSupp},
		{"resize policy for a bad resource", pod(func(p *Pod) {
			p.Spec.Containers[0].ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: "storage", RestartPolicy: corev1.NotRequired}}
		}), "spec.containers[0].resizePolicy[0].resourceName", notSupp},
		{"resize policy twice", pod(func(p *Pod) {
			p.Spec.Containers[0].ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: "cpu", RestartPolicy: corev1.NotRequired},
				{ResourceName: "cpu", RestartPolicy: corev1.RestartContainer}}
		}), "spec.containers[0].resizePolicy[1]", CauseTypeFieldValueDuplicate},
		{"bad env name", pod(func(p *Pod) { p.Spec.Containers[0].Env = []EnvVar{{Name: "A=B", Value: "x"}} }),
			"spec.containers[0].env[0].name", invalid},
		{"negative grace period", pod(func(p *Pod) { p.Spec.TerminationGracePeriodSeconds = int64p(-5) }),
			"spec.terminationGracePeriodSeconds", invalid},
		{"bad nodeName", pod(func(p *Pod) { p.Spec.NodeName = "Node_1" }), "spec.nodeName", invalid},
		{"toleration bad effect", pod(func(p *Pod) {
			p.Spec.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpExists, Effect: "Sometimes"}}
		}), "spec.tolerations[0].effect", notSupp},
		{"toleration seconds without NoExecute", pod(func(p *Pod) {
			p.Spec.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpExists, Effect: TaintEffectNoSchedule, TolerationSeconds: int64p(5)}}
		}), "spec.tolerations[0].effect", invalid},
		{"service name starts with digit", svc(func(s *Service) { s.Name = "1app" }), "metadata.name", invalid},
		{"service without ports", svc(func(s *Service) { s.Spec.Ports = nil }), "spec.ports", required},
		{"service port zero", svc(func(s *Service) { s.Spec.Ports[0].Port = 0 }), "spec.ports[0].port", invalid},
		{"service target port name bad", svc(func(s *Service) { s.Spec.Ports[0].TargetPort = FromString("HTTP--x") }),
			"spec.ports[0].targetPort", invalid},
		{"service unnamed ports", svc(func(s *Service) {
			s.Spec.Ports = append(s.Spec.Ports, ServicePort{Port: 443, Protocol: ProtocolTCP, TargetPort: FromInt32(443)})
		}), "spec.ports[0].name", required},
		{"service duplicate port", svc(func(s *Service) {
			s.Spec.Ports = []ServicePort{{Name: "a", Port: 80, Protocol: ProtocolTCP, TargetPort: FromInt32(80)},
				{Name: "b", Port: 80, Protocol: ProtocolTCP, TargetPort: FromInt32(8080)}}
		}), "spec.ports[1]", dup},
		{"external traffic policy on ClusterIP", svc(func(s *Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal }),
			"spec.externalTrafficPolicy", invalid},
		{"source ranges on ClusterIP", svc(func(s *Service) { s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"} }),
			"spec.LoadBalancerSourceRanges", forbidden},
		{"load balancer class on ClusterIP", svc(func(s *Service) { s.Spec.LoadBalancerClass = ptr("example.com/lb") }),
			"spec.loadBalancerClass", forbidden},
		{"client IP affinity timeout zero", svc(func(s *Service) {
			s.Spec.SessionAffinity = "ClientIP"
			s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr[int32](0)}}
		}), "spec.sessionAffinityConfig.clientIP.timeoutSeconds", invalid},
		{"bad app protocol", svc(func(s *Service) { s.Spec.Ports[0].AppProtocol = ptr("h2c!") }), "spec.ports[0].appProtocol", invalid},
		{"bad ip family", svc(func(s *Service) { s.Spec.IPFamilies = []corev1.IPFamily{"IPv5"} }), "spec.ipFamilies[0]", notSupp},
		{"service bad type", svc(func(s *Service) { s.Spec.Type = "Internal" }), "spec.type", notSupp},
		{"service bad clusterIP", svc(func(s *Service) { s.Spec.ClusterIP = "10.0.0.300" }), "spec.clusterIP", invalid},
		{"taint bad effect", node(func(n *Node) { n.Spec.Taints[0].Effect = "NoEntry" }), "spec.taints[0].effect", notSupp},
		{"taint missing effect", node(func(n *Node) { n.Spec.Taints[0].Effect = "" }), "spec.taints[0].effect", required},
		{"duplicate taint", node(func(n *Node) { n.Spec.Taints = append(n.Spec.Taints, n.Spec.Taints[0]) }), "spec.taints[1]", dup},
		{"negative capacity", node(func(n *Node) { n.Status.Capacity["memory"] = resource.MustParse("-8Gi") }), "status.capacity[memory]", invalid},
		{"bad podCIDR", node(func(n *Node) { n.Spec.PodCIDR = "10.244.1.0" }), "spec.podCIDR", invalid},
		{"replicaset selector mismatch", rs(func(r *ReplicaSet) { r.Spec.Selector = &LabelSelector{MatchLabels: map[string]string{"app": "x"}} }),
			"spec.template.metadata.labels", invalid},
		{"replicaset negative replicas", rs(func(r *ReplicaSet) { r.Spec.Replicas = int32p(-3) }), "spec.replicas", invalid},
		{"namespace name with dot", &Namespace{ObjectMeta: ObjectMeta{Name: "a.b"}}, "metadata.name", invalid},
		{"endpoints bad ip", &Endpoints{ObjectMeta: ObjectMeta{Name: "e", Namespace: "default"},
			Subsets: []EndpointSubset{{Addresses: []EndpointAddress{{IP: "not-an-ip"}}}}}, "subsets[0].addresses[0].ip", invalid},
		{"endpoints empty subset", &Endpoints{ObjectMeta: ObjectMeta{Name: "e", Namespace: "default"},
			Subsets: []EndpointSubset{{Ports: []EndpointPort{{Port: 80, Protocol: ProtocolTCP}}}}}, "subsets[0]", required},
		{"binding without target", &Binding{ObjectMeta: ObjectMeta{Name: "web-0", Namespace: "default"}}, "target.name", required},
		{"binding to a pod", &Binding{ObjectMeta: ObjectMeta{Name: "web-0", Namespace: "default"},
			Target: ObjectReference{Kind: "Pod", Name: "x"}}, "target.kind", notSupp},
		{"scale negative", &Scale{ObjectMeta: ObjectMeta{Name: "m", Namespace: "default"}, Spec: ScaleSpec{Replicas: -1}}, "spec.replicas", invalid},
		{"event name uppercase", ev(func(e *Event) { e.Name = "Web-0.abc" }), "metadata.name", invalid},
		{"event without namespace", ev(func(e *Event) { e.Namespace = "" }), "metadata.namespace", required},
		{"event namespace differs from its object's", ev(func(e *Event) { e.InvolvedObject.Namespace = "team" }),
			"involvedObject.namespace", invalid},
		{"node event outside default", ev(func(e *Event) { e.Namespace = "team"; e.InvolvedObject = ObjectReference{Kind: "Node", Name: "n1"} }),
			"involvedObject.namespace", invalid},
		{"legacy node event in kube-system", ev(func(e *Event) {
			e.Namespace = "kube-system"
			e.InvolvedObject = ObjectReference{Kind: "Node", Name: "n1"}
		}), "involvedObject.namespace", invalid},
		{"event type Error", ev(func(e *Event) { e.Type = "Error" }), "type", notSupp},
		{"new event without reportingComponent", newEv(func(e *Event) { e.ReportingController = "" }), "reportingComponent", required},
		{"new event bad reportingComponent", newEv(func(e *Event) { e.ReportingController = "-sched" }), "reportingComponent", invalid},
		{"new event without reportingInstance", newEv(func(e *Event) { e.ReportingInstance = "" }), "reportingInstance", required},
		{"new event without action", newEv(func(e *Event) { e.Action = "" }), "action", required},
		{"new event without reason", newEv(func(e *Event) { e.Reason = "" }), "reason", required},
		{"new event reason too long", newEv(func(e *Event) { e.Reason = strings.Repeat("r", 129) }), "reason", invalid},
		{"new event message too long", newEv(func(e *Event) { e.Message = strings.Repeat("m", 1025) }), "message", invalid},
		{"new event action too long", newEv(func(e *Event) { e.Action = strings.Repeat("a", 129) }), "action", invalid},
		{"two controllers", dep(func(d *Deployment) {
			yes := true
			d.OwnerReferences = []OwnerReference{
				{APIVersion: "v1", Kind: "A", Name: "a", UID: "1", Controller: &yes},
				{APIVersion: "v1", Kind: "B", Name: "b", UID: "2", Controller: &yes},
			}
		}), "metadata.ownerReferences", invalid},
	}
	require.GreaterOrEqual(t, len(cases), 25)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.obj)
			require.Error(t, err)
			var se *StatusError
			require.True(t, errors.As(err, &se))
			assert.Equal(t, int32(422), se.Status.Code)
			assert.Equal(t, StatusReasonInvalid, se.Status.Reason)
			var fields []string
			for _, c := range se.Status.Details.Causes {
				fields = append(fields, fmt.Sprintf("%s %s", c.Field, c.Type))
			}
			assert.Contains(t, fields, tc.field+" "+string(tc.cause), se.Error())
		})
	}
}

func TestInvalidMessageFormat(t *testing.T) {
	d := validDeployment()
	d.Spec.Replicas = int32p(-1)
	err := Validate(d)
	require.Error(t, err)
	assert.Equal(t, `Deployment.apps "myapp" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`, err.Error())
	se, _ := statusOfErr(err)
	assert.Equal(t, "Deployment", se.Status.Details.Kind)
	assert.Equal(t, "apps", se.Status.Details.Group)
	assert.Equal(t, StatusCause{Type: CauseTypeFieldValueInvalid, Field: "spec.replicas",
		Message: "Invalid value: -1: must be greater than or equal to 0"}, se.Status.Details.Causes[0])

	// Several problems are all listed, in brackets, as Kubernetes does.
	d.Spec.Template.Spec.Containers[0].Image = ""
	err = Validate(d)
	assert.Equal(t, `Deployment.apps "myapp" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, `+
		`spec.template.spec.containers[0].image: Required value]`, err.Error())

	p := validPod()
	p.Spec.RestartPolicy = "Sometimes"
	assert.Contains(t, Validate(p).Error(),
		`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`)
}

func TestValidateRejectsNonObjects(t *testing.T) {
	assert.True(t, IsBadRequest(Validate(nil)))
	assert.True(t, IsBadRequest(Validate((*Pod)(nil))))
	assert.True(t, IsBadRequest(ValidateUpdate(nil, validPod())))
	assert.True(t, IsBadRequest(ValidateUpdate(validDeployment(), validPod())))
}

func TestValidateIsDeterministic(t *testing.T) {
	d := validDeployment()
	d.Labels = map[string]string{"-a": "x", "-b": "y", "-c": "z", "ok": "bad value"}
	first := Validate(d).Error()
	for i := 0; i < 20; i++ {
		assert.Equal(t, first, Validate(d).Error())
	}
}
