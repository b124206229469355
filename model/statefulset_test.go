package model

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// stsRun steps a fresh cluster through script lines, quiescing after
// each, checks the invariants after every step, and returns the state and
// the first violation.
func stsRun(t *testing.T, cfg Config, lines ...string) (*State, error) {
	t.Helper()
	st, chk := New(cfg), NewChecker()
	step := func(a Action) error {
		r := st.Step(a)
		return chk.Check(st.Snapshot(), r.Writes)
	}
	for _, l := range lines {
		a, err := ParseAction(l)
		if err != nil {
			t.Fatal(err)
		}
		if err := step(a); err != nil {
			return st, err
		}
		for i := 0; ; i++ {
			a, ok := st.NextQuiesceStep()
			if !ok {
				break
			}
			if i == 20000 {
				t.Fatal("no quiesce in 20000 steps")
			}
			if err := step(a); err != nil {
				return st, err
			}
		}
	}
	return st, nil
}

func podNames(st *State) []string {
	var out []string
	for _, o := range st.Objects(KindPod) {
		if !MetaOf(o).Deleting {
			out = append(out, MetaOf(o).Name)
		}
	}
	return out
}

func TestStatefulSetOrdinal(t *testing.T) {
	for _, c := range []struct {
		pod string
		n   int
		ok  bool
	}{{"web-0", 0, true}, {"web-12", 12, true}, {"web-01", 0, false}, {"web-", 0, false}, {"web-x", 0, false}, {"web-1-2", 0, false}, {"webs-1", 0, false}, {"web--1", 0, false}} {
		n, ok := StatefulSetOrdinal("web", c.pod)
		if n != c.n || ok != c.ok {
			t.Errorf("StatefulSetOrdinal(web, %s) = %d, %t; want %d, %t", c.pod, n, ok, c.n, c.ok)
		}
	}
}

// OrderedReady makes db-1 only once db-0 is Running and Ready: the first
// reconcile makes db-0 and its claim alone, and so does the next while
// db-0 is not yet ready.
func TestStatefulSetOrderedReadyWaits(t *testing.T) {
	st := New(Config{})
	for _, l := range []string{"add-node node-1", "apply-statefulset db replicas=3 image=redis:7 claims=data"} {
		a, _ := ParseAction(l)
		st.Step(a)
	}
	st.Drain(StatefulSetController, 100)
	if got := podNames(st); !slices.Equal(got, []string{"db-0"}) {
		t.Fatalf("pods before db-0 is ready: %v", got)
	}
	if _, err := st.Quiesce(20000); err != nil {
		t.Fatal(err)
	}
	if got := podNames(st); !slices.Equal(got, []string{"db-0", "db-1", "db-2"}) {
		t.Fatalf("pods after quiesce: %v", got)
	}
	p := st.Get(RefTo(KindPod, "db-1")).(*Pod)
	if !slices.Equal(p.Claims, []string{"data-db-1"}) || p.Labels[LabelPodIndex] != "1" || p.Labels[LabelStatefulSetPodName] != "db-1" {
		t.Fatalf("db-1: claims %v labels %v", p.Claims, p.Labels)
	}
}

func TestStatefulSetParallelCreatesAtOnce(t *testing.T) {
	st := New(Config{})
	for _, l := range []string{"add-node node-1", "apply-statefulset db replicas=3 image=redis:7 policy=Parallel"} {
		a, _ := ParseAction(l)
		st.Step(a)
	}
	a, _ := ParseAction("deliver statefulset-controller statefulsets")
	st.Step(a)
	r := st.Step(Action{Op: OpReconcile, Who: StatefulSetController, Key: "default/db"})
	if len(r.Writes) != 3 {
		t.Fatalf("one reconcile wrote %v, want the three pods", r.Writes)
	}
}

// Retain keeps every claim through a scale down and a delete; Delete
// lets them go with the condemned pod and with the set.
func TestStatefulSetRetentionPolicy(t *testing.T) {
	claims := func(st *State) []string {
		var out []string
		for _, o := range st.Objects(KindPersistentVolumeClaim) {
			out = append(out, MetaOf(o).Name)
		}
		return out
	}
	st, err := stsRun(t, Config{}, "add-node node-1", "apply-statefulset db replicas=2 image=redis:7 claims=data")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"apply-statefulset db replicas=0 image=redis:7 claims=data", "delete statefulsets/db"} {
		a, _ := ParseAction(l)
		st.Step(a)
		if _, err := st.Quiesce(20000); err != nil {
			t.Fatal(err)
		}
	}
	if got := claims(st); !slices.Equal(got, []string{"data-db-0", "data-db-1"}) {
		t.Fatalf("Retain left %v", got)
	}
	st, err = stsRun(t, Config{}, "add-node node-1", "apply-statefulset db replicas=2 image=redis:7 claims=data when-scaled=Delete when-deleted=Delete",
		"tick", "apply-statefulset db replicas=1 image=redis:7 claims=data when-scaled=Delete when-deleted=Delete")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Quiesce(20000); err != nil {
		t.Fatal(err)
	}
	if got := claims(st); !slices.Equal(got, []string{"data-db-0"}) {
		t.Fatalf("whenScaled Delete left %v", got)
	}
	a, _ := ParseAction("delete statefulsets/db")
	st.Step(a)
	if _, err := st.Quiesce(20000); err != nil {
		t.Fatal(err)
	}
	if got := claims(st); len(got) != 0 {
		t.Fatalf("whenDeleted Delete left %v", got)
	}
}

