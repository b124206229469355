package apiserver

import (
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// BenchmarkRecordCreate is the field manager's share of a pod create:
// recording the creator's ownership of the defaulted pod.
func BenchmarkRecordCreate(b *testing.B) {
	typeConverter()
	b.ReportAllocs()
	for b.Loop() {
		p := benchPod("p")
		api.Default(p)
		p.ManagedFields = recordedFields(nil, p, "kubectl", "")
	}
}

// BenchmarkRecordUpdate is its share of an update that changes one label.
func BenchmarkRecordUpdate(b *testing.B) {
	typeConverter()
	old := benchPod("p")
	api.Default(old)
	old.ManagedFields = recordedFields(nil, old, "kubectl", "")
	p := api.DeepCopy(old)
	p.Labels["tier"] = "web"
	b.ReportAllocs()
	for b.Loop() {
		recordedFields(old, p, "controller", "")
	}
}
