// Package v1 holds the cluster-scoped Tenant kind (tenancy.probe.example.com/v1).
// +groupName=tenancy.probe.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "tenancy.probe.example.com", Version: "v1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	AddToScheme   = SchemeBuilder.AddToScheme
)

type TenantSpec struct {
	// +kubebuilder:validation:Pattern=`^[a-z]+@[a-z]+\.[a-z]{2,3}$`
	Owner string `json:"owner"`
	// +kubebuilder:validation:Enum=free;pro;enterprise
	// +kubebuilder:default=free
	Tier string `json:"tier,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:default=2
	MaxApps int32 `json:"maxApps,omitempty"`
}

type TenantStatus struct {
	Namespace string `json:"namespace,omitempty"`
	Phase     string `json:"phase,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:subresource:status
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              TenantSpec   `json:"spec,omitempty"`
	Status            TenantStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
type TenantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Tenant `json:"items"`
}

func init() { SchemeBuilder.Register(&Tenant{}, &TenantList{}) }

func (in *Tenant) DeepCopyInto(out *Tenant) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}
func (in *Tenant) DeepCopy() *Tenant {
	if in == nil {
		return nil
	}
	out := new(Tenant)
	in.DeepCopyInto(out)
	return out
}
func (in *Tenant) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *TenantList) DeepCopyInto(out *TenantList) {
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Tenant, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}
func (in *TenantList) DeepCopy() *TenantList {
	if in == nil {
		return nil
	}
	out := new(TenantList)
	in.DeepCopyInto(out)
	return out
}
func (in *TenantList) DeepCopyObject() runtime.Object { return in.DeepCopy() }
