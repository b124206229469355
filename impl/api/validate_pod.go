package api

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
)

var (
	supportedProtocols     = []Protocol{ProtocolSCTP, ProtocolTCP, ProtocolUDP}
	supportedRestart       = []RestartPolicy{RestartPolicyAlways, RestartPolicyOnFailure, RestartPolicyNever}
	supportedDNSPolicies   = []DNSPolicy{DNSClusterFirstWithHostNet, DNSClusterFirst, DNSDefault, DNSNone}
	supportedPullPolicies  = []PullPolicy{PullAlways, PullIfNotPresent, PullNever}
	supportedTermMsgPolicy = []string{"File", "FallbackToLogsOnError"}
	supportedTaintEffects  = []TaintEffect{TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute}
)

func validatePodSpec(e *errs, s *PodSpec, p fieldPath) {
	validateContainers(e, s.Containers, p.child("containers"))
	validateSchedulingGates(e, s.SchedulingGates, p.child("schedulingGates"))
	switch s.RestartPolicy {
	case RestartPolicyAlways, RestartPolicyOnFailure, RestartPolicyNever:
	case "":
		e.required(p.child("restartPolicy"), "")
	default:
		notSupported(e, p.child("restartPolicy"), string(s.RestartPolicy), supportedRestart)
	}
	switch s.DNSPolicy {
	case DNSClusterFirstWithHostNet, DNSClusterFirst, DNSDefault, DNSNone:
	case "":
		e.required(p.child("dnsPolicy"), "")
	default:
		notSupported(e, p.child("dnsPolicy"), string(s.DNSPolicy), supportedDNSPolicies)
	}
	validateLabels(e, s.NodeSelector, p.child("nodeSelector"))
	if s.NodeName != "" {
		e.invalidEach(p.child("nodeName"), s.NodeName, dns1123Subdomain(s.NodeName))
	}
	if s.ServiceAccountName != "" {
		e.invalidEach(p.child("serviceAccountName"), s.ServiceAccountName, dns1123Subdomain(s.ServiceAccountName))
	}
	if s.Hostname != "" {
		e.invalidEach(p.child("hostname"), s.Hostname, dns1123Label(s.Hostname))
	}
	if s.Subdomain != "" {
		e.invalidEach(p.child("subdomain"), s.Subdomain, dns1123Label(s.Subdomain))
	}
	if s.TerminationGracePeriodSeconds != nil {
		e.nonNegative(p.child("terminationGracePeriodSeconds"), *s.TerminationGracePeriodSeconds)
	}
	if s.ActiveDeadlineSeconds != nil && *s.ActiveDeadlineSeconds < 1 {
		e.invalid(p.child("activeDeadlineSeconds"), *s.ActiveDeadlineSeconds, "must be between 1 and 2147483647, inclusive")
	}
	if s.SchedulerName != "" {
		e.invalidEach(p.child("schedulerName"), s.SchedulerName, dns1123Subdomain(s.SchedulerName))
	}
	validateTolerations(e, s.Tolerations, p.child("tolerations"))
	validateVolumes(e, s, p)
	if s.OS != nil {
		switch s.OS.Name {
		case corev1.Linux, corev1.Windows:
		case "":
			e.required(p.child("os", "name"), "")
		default:
			notSupported(e, p.child("os", "name"), string(s.OS.Name), []corev1.OSName{corev1.Linux, corev1.Windows})
		}
	}
}

// validateResizePolicy: one policy per resource, cpu or memory, each
// NotRequired or RestartContainer, with upstream's messages.
func validateResizePolicy(e *errs, ps []corev1.ContainerResizePolicy, p fieldPath) {
	seen := map[corev1.ResourceName]bool{}
	for i, rp := range ps {
		ip := p.index(i)
		switch rp.ResourceName {
		case corev1.ResourceCPU, corev1.ResourceMemory:
			if seen[rp.ResourceName] {
				e.duplicate(ip, rp.ResourceName)
			}
			seen[rp.ResourceName] = true
		default:
			notSupported(e, ip.child("resourceName"), string(rp.ResourceName), []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory})
		}
		switch rp.RestartPolicy {
		case corev1.NotRequired, corev1.RestartContainer:
		case "":
			e.required(ip.child("restartPolicy"), "")
		default:
			notSupported(e, ip.child("restartPolicy"), string(rp.RestartPolicy), []corev1.ResourceResizeRestartPolicy{corev1.NotRequired, corev1.RestartContainer})
		}
	}
}

