package api

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// More stored-only kinds, those operators most often own beside the
// workloads: CronJobs, HorizontalPodAutoscalers, Ingresses,
// NetworkPolicies, PodDisruptionBudgets, and the RBAC kinds (Roles, ClusterRoles and their bindings). No
// controller of converge acts on them; they are stored and served as
// envtest serves them, so that an operator that writes them runs. Their
// bodies are k8s.io/api's own types.

// CronJob is batch/v1 CronJob.
type CronJob = batchv1.CronJob

// CronJobList is batch/v1 CronJobList.
type CronJobList = batchv1.CronJobList

// HorizontalPodAutoscaler is autoscaling/v2 HorizontalPodAutoscaler.
type HorizontalPodAutoscaler = autoscalingv2.HorizontalPodAutoscaler

// HorizontalPodAutoscalerList is autoscaling/v2 HorizontalPodAutoscalerList.
type HorizontalPodAutoscalerList = autoscalingv2.HorizontalPodAutoscalerList

// Ingress is networking.k8s.io/v1 Ingress.
type Ingress = networkingv1.Ingress

// IngressList is networking.k8s.io/v1 IngressList.
type IngressList = networkingv1.IngressList

// NetworkPolicy is networking.k8s.io/v1 NetworkPolicy.
type NetworkPolicy = networkingv1.NetworkPolicy

// NetworkPolicyList is networking.k8s.io/v1 NetworkPolicyList.
type NetworkPolicyList = networkingv1.NetworkPolicyList

// PodDisruptionBudget is policy/v1 PodDisruptionBudget.
type PodDisruptionBudget = policyv1.PodDisruptionBudget

// PodDisruptionBudgetList is policy/v1 PodDisruptionBudgetList.
type PodDisruptionBudgetList = policyv1.PodDisruptionBudgetList

// Role is rbac.authorization.k8s.io/v1 Role.
type Role = rbacv1.Role

// RoleList is rbac.authorization.k8s.io/v1 RoleList.
type RoleList = rbacv1.RoleList

// ClusterRole is rbac.authorization.k8s.io/v1 ClusterRole.
type ClusterRole = rbacv1.ClusterRole

// ClusterRoleList is rbac.authorization.k8s.io/v1 ClusterRoleList.
type ClusterRoleList = rbacv1.ClusterRoleList

// RoleBinding is rbac.authorization.k8s.io/v1 RoleBinding.
type RoleBinding = rbacv1.RoleBinding

// RoleBindingList is rbac.authorization.k8s.io/v1 RoleBindingList.
type RoleBindingList = rbacv1.RoleBindingList

// ClusterRoleBinding is rbac.authorization.k8s.io/v1 ClusterRoleBinding.
type ClusterRoleBinding = rbacv1.ClusterRoleBinding

// ClusterRoleBindingList is rbac.authorization.k8s.io/v1 ClusterRoleBindingList.
type ClusterRoleBindingList = rbacv1.ClusterRoleBindingList

// Groups of these kinds.
const (
	NetworkingGroup = "networking.k8s.io"
	PolicyGroup     = "policy"
	RBACGroup       = "rbac.authorization.k8s.io"
)

// ownedEntries are the resource table's rows for these kinds, with
// upstream's short names, categories and subresources.
var ownedEntries = []entry{
	{ResourceInfo{Resource: "cronjobs", Singular: "cronjob", Kind: "CronJob", ListKind: "CronJobList",
		Group: "batch", Version: "v1", Namespaced: true, ShortNames: []string{"cj"}, Verbs: standardVerbs,
		Categories: []string{"all"}, Subresources: []Subresource{statusOf("CronJob", "batch")}},
		func() Object { return &CronJob{} }, func() ListObject { return &CronJobList{} }},
	{ResourceInfo{Resource: "horizontalpodautoscalers", Singular: "horizontalpodautoscaler", Kind: "HorizontalPodAutoscaler",
		ListKind: "HorizontalPodAutoscalerList", Group: "autoscaling", Version: "v2", Namespaced: true, ShortNames: []string{"hpa"},
		Verbs: standardVerbs, Categories: []string{"all"}, Subresources: []Subresource{{Name: "status", Kind: "HorizontalPodAutoscaler", Group: "autoscaling", Version: "v2", Verbs: statusVerbs}}},
		func() Object { return &HorizontalPodAutoscaler{} }, func() ListObject { return &HorizontalPodAutoscalerList{} }},
	{ResourceInfo{Resource: "ingresses", Singular: "ingress", Kind: "Ingress", ListKind: "IngressList",
		Group: NetworkingGroup, Version: "v1", Namespaced: true, ShortNames: []string{"ing"}, Verbs: standardVerbs,
		Subresources: []Subresource{statusOf("Ingress", NetworkingGroup)}},
		func() Object { return &Ingress{} }, func() ListObject { return &IngressList{} }},
	{ResourceInfo{Resource: "networkpolicies", Singular: "networkpolicy", Kind: "NetworkPolicy", ListKind: "NetworkPolicyList",
		Group: NetworkingGroup, Version: "v1", Namespaced: true, ShortNames: []string{"netpol"}, Verbs: standardVerbs},
		func() Object { return &NetworkPolicy{} }, func() ListObject { return &NetworkPolicyList{} }},
	{ResourceInfo{Resource: "poddisruptionbudgets", Singular: "poddisruptionbudget", Kind: "PodDisruptionBudget",
		ListKind: "PodDisruptionBudgetList", Group: PolicyGroup, Version: "v1", Namespaced: true, ShortNames: []string{"pdb"},
		Verbs: standardVerbs, Subresources: []Subresource{statusOf("PodDisruptionBudget", PolicyGroup)}},
		func() Object { return &PodDisruptionBudget{} }, func() ListObject { return &PodDisruptionBudgetList{} }},
	{ResourceInfo{Resource: "roles", Singular: "role", Kind: "Role", ListKind: "RoleList",
		Group: RBACGroup, Version: "v1", Namespaced: true, Verbs: standardVerbs},
		func() Object { return &Role{} }, func() ListObject { return &RoleList{} }},
	{ResourceInfo{Resource: "rolebindings", Singular: "rolebinding", Kind: "RoleBinding", ListKind: "RoleBindingList",
		Group: RBACGroup, Version: "v1", Namespaced: true, Verbs: standardVerbs},
		func() Object { return &RoleBinding{} }, func() ListObject { return &RoleBindingList{} }},
	{ResourceInfo{Resource: "clusterroles", Singular: "clusterrole", Kind: "ClusterRole", ListKind: "ClusterRoleList",
		Group: RBACGroup, Version: "v1", Verbs: standardVerbs},
		func() Object { return &ClusterRole{} }, func() ListObject { return &ClusterRoleList{} }},
	{ResourceInfo{Resource: "clusterrolebindings", Singular: "clusterrolebinding", Kind: "ClusterRoleBinding",
		ListKind: "ClusterRoleBindingList", Group: RBACGroup, Version: "v1", Verbs: standardVerbs},
		func() Object { return &ClusterRoleBinding{} }, func() ListObject { return &ClusterRoleBindingList{} }},
}
