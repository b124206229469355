// Package v1 holds the Memcache kind (cache.probe.example.com/v1).
// +kubebuilder:object:generate=true
// +groupName=cache.probe.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "cache.probe.example.com", Version: "v1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	AddToScheme   = SchemeBuilder.AddToScheme
)

// MemcacheSpec is the desired state of a Memcache.
type MemcacheSpec struct {
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=5
	// +kubebuilder:default=1
	Replicas int32 `json:"replicas"`
	// +kubebuilder:validation:Enum="1.6";"1.5"
	Version string `json:"version"`
	// +kubebuilder:validation:Minimum=64
	// +kubebuilder:validation:Maximum=1024
	// +kubebuilder:default=64
	MemoryMB int32 `json:"memoryMB,omitempty"`
	// +kubebuilder:validation:Pattern=`^[a-z]{1,8}$`
	Tier string `json:"tier,omitempty"`
}

// MemcacheStatus is the observed state.
type MemcacheStatus struct {
	Replicas           int32              `json:"replicas,omitempty"`
	ReadyReplicas      int32              `json:"readyReplicas,omitempty"`
	Selector           string             `json:"selector,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
type Memcache struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MemcacheSpec   `json:"spec,omitempty"`
	Status            MemcacheStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
type MemcacheList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Memcache `json:"items"`
}

func init() { SchemeBuilder.Register(&Memcache{}, &MemcacheList{}) }

func (in *MemcacheStatus) DeepCopyInto(out *MemcacheStatus) {
	*out = *in
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

func (in *Memcache) DeepCopyInto(out *Memcache) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = in.Spec
	in.Status.DeepCopyInto(&out.Status)
}

func (in *Memcache) DeepCopy() *Memcache {
	if in == nil {
		return nil
	}
	out := new(Memcache)
	in.DeepCopyInto(out)
	return out
}

func (in *Memcache) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *MemcacheList) DeepCopyInto(out *MemcacheList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Memcache, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

func (in *MemcacheList) DeepCopy() *MemcacheList {
	if in == nil {
		return nil
	}
	out := new(MemcacheList)
	in.DeepCopyInto(out)
	return out
}

func (in *MemcacheList) DeepCopyObject() runtime.Object { return in.DeepCopy() }