// validateVolumes checks what a pod's volumes and its containers' mounts
// must agree on, with upstream's messages: named, unique volumes; unique
// container names across init and app containers; mounts of volumes that
// exist, at a path.
func validateVolumes(e *errs, s *PodSpec, p fieldPath) {
	volumes := map[string]bool{}
	for i, v := range s.Volumes {
		vp := p.child("volumes").index(i).child("name")
		switch {
		case v.Name == "":
			e.required(vp, "")
		case volumes[v.Name]:
			e.duplicate(vp, v.Name)
		default:
			e.invalidEach(vp, v.Name, dns1123Label(v.Name))
		}
		volumes[v.Name] = true
	}
	names := map[string]bool{}
	for _, c := range s.Containers {
		names[c.Name] = true
	}
	mounts := func(ms []corev1.VolumeMount, mp fieldPath) {
		paths := map[string]bool{}
		for j, m := range ms {
			switch {
			case m.Name == "":
				e.required(mp.index(j).child("name"), "")
			case !volumes[m.Name]:
				e.add(FieldNotFound(mp.index(j).child("name").String(), m.Name))
			}
			switch {
			case m.MountPath == "":
				e.required(mp.index(j).child("mountPath"), "")
			case paths[m.MountPath]:
				e.invalid(mp.index(j).child("mountPath"), m.MountPath, "must be unique")
			}
			paths[m.MountPath] = true
		}
	}
	for i, c := range s.InitContainers {
		cp := p.child("initContainers").index(i)
		switch {
		case c.Name == "":
			e.required(cp.child("name"), "")
		case names[c.Name]:
			e.duplicate(cp.child("name"), c.Name)
		}
		names[c.Name] = true
		if c.Image == "" {
			e.required(cp.child("image"), "")
		}
		mounts(c.VolumeMounts, cp.child("volumeMounts"))
	}
	for i, c := range s.Containers {
		mounts(c.VolumeMounts, p.child("containers").index(i).child("volumeMounts"))
	}
}

// validateSchedulingGates checks the gates' names as upstream does:
// qualified names, each once.
func validateSchedulingGates(e *errs, gates []corev1.PodSchedulingGate, p fieldPath) {
	seen := map[string]bool{}
	for i, g := range gates {
		e.invalidEach(p.index(i), g.Name, validation.IsQualifiedName(g.Name))
		if seen[g.Name] {
			e.duplicate(p.index(i), g.Name)
		}
		seen[g.Name] = true
	}
}

