package api

import corev1 "k8s.io/api/core/v1"

// Defaults of a pod spec, wherever one is (a Pod, a workload's template),
// as upstream's core/v1 SetDefaults_* functions fill them.

// defaultKubePodSpec fills a pod spec, its containers and its volumes.
func defaultKubePodSpec(s *corev1.PodSpec) {
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr[int64](DefaultTerminationGracePeriodSeconds)
	}
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.SchedulerName == "" {
		s.SchedulerName = DefaultSchedulerName
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	s.ServiceAccountName, s.DeprecatedServiceAccount = serviceAccountAlias(s.ServiceAccountName, s.DeprecatedServiceAccount)
	for i := range s.InitContainers {
		defaultKubeContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		defaultKubeContainer(&s.Containers[i])
	}
	for i := range s.Volumes {
		defaultKubeVolume(&s.Volumes[i].VolumeSource)
	}
}

func defaultKubeContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullPolicy(DefaultPullPolicy(c.Image))
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = DefaultTerminationMessagePath
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			defaultFieldRef(e.ValueFrom.FieldRef)
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultKubeProbe(p)
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

// defaultFieldRef: SetDefaults_ObjectFieldSelector, for env, downwardAPI
// and projected volumes alike.
func defaultFieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// defaultHTTPGet: SetDefaults_HTTPGetAction, for probes and lifecycle
// hooks alike.
func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

func defaultKubeProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	defaultHTTPGet(p.HTTPGet)
	defaultGRPC(p.GRPC)
}

// defaultGRPC: a gRPC probe's service is "" (the server's overall health)
// when unset, as upstream's declarative default (+default="") fills it.
func defaultGRPC(g *corev1.GRPCAction) {
	if g != nil && g.Service == nil {
		g.Service = ptr("")
	}
}

// defaultKubeVolume: a volume with no source is an emptyDir; mounted
// files get mode 0644; a hostPath's type is "" (unset).
func defaultKubeVolume(v *corev1.VolumeSource) {
	const mode = int32(0o644)
	switch {
	case v.HostPath != nil:
		if v.HostPath.Type == nil {
			v.HostPath.Type = ptr(corev1.HostPathUnset)
		}
	case v.ConfigMap != nil:
		if v.ConfigMap.DefaultMode == nil {
			v.ConfigMap.DefaultMode = ptr(mode)
		}
	case v.Secret != nil:
		if v.Secret.DefaultMode == nil {
			v.Secret.DefaultMode = ptr(mode)
		}
	case v.DownwardAPI != nil:
		if v.DownwardAPI.DefaultMode == nil {
			v.DownwardAPI.DefaultMode = ptr(mode)
		}
		for _, f := range v.DownwardAPI.Items {
			defaultFieldRef(f.FieldRef)
		}
	case v.Projected != nil:
		if v.Projected.DefaultMode == nil {
			v.Projected.DefaultMode = ptr(mode)
		}
		for _, p := range v.Projected.Sources {
			defaultProjection(p)
		}
	case *v == (corev1.VolumeSource{}):
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
}

// defaultProjection: a projected volume's downwardAPI items get their
// fieldRef's apiVersion, and a service account token lasts an hour
// (SetDefaults_ServiceAccountTokenProjection).
func defaultProjection(p corev1.VolumeProjection) {
	if p.DownwardAPI != nil {
		for _, f := range p.DownwardAPI.Items {
			defaultFieldRef(f.FieldRef)
		}
	}
	if t := p.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
		t.ExpirationSeconds = ptr[int64](3600)
	}
}
