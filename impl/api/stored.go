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
type ConfigMap struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Immutable  *bool             `json:"immutable,omitempty"`
	Data       map[string]string `json:"data,omitempty"`
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// ConfigMapList is core/v1 ConfigMapList.
type ConfigMapList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []ConfigMap `json:"items"`
}

// Secret is core/v1 Secret. StringData is write-only: the registry merges
// it into Data, as Kubernetes does.
type Secret struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Immutable  *bool             `json:"immutable,omitempty"`
	Data       map[string][]byte `json:"data,omitempty"`
	StringData map[string]string `json:"stringData,omitempty"`
	Type       corev1.SecretType `json:"type,omitempty"`
}

// SecretList is core/v1 SecretList.
type SecretList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Secret `json:"items"`
}

// ServiceAccount is core/v1 ServiceAccount.
type ServiceAccount struct {
	TypeMeta                     `json:",inline"`
	ObjectMeta                   `json:"metadata,omitempty"`
	Secrets                      []corev1.ObjectReference      `json:"secrets,omitempty"`
	ImagePullSecrets             []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	AutomountServiceAccountToken *bool                         `json:"automountServiceAccountToken,omitempty"`
}

// ServiceAccountList is core/v1 ServiceAccountList.
type ServiceAccountList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []ServiceAccount `json:"items"`
}

// Lease is coordination.k8s.io/v1 Lease, what leader election holds.
type Lease struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       coordinationv1.LeaseSpec `json:"spec,omitempty"`
}

// LeaseList is coordination.k8s.io/v1 LeaseList.
type LeaseList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Lease `json:"items"`
}

func (l *ConfigMapList) GetItems() []Object { return itemPointers[ConfigMap](l.Items) }
func (l *ConfigMapList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[ConfigMap](objs)
	return err
}

func (l *SecretList) GetItems() []Object { return itemPointers[Secret](l.Items) }
func (l *SecretList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Secret](objs)
	return err
}

func (l *ServiceAccountList) GetItems() []Object { return itemPointers[ServiceAccount](l.Items) }
func (l *ServiceAccountList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[ServiceAccount](objs)
	return err
}

func (l *LeaseList) GetItems() []Object { return itemPointers[Lease](l.Items) }
func (l *LeaseList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Lease](objs)
	return err
}

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