// validateSchedulingGatesUpdate lets an update remove scheduling gates,
// never add one: a gate is set when the pod is made.
func validateSchedulingGatesUpdate(e *errs, old, gates []corev1.PodSchedulingGate) {
	had := map[string]bool{}
	for _, g := range old {
		had[g.Name] = true
	}
	for _, g := range gates {
		if !had[g.Name] {
			e.forbidden("spec.schedulingGates", fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", g.Name))
		}
	}
}

func validateContainers(e *errs, cs []Container, p fieldPath) {
	if len(cs) == 0 {
		e.required(p, "")
		return
	}
	names := map[string]bool{}
	portNames := map[string]bool{}
	for i := range cs {
		c := &cs[i]
		ip := p.index(i)
		np := ip.child("name")
		if c.Name == "" {
			e.required(np, "")
		} else {
			e.invalidEach(np, c.Name, dns1123Label(c.Name))
		}
		if names[c.Name] {
			e.duplicate(np, c.Name)
		}
		names[c.Name] = true
		if c.Image == "" {
			e.required(ip.child("image"), "")
		} else if strings.TrimSpace(c.Image) != c.Image {
			e.invalid(ip.child("image"), c.Image, "must not have leading or trailing whitespace")
		}
		validateContainerPorts(e, c.Ports, ip.child("ports"), portNames)
		for j, env := range c.Env {
			ep := ip.child("env").index(j).child("name")
			if env.Name == "" {
				e.required(ep, "")
			} else {
				// Relaxed, as kube-apiserver since RelaxedEnvironmentVariableValidation
				// went GA (1.34): any printable ASCII but '='.
				e.invalidEach(ep, env.Name, validation.IsRelaxedEnvVarName(env.Name))
			}
		}
		validateResources(e, &c.Resources, ip.child("resources"))
		validateResizePolicy(e, c.ResizePolicy, ip.child("resizePolicy"))
		validateProbe(e, c.LivenessProbe, ip.child("livenessProbe"), true)
		validateProbe(e, c.ReadinessProbe, ip.child("readinessProbe"), false)
		validateProbe(e, c.StartupProbe, ip.child("startupProbe"), true)
		if c.ReadinessProbe != nil && c.ReadinessProbe.TerminationGracePeriodSeconds != nil {
			e.invalid(ip.child("readinessProbe", "terminationGracePeriodSeconds"), *c.ReadinessProbe.TerminationGracePeriodSeconds, "must not be set for readinessProbes")
		}
		switch c.ImagePullPolicy {
		case PullAlways, PullIfNotPresent, PullNever:
		case "":
			e.required(ip.child("imagePullPolicy"), "")
		default:
			notSupported(e, ip.child("imagePullPolicy"), string(c.ImagePullPolicy), supportedPullPolicies)
		}
		switch c.TerminationMessagePolicy {
		case "File", "FallbackToLogsOnError":
		case "":
			e.required(ip.child("terminationMessagePolicy"), "")
		default:
			notSupported(e, ip.child("terminationMessagePolicy"), c.TerminationMessagePolicy, supportedTermMsgPolicy)
		}
	}
}

// validateContainerPorts checks one container's ports; port names must be
// unique across the whole pod, so the set is shared.
func validateContainerPorts(e *errs, ports []ContainerPort, p fieldPath, names map[string]bool) {
	for i, port := range ports {
		ip := p.index(i)
		if port.Name != "" {
			if msgs := validation.IsValidPortName(port.Name); len(msgs) > 0 {
				e.invalidEach(ip.child("name"), port.Name, msgs)
			} else if names[port.Name] {
				e.duplicate(ip.child("name"), port.Name)
			} else {
				names[port.Name] = true
			}
		}
		if port.ContainerPort == 0 {
			e.required(ip.child("containerPort"), "")
		} else {
			e.invalidEach(ip.child("containerPort"), int64(port.ContainerPort), validation.IsValidPortNum(int(port.ContainerPort)))
		}
		if port.HostPort != 0 {
			e.invalidEach(ip.child("hostPort"), int64(port.HostPort), validation.IsValidPortNum(int(port.HostPort)))
		}
		validateProtocol(e, port.Protocol, ip.child("protocol"))
	}
}

func validateProtocol(e *errs, proto Protocol, p fieldPath) {
	switch proto {
	case ProtocolTCP, ProtocolUDP, ProtocolSCTP:
	case "":
		e.required(p, "")
	default:
		notSupported(e, p, string(proto), supportedProtocols)
	}
}

// standardContainerResources are the unprefixed resource names a container
// may request.
var standardContainerResources = map[string]bool{"cpu": true, "memory": true, "ephemeral-storage": true}

func validateResources(e *errs, r *ResourceRequirements, p fieldPath) {
	limits := ResourceList{}
	for _, name := range slices.Sorted(maps.Keys(r.Limits)) {
		if q, ok := validateResourceEntry(e, name, r.Limits[name], p.child("limits").key(string(name))); ok {
			limits[name] = q
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Requests)) {
		rp := p.child("requests").key(string(name))
		q, ok := validateResourceEntry(e, name, r.Requests[name], rp)
		if !ok {
			continue
		}
		if l, has := limits[name]; has && q.Cmp(l) > 0 {
			e.invalid(rp, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, l.String()))
		}
	}
}

func validateResourceEntry(e *errs, name corev1.ResourceName, q Quantity, p fieldPath) (Quantity, bool) {
	ok := true
	if n := string(name); !strings.Contains(n, "/") && !standardContainerResources[n] && !strings.HasPrefix(n, "hugepages-") {
		e.invalid(p, n, "must be a standard resource type or fully qualified")
		ok = false
	} else if msgs := content.IsLabelKey(n); len(msgs) > 0 {
		e.invalidEach(p, n, msgs)
		ok = false
	}
	if q.Sign() < 0 {
		e.invalid(p, q.String(), "must be greater than or equal to 0")
		return q, false
	}
	return q, ok
}

