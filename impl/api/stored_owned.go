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
type CronJob struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       batchv1.CronJobSpec   `json:"spec,omitempty"`
	Status     batchv1.CronJobStatus `json:"status,omitempty"`
}

// CronJobList is batch/v1 CronJobList.
type CronJobList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []CronJob `json:"items"`
}

// HorizontalPodAutoscaler is autoscaling/v2 HorizontalPodAutoscaler.
type HorizontalPodAutoscaler struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       autoscalingv2.HorizontalPodAutoscalerSpec   `json:"spec,omitempty"`
	Status     autoscalingv2.HorizontalPodAutoscalerStatus `json:"status,omitempty"`
}

// HorizontalPodAutoscalerList is autoscaling/v2 HorizontalPodAutoscalerList.
type HorizontalPodAutoscalerList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []HorizontalPodAutoscaler `json:"items"`
}

// Ingress is networking.k8s.io/v1 Ingress.
type Ingress struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       networkingv1.IngressSpec   `json:"spec,omitempty"`
	Status     networkingv1.IngressStatus `json:"status,omitempty"`
}

// IngressList is networking.k8s.io/v1 IngressList.
type IngressList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Ingress `json:"items"`
}

// NetworkPolicy is networking.k8s.io/v1 NetworkPolicy.
type NetworkPolicy struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       networkingv1.NetworkPolicySpec `json:"spec,omitempty"`
}

// NetworkPolicyList is networking.k8s.io/v1 NetworkPolicyList.
type NetworkPolicyList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []NetworkPolicy `json:"items"`
}

// PodDisruptionBudget is policy/v1 PodDisruptionBudget.
type PodDisruptionBudget struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       policyv1.PodDisruptionBudgetSpec   `json:"spec,omitempty"`
	Status     policyv1.PodDisruptionBudgetStatus `json:"status,omitempty"`
}

// PodDisruptionBudgetList is policy/v1 PodDisruptionBudgetList.
type PodDisruptionBudgetList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []PodDisruptionBudget `json:"items"`
}

// Role is rbac.authorization.k8s.io/v1 Role.
type Role struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Rules      []rbacv1.PolicyRule `json:"rules"`
}

// RoleList is rbac.authorization.k8s.io/v1 RoleList.
type RoleList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Role `json:"items"`
}

// ClusterRole is rbac.authorization.k8s.io/v1 ClusterRole.
type ClusterRole struct {
	TypeMeta        `json:",inline"`
	ObjectMeta      `json:"metadata,omitempty"`
	Rules           []rbacv1.PolicyRule     `json:"rules"`
	AggregationRule *rbacv1.AggregationRule `json:"aggregationRule,omitempty"`
}

// ClusterRoleList is rbac.authorization.k8s.io/v1 ClusterRoleList.
type ClusterRoleList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []ClusterRole `json:"items"`
}

// RoleBinding is rbac.authorization.k8s.io/v1 RoleBinding.
type RoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Subjects   []rbacv1.Subject `json:"subjects,omitempty"`
	RoleRef    rbacv1.RoleRef   `json:"roleRef"`
}

// RoleBindingList is rbac.authorization.k8s.io/v1 RoleBindingList.
type RoleBindingList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []RoleBinding `json:"items"`
}

// ClusterRoleBinding is rbac.authorization.k8s.io/v1 ClusterRoleBinding.
type ClusterRoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Subjects   []rbacv1.Subject `json:"subjects,omitempty"`
	RoleRef    rbacv1.RoleRef   `json:"roleRef"`
}

// ClusterRoleBindingList is rbac.authorization.k8s.io/v1 ClusterRoleBindingList.
type ClusterRoleBindingList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []ClusterRoleBinding `json:"items"`
}

func (l *CronJobList) GetItems() []Object { return itemPointers[CronJob](l.Items) }
func (l *CronJobList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[CronJob](objs)
	return err
}

func (l *HorizontalPodAutoscalerList) GetItems() []Object {
	return itemPointers[HorizontalPodAutoscaler](l.Items)
}
func (l *HorizontalPodAutoscalerList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[HorizontalPodAutoscaler](objs)
	return err
}

func (l *IngressList) GetItems() []Object { return itemPointers[Ingress](l.Items) }
func (l *IngressList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Ingress](objs)
	return err
}

func (l *NetworkPolicyList) GetItems() []Object { return itemPointers[NetworkPolicy](l.Items) }
func (l *NetworkPolicyList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[NetworkPolicy](objs)
	return err
}

func (l *PodDisruptionBudgetList) GetItems() []Object {
	return itemPointers[PodDisruptionBudget](l.Items)
}
func (l *PodDisruptionBudgetList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[PodDisruptionBudget](objs)
	return err
}

func (l *RoleList) GetItems() []Object { return itemPointers[Role](l.Items) }
func (l *RoleList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Role](objs)
	return err
}

func (l *ClusterRoleList) GetItems() []Object { return itemPointers[ClusterRole](l.Items) }
func (l *ClusterRoleList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[ClusterRole](objs)
	return err
}

func (l *RoleBindingList) GetItems() []Object { return itemPointers[RoleBinding](l.Items) }
func (l *RoleBindingList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[RoleBinding](objs)
	return err
}

func (l *ClusterRoleBindingList) GetItems() []Object {
	return itemPointers[ClusterRoleBinding](l.Items)
}
func (l *ClusterRoleBindingList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[ClusterRoleBinding](objs)
	return err
}

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
