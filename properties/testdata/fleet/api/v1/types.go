package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FleetSpec defines the desired state of Fleet.
type FleetSpec struct {
	// ships is how many Ships the Fleet has.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=4
	// +kubebuilder:default=1
	Ships int32 `json:"ships"`

	// speed is the speed every Ship of the Fleet sails at.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:default=1
	Speed int32 `json:"speed"`
}

// FleetStatus defines the observed state of Fleet.
type FleetStatus struct {
	// readyShips is the number of the Fleet's Ships that are ready at the
	// Fleet's speed.
	// +optional
	ReadyShips int32 `json:"readyShips,omitempty"`

	// observedGeneration is the metadata.generation this status was
	// computed from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Ships",type=integer,JSONPath=`.spec.ships`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyShips`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Fleet is the Schema for the fleets API: a number of Ships sailing at one
// speed.
type Fleet struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is a standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec defines the desired state of Fleet.
	// +required
	Spec FleetSpec `json:"spec"`

	// status defines the observed state of Fleet.
	// +optional
	Status FleetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// FleetList contains a list of Fleet.
type FleetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Fleet `json:"items"`
}

// ShipSpec defines the desired state of Ship.
type ShipSpec struct {
	// fleet is the name of the Fleet the Ship belongs to.
	// +required
	Fleet string `json:"fleet"`

	// speed is the speed the Ship sails at.
	// +required
	Speed int32 `json:"speed"`
}

// ShipStatus defines the observed state of Ship.
type ShipStatus struct {
	// ready is true once the Ship sails at observedSpeed.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// observedSpeed is the spec.speed the Ship was last made ready at.
	// +optional
	ObservedSpeed int32 `json:"observedSpeed,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Fleet",type=string,JSONPath=`.spec.fleet`
// +kubebuilder:printcolumn:name="Speed",type=integer,JSONPath=`.spec.speed`
// +kubebuilder:printcolumn:name="Ready",type=boolean,JSONPath=`.status.ready`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Ship is the Schema for the ships API: one member of a Fleet.
type Ship struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is a standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec defines the desired state of Ship.
	// +required
	Spec ShipSpec `json:"spec"`

	// status defines the observed state of Ship.
	// +optional
	Status ShipStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ShipList contains a list of Ship.
type ShipList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Ship `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Fleet{}, &FleetList{}, &Ship{}, &ShipList{})
}
