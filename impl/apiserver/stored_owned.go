package apiserver

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/converge-dev/converge/impl/api"
)

// ownedPrinter is kubectl's table for the stored kinds operators own
// (CronJob, Ingress, NetworkPolicy, PodDisruptionBudget and the RBAC
// kinds), as Kubernetes' printers print them; ok false for other kinds.
func ownedPrinter(kind string) ([]tableColumn, func(api.Object) []any, bool) {
	name := func(o api.Object) string { return api.Meta(o).Name }
	createdAt := func(o api.Object) any { return api.Meta(o).CreationTimestamp.UTC().Format(time.RFC3339) }
	switch kind {
	case "CronJob":
		return []tableColumn{col("Name", "string", 0), col("Schedule", "string", 0), col("Timezone", "string", 0),
				col("Suspend", "boolean", 0), col("Active", "integer", 0), col("Last Schedule", "string", 0),
				col("Age", "string", 0), col("Containers", "string", 1), col("Images", "string", 1), col("Selector", "string", 1)},
			func(o api.Object) []any {
				c := o.(*api.CronJob)
				tz, suspend, last := "<none>", "<unset>", "<none>"
				if c.Spec.TimeZone != nil {
					tz = *c.Spec.TimeZone
				}
				if c.Spec.Suspend != nil {
					suspend = "False"
					if *c.Spec.Suspend {
						suspend = "True"
					}
				}
				if c.Status.LastScheduleTime != nil {
					last = since(api.NewTime(c.Status.LastScheduleTime.Time))
				}
				cs, is := kubeContainersImages(c.Spec.JobTemplate.Spec.Template.Spec.Containers)
				return []any{name(o), c.Spec.Schedule, tz, suspend, int64(len(c.Status.Active)), last, age(o),
					cs, is, selectorString(c.Spec.JobTemplate.Spec.Selector)}
			}, true
	case "HorizontalPodAutoscaler":
		return []tableColumn{col("Name", "string", 0), col("Reference", "string", 0), col("Targets", "string", 0),
				col("MinPods", "string", 0), col("MaxPods", "string", 0), col("Replicas", "string", 0), col("Age", "string", 0)},
			func(o api.Object) []any {
				h := o.(*api.HorizontalPodAutoscaler)
				minPods := "<unset>"
				if h.Spec.MinReplicas != nil {
					minPods = strconv.Itoa(int(*h.Spec.MinReplicas))
				}
				return []any{name(o), h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name, hpaTargets(h),
					minPods, strconv.Itoa(int(h.Spec.MaxReplicas)), strconv.Itoa(int(h.Status.CurrentReplicas)), age(o)}
			}, true
	case "Ingress":
		return []tableColumn{col("Name", "string", 0), col("Class", "string", 0), col("Hosts", "string", 0),
				col("Address", "string", 0), col("Ports", "string", 0), col("Age", "string", 0)},
			func(o api.Object) []any {
				i := o.(*api.Ingress)
				class := "<none>"
				if i.Spec.IngressClassName != nil {
					class = *i.Spec.IngressClassName
				}
				ports := "80"
				if len(i.Spec.TLS) > 0 {
					ports = "80, 443"
				}
				return []any{name(o), class, ingressHosts(i.Spec.Rules), ingressAddress(i.Status.LoadBalancer.Ingress), ports, age(o)}
			}, true
	case "NetworkPolicy":
		return []tableColumn{col("Name", "string", 0), col("Pod-Selector", "string", 0), col("Age", "string", 0)},
			func(o api.Object) []any {
				return []any{name(o), selectorString(&o.(*api.NetworkPolicy).Spec.PodSelector), age(o)}
			}, true
	case "PodDisruptionBudget":
		return []tableColumn{col("Name", "string", 0), col("Min Available", "string", 0), col("Max Unavailable", "string", 0),
				col("Allowed Disruptions", "integer", 0), col("Age", "string", 0)},
			func(o api.Object) []any {
				p := o.(*api.PodDisruptionBudget)
				return []any{name(o), intOrNA(p.Spec.MinAvailable), intOrNA(p.Spec.MaxUnavailable), int64(p.Status.DisruptionsAllowed), age(o)}
			}, true
	case "Role", "ClusterRole":
		return []tableColumn{col("Name", "string", 0), col("Created At", "date", 0)},
			func(o api.Object) []any { return []any{name(o), createdAt(o)} }, true
	case "RoleBinding", "ClusterRoleBinding":
		return []tableColumn{col("Name", "string", 0), col("Role", "string", 0), col("Age", "string", 0),
				col("Users", "string", 1), col("Groups", "string", 1), col("ServiceAccounts", "string", 1)},
			func(o api.Object) []any {
				var ref rbacv1.RoleRef
				var subjects []rbacv1.Subject
				switch b := o.(type) {
				case *api.RoleBinding:
					ref, subjects = b.RoleRef, b.Subjects
				case *api.ClusterRoleBinding:
					ref, subjects = b.RoleRef, b.Subjects
				}
				users, groups, sas := bindingSubjects(subjects)
				return []any{name(o), ref.Kind + "/" + ref.Name, age(o), users, groups, sas}
			}, true
	}
	return nil, nil, false
}

