package project

import (
	"testing"

	"github.com/converge-dev/converge/model"
)

// Lockstep projects every object after every action, and components apply
// every decision, so both sit on the hot path.

func BenchmarkToModelPod(b *testing.B) {
	uids := NewUIDs()
	pod := fixtureB(b, "pod.json")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ToModel(pod, uids); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplyPodStatus(b *testing.B) {
	uids := NewUIDs()
	pod := fixtureB(b, "pod.json")
	o, err := ToModel(pod, uids)
	if err != nil {
		b.Fatal(err)
	}
	p := o.(*model.Pod)
	p.Ready, p.Restarts = false, 2
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(pod, p, uids); err != nil {
			b.Fatal(err)
		}
	}
}
