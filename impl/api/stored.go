package api

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
)

// The kinds below have no controller in converge: they are stored and
// served as envtest serves them, for the clients that need them (leader
// election's Leases, configuration, service accounts). Their bodies are
// k8s.io/api's own types; only the envelope, TypeMeta and ObjectMeta, is
// converge's, because the registry, apply and the projection work on it.

// ConfigMap is core/v1 ConfigMap.
type ConfigMap = corev1.ConfigMap

// ConfigMapList is core/v1 ConfigMapList.
type ConfigMapList = corev1.ConfigMapList

// Secret is core/v1 Secret. StringData is write-only: the registry merges
// it into Data, as Kubernetes does.
type Secret = corev1.Secret

// SecretList is core/v1 SecretList.
type SecretList = corev1.SecretList

// ServiceAccount is core/v1 ServiceAccount.
type ServiceAccount = corev1.ServiceAccount

// ServiceAccountList is core/v1 ServiceAccountList.
type ServiceAccountList = corev1.ServiceAccountList

// Lease is coordination.k8s.io/v1 Lease, what leader election holds.
type Lease = coordinationv1.Lease

// LeaseList is coordination.k8s.io/v1 LeaseList.
type LeaseList = coordinationv1.LeaseList

var (
	_ Object     = (*ConfigMap)(nil)
	_ Object     = (*Secret)(nil)
	_ Object     = (*ServiceAccount)(nil)
	_ Object     = (*Lease)(nil)
	_ ListObject = (*ConfigMapList)(nil)
	_ ListObject = (*SecretList)(nil)
	_ ListObject = (*ServiceAccountList)(nil)
	_ ListObject = (*LeaseList)(nil)
)

// storedEntries are the resource table's rows for the stored-only kinds.
var storedEntries = []entry{
	{ResourceInfo{Resource: "configmaps", Singular: "configmap", Kind: "ConfigMap", ListKind: "ConfigMapList",
		Version: "v1", Namespaced: true, ShortNames: []string{"cm"}, Verbs: standardVerbs},
		func() Object { return &ConfigMap{} }, func() ListObject { return &ConfigMapList{} }},
	{ResourceInfo{Resource: "secrets", Singular: "secret", Kind: "Secret", ListKind: "SecretList",
		Version: "v1", Namespaced: true, Verbs: standardVerbs},
		func() Object { return &Secret{} }, func() ListObject { return &SecretList{} }},
	{ResourceInfo{Resource: "serviceaccounts", Singular: "serviceaccount", Kind: "ServiceAccount", ListKind: "ServiceAccountList",
		Version: "v1", Namespaced: true, ShortNames: []string{"sa"}, Verbs: standardVerbs},
		func() Object { return &ServiceAccount{} }, func() ListObject { return &ServiceAccountList{} }},
	{ResourceInfo{Resource: "leases", Singular: "lease", Kind: "Lease", ListKind: "LeaseList",
		Group: "coordination.k8s.io", Version: "v1", Namespaced: true, Verbs: standardVerbs},
		func() Object { return &Lease{} }, func() ListObject { return &LeaseList{} }},
}
