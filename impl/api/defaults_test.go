package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestDefaultDeployment(t *testing.T) {
	d := &Deployment{
		ObjectMeta: ObjectMeta{Name: "myapp"},
		Spec: DeploymentSpec{
			Selector: &LabelSelector{MatchLabels: map[string]string{"app": "myapp"}},
			Template: PodTemplateSpec{
				ObjectMeta: ObjectMeta{Labels: map[string]string{"app": "myapp"}},
				Spec: PodSpec{Containers: []Container{
					{Name: "a", Image: "nginx:1.27", Ports: []ContainerPort{{ContainerPort: 80}}},
					{Name: "b", Image: "busybox"},
				}},
			},
		},
	}
	Default(d)
	assert.Equal(t, "default", d.Namespace)
	assert.Equal(t, int32(1), *d.Spec.Replicas)
	assert.Equal(t, RollingUpdateDeploymentStrategyType, d.Spec.Strategy.Type)
	assert.Equal(t, FromString("25%"), *d.Spec.Strategy.RollingUpdate.MaxSurge)
	assert.Equal(t, FromString("25%"), *d.Spec.Strategy.RollingUpdate.MaxUnavailable)
	assert.Equal(t, int32(10), *d.Spec.RevisionHistoryLimit)
	assert.Equal(t, int32(600), *d.Spec.ProgressDeadlineSeconds)
	ps := d.Spec.Template.Spec
	assert.Equal(t, RestartPolicyAlways, ps.RestartPolicy)
	assert.Equal(t, int64(30), *ps.TerminationGracePeriodSeconds)
	assert.Equal(t, DNSClusterFirst, ps.DNSPolicy)
	assert.Equal(t, "default-scheduler", ps.SchedulerName)
	assert.NotNil(t, ps.SecurityContext)
	assert.Equal(t, PullIfNotPresent, ps.Containers[0].ImagePullPolicy)
	assert.Equal(t, PullAlways, ps.Containers[1].ImagePullPolicy)
	assert.Equal(t, ProtocolTCP, ps.Containers[0].Ports[0].Protocol)
	assert.Equal(t, "/dev/termination-log", ps.Containers[0].TerminationMessagePath)
	assert.EqualValues(t, "File", ps.Containers[0].TerminationMessagePolicy)
	require.NoError(t, Validate(d))

	again := DeepCopy(d)
	Default(again)
	assert.Equal(t, d, again, "Default is idempotent")
}

func TestDefaultKeepsExplicitValues(t *testing.T) {
	d := validDeployment()
	d.Spec.Replicas = int32p(0)
	d.Spec.Strategy = DeploymentStrategy{Type: RecreateDeploymentStrategyType}
	d.Namespace = "prod"
	d.Spec.Template.Spec.Containers[0].ImagePullPolicy = PullNever
	Default(d)
	assert.Equal(t, int32(0), *d.Spec.Replicas)
	assert.Nil(t, d.Spec.Strategy.RollingUpdate, "Recreate gets no rollingUpdate")
	assert.Equal(t, "prod", d.Namespace)
	assert.Equal(t, PullNever, d.Spec.Template.Spec.Containers[0].ImagePullPolicy)
	assert.NoError(t, Validate(d))
}