// The invariants have teeth: a controller that ignores OrderedReady, one
// that mounts another ordinal's claim and one that deletes a claim on
// scale down are each caught.
func TestStatefulSetInvariantsCatchBugs(t *testing.T) {
	shipped := Shipped(StatefulSetController)
	bugs := map[string]struct {
		d    Decision
		want string
	}{
		"parallel-always": {func(m *Memory, h Host, w Writer, key string) {
			s, _ := m.Get(KindStatefulSet, key).(*StatefulSet)
			if s != nil && !s.Parallel {
				p := s.shallow().(*StatefulSet)
				p.Parallel = true
				m.Put(p)
				defer m.Put(s)
			}
			shipped(m, h, w, key)
		}, "predecessor is Running and Ready"},
		"wrong-claim": {func(m *Memory, h Host, w Writer, key string) {
			shipped(m, h, claimSwapper{w}, key)
		}, "claims of its own ordinal"},
		"deletes-claims": {func(m *Memory, h Host, w Writer, key string) {
			shipped(m, h, w, key)
			s, _ := m.Get(KindStatefulSet, key).(*StatefulSet)
			for _, o := range m.List(KindPersistentVolumeClaim) {
				if n, ok := claimOrdinal(s, MetaOf(o).Name); s != nil && ok && n >= s.Replicas {
					w.Delete(o)
				}
			}
		}, "never deletes a claim"},
	}
	for name, b := range bugs {
		t.Run(name, func(t *testing.T) {
			_, err := stsRun(t, Config{Decisions: Decisions{StatefulSetController: b.d}}, "add-node node-1",
				"apply-statefulset db replicas=2 image=redis:7 claims=data", "tick", "apply-statefulset db replicas=1 image=redis:7 claims=data")
			if !errors.Is(err, ErrViolation) || !strings.Contains(err.Error(), b.want) {
				t.Fatalf("got %v, want a violation naming %q", err, b.want)
			}
		})
	}
	if _, err := stsRun(t, Config{}, "add-node node-1", "apply-statefulset db replicas=2 image=redis:7 claims=data", "tick", "apply-statefulset db replicas=1 image=redis:7 claims=data"); err != nil {
		t.Fatalf("the shipped controller: %v", err)
	}
}

// claimSwapper mounts ordinal 0's claims on every pod it creates.
type claimSwapper struct{ Writer }

func (w claimSwapper) Create(o Obj) int64 {
	if p, ok := o.(*Pod); ok && len(p.Claims) > 0 {
		p.Claims = []string{strings.TrimSuffix(p.Claims[0], p.Name) + strings.TrimSuffix(p.Name, p.Labels[LabelPodIndex]) + "0"}
	}
	return w.Writer.Create(o)
}

// A claim's delete is checked by who made it: the user's and the
// namespace controller's pass (the user asked), the collector's passes
// only for a claim an ownerReference put up for deletion.
func TestClaimDeletionsAreCheckedByWhoDeletes(t *testing.T) {
	ref := RefTo(KindPersistentVolumeClaim, "default/data-db-0")
	free := &PersistentVolumeClaim{Meta: Meta{Name: "data-db-0", Namespace: DefaultNamespace, UID: 7}}
	owned := &PersistentVolumeClaim{Meta: Meta{Name: "data-db-0", Namespace: DefaultNamespace, UID: 7, Owner: Owner{Kind: KindStatefulSet, Name: "db", UID: 3}}}
	for _, c := range []struct {
		actor  string
		claim  *PersistentVolumeClaim
		caught bool
	}{
		{"user", free, false}, {NamespaceController, free, false}, {GarbageCollector, owned, false},
		{GarbageCollector, free, true}, {StatefulSetController, owned, true},
	} {
		snap := &Snapshot{Objects: map[Ref]Obj{}}
		err := NewChecker().Check(snap, []Write{{Actor: c.actor, Verb: VerbDelete, Ref: ref, Before: c.claim, Rev: 1}})
		if got := errors.Is(err, ErrViolation); got != c.caught {
			t.Errorf("%s deleting a claim with owner %+v: %v, want caught %t", c.actor, c.claim.Owner, err, c.caught)
		}
	}
}

// A new template rolls out from the highest ordinal, one pod at a time:
// the first reconcile after the change deletes db-2 alone.
func TestStatefulSetRollsOutFromTheHighestOrdinal(t *testing.T) {
	st, err := stsRun(t, Config{}, "add-node node-1", "apply-statefulset db replicas=3 image=redis:7")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ParseAction("apply-statefulset db replicas=3 image=redis:8")
	st.Step(a)
	st.Step(Action{Op: OpDeliver, Who: StatefulSetController, Kind: KindStatefulSet})
	r := st.Step(Action{Op: OpReconcile, Who: StatefulSetController, Key: "default/db"})
	if len(r.Writes) != 1 || r.Writes[0].Verb != VerbDelete || r.Writes[0].Ref.Name != "db-2" {
		t.Fatalf("first reconcile after the change: %v, want db-2 deleted alone", r.Writes)
	}
}

// apply-statefulset's script line reads back as the same action, and bad
// options are refused with a clear error.
func TestApplyStatefulSetLine(t *testing.T) {
	line := "apply-statefulset team-b/db replicas=2 image=redis:7 service=dbs policy=Parallel claims=data,logs when-scaled=Delete when-deleted=Delete"
	a, err := ParseAction(line)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.String(); got != line {
		t.Fatalf("String() = %q, want %q", got, line)
	}
	for _, bad := range []string{
		"apply-statefulset db replicas=2",
		"apply-statefulset db replicas=x image=redis:7",
		"apply-statefulset db replicas=1 image=redis:7 policy=Sometimes",
		"apply-statefulset db replicas=1 image=redis:7 claims=data,data",
		"apply-statefulset db replicas=1 image=redis:7 when-scaled=Keep",
	} {
		if _, err := ParseAction(bad); err == nil {
			t.Errorf("ParseAction(%q) accepted it", bad)
		}
	}
}
