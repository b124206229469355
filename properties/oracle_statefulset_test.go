package properties

import (
	"testing"

	"github.com/converge-dev/converge/model"
)

// The differential leaves out the claims the Retain policy kept past
// their pods, and still catches a claim a condemned pod owned that
// outlived it (the collector failed it) and a live ordinal's claim that
// is missing.
func TestDifferentialSeesPastRetainedClaims(t *testing.T) {
	st := model.New(model.Config{})
	in := NewIntents()
	for _, line := range []string{
		"add-node node-1",
		"apply-statefulset db replicas=3 image=nginx:1 claims=data when-deleted=Delete",
		"apply-statefulset db replicas=1 image=nginx:1 claims=data when-deleted=Delete",
	} {
		a, err := model.ParseAction(line)
		if err != nil {
			t.Fatal(err)
		}
		if err := in.Observe(a, st.Step(a).Writes); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Quiesce(MaxQuiesceSteps); err != nil {
			t.Fatal(err)
		}
	}
	s := st.Snapshot()
	if n := len(s.List(model.KindPersistentVolumeClaim)); n != 3 {
		t.Fatalf("%d claims, want the 3 the scale down kept", n)
	}
	if err := in.Differential(s); err != nil {
		t.Fatalf("retained claims: %v", err)
	}

	// A claim a condemned pod owned, left after the pod went.
	ref := model.RefTo(model.KindPersistentVolumeClaim, "default/data-db-2")
	kept := s.Objects[ref].(*model.PersistentVolumeClaim)
	owned := *kept
	owned.Owner = model.Owner{Kind: model.KindPod, Name: "db-2", UID: 9999}
	s.Objects[ref] = &owned
	wantViolation(t, in.Differential(s), "only here: persistentvolumeclaims/default/data-db-2")
	s.Objects[ref] = kept

	// The live ordinal's claim gone.
	delete(s.Objects, model.RefTo(model.KindPersistentVolumeClaim, "default/data-db-0"))
	wantViolation(t, in.Differential(s), "only in the sequential run: persistentvolumeclaims/default/data-db-0")
}