func TestDefaultOtherKinds(t *testing.T) {
	s := &Service{ObjectMeta: ObjectMeta{Name: "web"}, Spec: ServiceSpec{Ports: []ServicePort{
		{Name: "http", Port: 80}, {Name: "metrics", Port: 9090, TargetPort: FromString("metrics"), Protocol: ProtocolUDP},
	}}}
	Default(s)
	assert.Equal(t, ServiceTypeClusterIP, s.Spec.Type)
	assert.EqualValues(t, "None", s.Spec.SessionAffinity)
	assert.Equal(t, ProtocolTCP, s.Spec.Ports[0].Protocol)
	assert.Equal(t, FromInt32(80), s.Spec.Ports[0].TargetPort)
	assert.Equal(t, FromString("metrics"), s.Spec.Ports[1].TargetPort)
	assert.Equal(t, ProtocolUDP, s.Spec.Ports[1].Protocol)

	rs := &ReplicaSet{}
	Default(rs)
	assert.Equal(t, int32(1), *rs.Spec.Replicas)
	assert.Equal(t, "default", rs.Namespace)

	n := &Node{ObjectMeta: ObjectMeta{Name: "n"}, Status: NodeStatus{Capacity: ResourceList{"cpu": resource.MustParse("2")}}}
	Default(n)
	assert.Empty(t, n.Namespace, "nodes are cluster-scoped")
	assert.Equal(t, ResourceList{"cpu": resource.MustParse("2")}, n.Status.Allocatable)
	n.Status.Capacity["cpu"] = resource.MustParse("4")
	alloc := n.Status.Allocatable["cpu"]
	assert.Equal(t, "2", alloc.String(), "allocatable is a copy")

	ns := &Namespace{ObjectMeta: ObjectMeta{Name: "prod"}}
	Default(ns)
	assert.EqualValues(t, NamespaceActive, ns.Status.Phase)

	p := &Pod{Spec: PodSpec{Containers: []Container{{Name: "c", Image: "x:1",
		LivenessProbe: &Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &HTTPGetAction{Port: FromInt32(8080)}}}}}}}
	Default(p)
	pr := p.Spec.Containers[0].LivenessProbe
	assert.Equal(t, "/", pr.HTTPGet.Path)
	assert.EqualValues(t, "HTTP", pr.HTTPGet.Scheme)
	assert.Equal(t, [4]int32{1, 10, 1, 3}, [4]int32{pr.TimeoutSeconds, pr.PeriodSeconds, pr.SuccessThreshold, pr.FailureThreshold})

	ep := &Endpoints{Subsets: []EndpointSubset{{Ports: []EndpointPort{{Port: 80}}}}}
	Default(ep)
	assert.Equal(t, ProtocolTCP, ep.Subsets[0].Ports[0].Protocol)

	for _, o := range []Object{nil, (*Pod)(nil), (*Deployment)(nil), &Binding{}, &Scale{}} {
		assert.NotPanics(t, func() { Default(o) }, "%T", o)
	}
}

func TestDefaultPullPolicy(t *testing.T) {
	for image, want := range map[string]PullPolicy{
		"nginx":                       PullAlways,
		"nginx:latest":                PullAlways,
		"nginx:1.27":                  PullIfNotPresent,
		"localhost:5000/nginx":        PullAlways,
		"localhost:5000/nginx:1.27":   PullIfNotPresent,
		"registry.io/team/app:latest": PullAlways,
		"nginx@sha256:abcdef":         PullIfNotPresent,
		"":                            PullAlways,
	} {
		assert.Equal(t, want, DefaultPullPolicy(image), image)
	}
}

// TestDefaultGRPCProbeService: a gRPC probe's service defaults to "", as
// upstream's declarative default fills it.
func TestDefaultGRPCProbeService(t *testing.T) {
	p := &Pod{ObjectMeta: ObjectMeta{Name: "p"}, Spec: PodSpec{Containers: []Container{{Name: "c", Image: "x:1",
		LivenessProbe: &Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9090}}}}}}}
	Default(p)
	require.NotNil(t, p.Spec.Containers[0].LivenessProbe.GRPC.Service)
	assert.Equal(t, "", *p.Spec.Containers[0].LivenessProbe.GRPC.Service)
}

// TestDefaultServiceAccountAlias: serviceAccount is serviceAccountName's
// deprecated alias, taken when the name is unset and served equal to it.
func TestDefaultServiceAccountAlias(t *testing.T) {
	for _, c := range []struct{ name, deprecated, want string }{
		{"", "legacy", "legacy"},
		{"webapp", "", "webapp"},
		{"webapp", "legacy", "webapp"},
		{"", "", ""},
	} {
		p := &Pod{ObjectMeta: ObjectMeta{Name: "p"}, Spec: PodSpec{ServiceAccountName: c.name, DeprecatedServiceAccount: c.deprecated,
			Containers: []Container{{Name: "c", Image: "x:1"}}}}
		Default(p)
		assert.Equal(t, c.want, p.Spec.ServiceAccountName, c)
		assert.Equal(t, c.want, p.Spec.DeprecatedServiceAccount, c)
	}
}