func validateProbe(e *errs, pr *Probe, p fieldPath, successMustBeOne bool) {
	if pr == nil {
		return
	}
	handlers := 0
	if pr.Exec != nil {
		handlers++
		if len(pr.Exec.Command) == 0 {
			e.required(p.child("exec", "command"), "")
		}
	}
	if pr.HTTPGet != nil {
		if handlers > 0 {
			e.forbidden(p.child("httpGet"), "may not specify more than 1 handler type")
		} else {
			handlers++
			validateHTTPGet(e, pr.HTTPGet, p.child("httpGet"))
		}
	}
	if pr.TCPSocket != nil {
		if handlers > 0 {
			e.forbidden(p.child("tcpSocket"), "may not specify more than 1 handler type")
		} else {
			handlers++
			validatePortNumOrName(e, pr.TCPSocket.Port, p.child("tcpSocket", "port"))
		}
	}
	if pr.GRPC != nil {
		if handlers > 0 {
			e.forbidden(p.child("grpc"), "may not specify more than 1 handler type")
		} else {
			handlers++
			validatePortNumOrName(e, FromInt32(pr.GRPC.Port), p.child("grpc", "port"))
		}
	}
	if handlers == 0 {
		e.required(p, "must specify a handler type")
	}
	e.nonNegative(p.child("initialDelaySeconds"), int64(pr.InitialDelaySeconds))
	e.nonNegative(p.child("timeoutSeconds"), int64(pr.TimeoutSeconds))
	e.nonNegative(p.child("periodSeconds"), int64(pr.PeriodSeconds))
	e.nonNegative(p.child("successThreshold"), int64(pr.SuccessThreshold))
	e.nonNegative(p.child("failureThreshold"), int64(pr.FailureThreshold))
	if successMustBeOne && pr.SuccessThreshold != 0 && pr.SuccessThreshold != 1 {
		e.invalid(p.child("successThreshold"), int64(pr.SuccessThreshold), "must be 1")
	}
}

func validateHTTPGet(e *errs, h *HTTPGetAction, p fieldPath) {
	if h.Path == "" {
		e.required(p.child("path"), "")
	}
	validatePortNumOrName(e, h.Port, p.child("port"))
	switch h.Scheme {
	case "HTTP", "HTTPS":
	case "":
		e.required(p.child("scheme"), "")
	default:
		notSupported(e, p.child("scheme"), h.Scheme, []string{"HTTP", "HTTPS"})
	}
}

// validatePortNumOrName accepts a port number or an IANA service name.
func validatePortNumOrName(e *errs, port IntOrString, p fieldPath) {
	if port.Type == StringValue {
		e.invalidEach(p, port.StrVal, validation.IsValidPortName(port.StrVal))
		return
	}
	e.invalidEach(p, int64(port.IntVal), validation.IsValidPortNum(int(port.IntVal)))
}

func validateTolerations(e *errs, ts []Toleration, p fieldPath) {
	for i, t := range ts {
		ip := p.index(i)
		if t.Key != "" {
			e.invalidEach(ip.child("key"), t.Key, content.IsLabelKey(t.Key))
		}
		if t.Key == "" && t.Operator != TolerationOpExists {
			e.invalid(ip.child("operator"), string(t.Operator), "operator must be Exists when `key` is empty, which means \"match all values and all keys\"")
		}
		if t.TolerationSeconds != nil && t.Effect != TaintEffectNoExecute {
			e.invalid(ip.child("effect"), string(t.Effect), "effect must be 'NoExecute' when `tolerationSeconds` is set")
		}
		switch t.Operator {
		case TolerationOpEqual, "":
			if msgs := content.IsLabelValue(t.Value); len(msgs) > 0 {
				e.invalid(ip.child("operator"), t.Value, strings.Join(msgs, ";"))
			}
		case TolerationOpExists:
			if t.Value != "" {
				e.invalid(ip.child("operator"), t, "value must be empty when `operator` is 'Exists'")
			}
		default:
			notSupported(e, ip.child("operator"), string(t.Operator), []TolerationOperator{TolerationOpEqual, TolerationOpExists})
		}
		if t.Effect != "" {
			validateTaintEffect(e, t.Effect, ip.child("effect"))
		}
	}
}

func validateTaintEffect(e *errs, eff TaintEffect, p fieldPath) {
	switch eff {
	case TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute:
	case "":
		e.required(p, "")
	default:
		notSupported(e, p, string(eff), supportedTaintEffects)
	}
}