// hpaTargets is the Targets column for the resource metrics, as
// kubectl prints them ("cpu: <unknown>/80%" until a current value is
// known); other metric types print their type.
func hpaTargets(h *api.HorizontalPodAutoscaler) string {
	var out []string
	for _, m := range h.Spec.Metrics {
		if m.Type != autoscalingv2.ResourceMetricSourceType || m.Resource == nil {
			out = append(out, string(m.Type))
			continue
		}
		current := "<unknown>"
		for _, s := range h.Status.CurrentMetrics {
			if s.Resource != nil && s.Resource.Name == m.Resource.Name {
				if u := s.Resource.Current.AverageUtilization; u != nil && m.Resource.Target.AverageUtilization != nil {
					current = strconv.Itoa(int(*u)) + "%"
				} else if v := s.Resource.Current.AverageValue; v != nil {
					current = v.String()
				}
			}
		}
		target := "<auto>"
		if u := m.Resource.Target.AverageUtilization; u != nil {
			target = strconv.Itoa(int(*u)) + "%"
		} else if v := m.Resource.Target.AverageValue; v != nil {
			target = v.String()
		}
		out = append(out, string(m.Resource.Name)+": "+current+"/"+target)
	}
	if len(out) == 0 {
		return "<none>"
	}
	return strings.Join(out, ", ")
}

func intOrNA(v *intstr.IntOrString) string {
	if v == nil {
		return "N/A"
	}
	return v.String()
}

// ingressHosts lists up to three hosts as kubectl does, "*" for none.
func ingressHosts(rules []networkingv1.IngressRule) string {
	var hosts []string
	for _, r := range rules {
		if r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	switch {
	case len(hosts) == 0:
		return "*"
	case len(hosts) > 3:
		return strings.Join(hosts[:3], ",") + fmt.Sprintf(" + %d more...", len(hosts)-3)
	}
	return strings.Join(hosts, ",")
}

func ingressAddress(lb []networkingv1.IngressLoadBalancerIngress) string {
	var out []string
	for _, i := range lb {
		if i.IP != "" {
			out = append(out, i.IP)
		} else if i.Hostname != "" {
			out = append(out, i.Hostname)
		}
	}
	return strings.Join(out, ",")
}

// bindingSubjects are a binding's users, groups and service accounts
// (namespace/name), comma-separated.
func bindingSubjects(subjects []rbacv1.Subject) (users, groups, sas string) {
	var u, g, s []string
	for _, x := range subjects {
		switch x.Kind {
		case rbacv1.UserKind:
			u = append(u, x.Name)
		case rbacv1.GroupKind:
			g = append(g, x.Name)
		case rbacv1.ServiceAccountKind:
			s = append(s, x.Namespace+"/"+x.Name)
		}
	}
	return strings.Join(u, ", "), strings.Join(g, ", "), strings.Join(s, ", ")
}