// TestDefaultServiceTraffic: upstream's Service defaults for traffic
// policies, client-IP affinity and load balancer node ports.
func TestDefaultServiceTraffic(t *testing.T) {
	lb := &Service{ObjectMeta: ObjectMeta{Name: "lb"}, Spec: ServiceSpec{Type: ServiceTypeLoadBalancer, SessionAffinity: "ClientIP",
		Ports: []ServicePort{{Port: 443}}}}
	Default(lb)
	assert.Equal(t, corev1.ServiceExternalTrafficPolicyCluster, lb.Spec.ExternalTrafficPolicy)
	assert.Equal(t, corev1.ServiceInternalTrafficPolicyCluster, *lb.Spec.InternalTrafficPolicy)
	assert.True(t, *lb.Spec.AllocateLoadBalancerNodePorts)
	assert.Equal(t, int32(10800), *lb.Spec.SessionAffinityConfig.ClientIP.TimeoutSeconds)
	require.NoError(t, Validate(lb))
	ext := &Service{ObjectMeta: ObjectMeta{Name: "ext"}, Spec: ServiceSpec{Type: ServiceTypeExternalName, ExternalName: "db.example.com"}}
	Default(ext)
	assert.Equal(t, corev1.ServiceExternalTrafficPolicy(""), ext.Spec.ExternalTrafficPolicy)
	assert.Nil(t, ext.Spec.InternalTrafficPolicy)
	assert.Nil(t, ext.Spec.AllocateLoadBalancerNodePorts)
	require.NoError(t, Validate(ext))
}

// TestDefaultPodSpecDetails: upstream's SetDefaults_HTTPGetAction,
// SetDefaults_ObjectFieldSelector and
// SetDefaults_ServiceAccountTokenProjection reach lifecycle hooks and
// volumes, not only probes and env.
func TestDefaultPodSpecDetails(t *testing.T) {
	field := func() *corev1.ObjectFieldSelector { return &corev1.ObjectFieldSelector{FieldPath: "metadata.name"} }
	p := &Pod{Spec: PodSpec{
		Containers: []Container{{Name: "c", Image: "x:1", Lifecycle: &corev1.Lifecycle{
			PostStart: &corev1.LifecycleHandler{HTTPGet: &HTTPGetAction{Port: FromInt32(80)}},
			PreStop:   &corev1.LifecycleHandler{HTTPGet: &HTTPGetAction{Port: FromInt32(80), Path: "/quit"}},
		}}},
		Volumes: []corev1.Volume{
			{Name: "info", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items: []corev1.DownwardAPIVolumeFile{{Path: "name", FieldRef: field()}}}}},
			{Name: "all", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "name", FieldRef: field()}}}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "short", ExpirationSeconds: ptr[int64](600)}},
			}}}},
		},
	}}
	Default(p)
	l := p.Spec.Containers[0].Lifecycle
	assert.Equal(t, "/", l.PostStart.HTTPGet.Path)
	assert.Equal(t, corev1.URISchemeHTTP, l.PostStart.HTTPGet.Scheme)
	assert.Equal(t, "/quit", l.PreStop.HTTPGet.Path, "an explicit path stays")
	assert.Equal(t, corev1.URISchemeHTTP, l.PreStop.HTTPGet.Scheme)
	assert.Equal(t, "v1", p.Spec.Volumes[0].DownwardAPI.Items[0].FieldRef.APIVersion)
	src := p.Spec.Volumes[1].Projected.Sources
	assert.Equal(t, "v1", src[0].DownwardAPI.Items[0].FieldRef.APIVersion)
	assert.Equal(t, int64(3600), *src[1].ServiceAccountToken.ExpirationSeconds)
	assert.Equal(t, int64(600), *src[2].ServiceAccountToken.ExpirationSeconds, "an explicit expiry stays")
}

// TestDefaultHeadlessClusterIPs: a headless Service reads back with
// clusterIPs ["None"], as upstream's service strategy fills them.
func TestDefaultHeadlessClusterIPs(t *testing.T) {
	s := &Service{ObjectMeta: ObjectMeta{Name: "db"}, Spec: ServiceSpec{ClusterIP: "None"}}
	Default(s)
	assert.Equal(t, []string{"None"}, s.Spec.ClusterIPs)
	e := &Service{ObjectMeta: ObjectMeta{Name: "ext"}, Spec: ServiceSpec{Type: ServiceTypeExternalName, ExternalName: "example.com"}}
	Default(e)
	assert.Nil(t, e.Spec.ClusterIPs, "an ExternalName Service has no cluster IP")
}

// TestDefaultJobPodFailurePolicy: SetDefaults_Job makes an
// onPodConditions pattern match a True condition unless it says
// otherwise.
func TestDefaultJobPodFailurePolicy(t *testing.T) {
	j := &Job{Spec: batchv1.JobSpec{PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action: batchv1.PodFailurePolicyActionIgnore,
		OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
			{Type: corev1.DisruptionTarget}, {Type: "Custom", Status: corev1.ConditionFalse}},
	}}}}}
	Default(j)
	c := j.Spec.PodFailurePolicy.Rules[0].OnPodConditions
	assert.Equal(t, corev1.ConditionTrue, c[0].Status)
	assert.Equal(t, corev1.ConditionFalse, c[1].Status)
}
