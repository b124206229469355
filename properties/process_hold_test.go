package properties

import (
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/apiserver"
)

// TestAHeldWriteWaitsForTheNextStep: once a hold is armed, the
// operator's next write waits in the apiserver, not counted as in
// flight (the check may take its next step), until the hold is
// released; reads, others' writes and later writes go through.
func TestAHeldWriteWaitsForTheNextStep(t *testing.T) {
	tr := newRequestTracker(OperatorUser, time.Millisecond)
	op, user := apiserver.User{Name: OperatorUser}, apiserver.User{Name: "admin"}
	update := apiserver.Request{Verb: "update", Resource: "deployments", Namespace: "default", Name: "web"}
	tr.armHold()
	if end, err := tr.Begin(op, apiserver.Request{Verb: "get", Resource: "deployments", Namespace: "default", Name: "web"}); err != nil {
		t.Fatal(err)
	} else {
		end(200)
	}
	if end, err := tr.Begin(user, update); err != nil {
		t.Fatal(err)
	} else {
		end(200)
	}
	served := make(chan func(int))
	go func() {
		end, _ := tr.Begin(op, update)
		served <- end
	}()
	select {
	case <-served:
		t.Fatal("the held write was served before the hold was released")
	case <-time.After(100 * time.Millisecond):
	}
	if _, _, idle := tr.idleFor(time.Now()); !idle {
		t.Error("a held write counts as in flight: the check could not take its next step")
	}
	if what := tr.releaseHold(); what != "update deployments default/web" {
		t.Errorf("released %q", what)
	}
	(<-served)(200)
	if n, _ := tr.operatorWrites(); n != 1 {
		t.Errorf("%d writes of the operator counted, want 1", n)
	}
	if end, err := tr.Begin(op, update); err != nil {
		t.Fatal(err)
	} else {
		end(200) // not held: the hold was for one write
	}
	if what := tr.releaseHold(); what != "" {
		t.Errorf("a second release let %q go", what)
	}
}
