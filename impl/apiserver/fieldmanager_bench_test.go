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
		recordUpdate(nil, benchPod("p"), "kubectl")
	}
}

// BenchmarkRecordUpdate is its share of an update that changes one label.
func BenchmarkRecordUpdate(b *testing.B) {
	old := benchPod("p")
	recordUpdate(nil, old, "kubectl")
	api.Default(old)
	b.ReportAllocs()
	for b.Loop() {
		p := api.DeepCopy(old)
		p.Labels["tier"] = "web"
		recordUpdate(old, p, "controller")
	}
}
