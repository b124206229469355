package cluster

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// A rollout with events on reports what each component did, about the
// object it did it to, as upstream's components word it.
func TestRunningReportsEvents(t *testing.T) {
	r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: 2, Tick: 20 * time.Millisecond, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	chk := model.NewChecker()
	r.mustApply(t, "apply web replicas=2 image=nginx:1")
	r.converge(t, chk)
	r.mustApply(t, "scale web 1")
	r.converge(t, chk)

	want := []string{
		"Deployment ScalingReplicaSet Scaled up replica set web-",
		"Deployment ScalingReplicaSet Scaled down replica set web-",
		"ReplicaSet SuccessfulCreate Created pod: web-",
		"ReplicaSet SuccessfulDelete Deleted pod: web-",
		"Pod Scheduled Successfully assigned default/web-",
		"Pod Pulled Container image \"nginx:1\" already present on machine",
		"Pod Created Created container: nginx",
		"Pod Started Started container nginx",
		"Node Starting Starting kubelet.",
		"Node RegisteredNode Node node-1 event: Registered Node node-1 in Controller",
	}
	deadline := time.Now().Add(20 * time.Second)
	var got []string
	for {
		l, err := r.env.client.List(context.Background(), "events", api.DefaultNamespace, registry.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for _, o := range api.Items(l) {
			ev := o.(*api.Event)
			// A pod may be tried before the scheduler sees a node: a
			// FailedScheduling warning is then right too.
			if ev.InvolvedObject.UID == "" || (ev.Type != api.EventTypeNormal && ev.Reason != "FailedScheduling") || ev.Count < 1 || ev.LastTimestamp.IsZero() {
				t.Fatalf("incomplete event: %+v", ev)
			}
			got = append(got, ev.InvolvedObject.Kind+" "+ev.Reason+" "+ev.Message)
		}
		if missing := missingPrefixes(got, want); len(missing) == 0 {
			break
		} else if time.Now().After(deadline) {
			sort.Strings(got)
			t.Fatalf("no event like %q among:\n%s", missing, strings.Join(got, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func missingPrefixes(got, want []string) []string {
	var missing []string
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			missing = append(missing, w)
		}
	}
	return missing
}

// The stepped driver records no events: they are not part of the model.
func TestSteppedRecordsNoEvents(t *testing.T) {
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.env.events != nil {
		t.Fatal("the stepped driver has an event recorder")
	}
}

// recorderOnStore is an event recorder writing to a fresh store, on a
// clock the test moves through *now.
func recorderOnStore(t *testing.T) (*Stepped, *eventRecorder, *time.Time) {
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	rec := newEventRecorder(s.env.client)
	now := time.Unix(1_000_000, 0)
	rec.now = func() time.Time { return now }
	return s, rec, &now
}

// Events last seen more than the TTL ago are deleted; newer ones stay.
func TestEventsExpire(t *testing.T) {
	s, rec, now := recorderOnStore(t)
	ctx := context.Background()
	for name, seen := range map[string]time.Time{"old": now.Add(-2 * time.Hour), "new": now.Add(-time.Minute)} {
		ev := &api.Event{ObjectMeta: api.ObjectMeta{Name: name, Namespace: api.DefaultNamespace},
			InvolvedObject: api.ObjectReference{Kind: "Pod", Name: "p", Namespace: api.DefaultNamespace},
			Reason:         "Test", Type: api.EventTypeNormal, LastTimestamp: api.NewTime(seen)}
		if _, err := s.env.client.Create(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	rec.expire(ctx, time.Hour)
	l, err := s.env.client.List(ctx, "events", api.DefaultNamespace, registry.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, o := range api.Items(l) {
		left = append(left, api.Meta(o).Name)
	}
	if len(left) != 1 || left[0] != "new" {
		t.Fatalf("events left: %v, want [new]", left)
	}
}

// A pod no node can take gets a FailedScheduling warning with the
// filter's reasons.
func TestRunningReportsFailedScheduling(t *testing.T) {
	r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: 0, Tick: 20 * time.Millisecond, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	r.mustApply(t, "apply web replicas=1 image=nginx:1")
	deadline := time.Now().Add(20 * time.Second)
	for {
		l, err := r.env.client.List(context.Background(), "events", api.DefaultNamespace, registry.ListOptions{FieldSelector: "reason=FailedScheduling"})
		if err != nil {
			t.Fatal(err)
		}
		if items := api.Items(l); len(items) > 0 {
			ev := items[0].(*api.Event)
			if ev.Type != api.EventTypeWarning || ev.InvolvedObject.Kind != "Pod" || ev.Message != "no nodes available to schedule pods" {
				t.Fatalf("FailedScheduling event: %+v", ev)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no FailedScheduling event for a pod with no node to go to")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Repeats of one event within repeatInterval only count; the next write
// after it carries the count, under the first event's name.
func TestRepeatedEventsFold(t *testing.T) {
	rec := newEventRecorder(nil)
	now := time.Unix(1_000_000, 0)
	rec.now = func() time.Time { return now }
	pod := api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p", UID: "u"}
	emit := func() {
		rec.emit(pod, api.EventTypeWarning, "FailedScheduling", "0/1 nodes are available.", "default-scheduler", "")
	}
	emit()
	first := <-rec.queue
	for range 5 {
		now = now.Add(time.Second)
		emit()
	}
	if len(rec.queue) != 0 {
		t.Fatalf("%d writes for repeats within %v", len(rec.queue), repeatInterval)
	}
	now = now.Add(repeatInterval)
	emit()
	again := <-rec.queue
	if again.Name != first.Name || again.Count != 7 || !again.FirstTimestamp.Time.Equal(first.FirstTimestamp.Time) || !again.LastTimestamp.Time.Equal(now) {
		t.Fatalf("repeat: name %s count %d first %v last %v; first event %s", again.Name, again.Count, again.FirstTimestamp, again.LastTimestamp, first.Name)
	}
}

// A repeat written after repeatInterval updates the stored Event in place;
// if that Event has expired meanwhile, it is created again.
func TestRepeatedEventUpdatesTheStoredOne(t *testing.T) {
	s, rec, now := recorderOnStore(t)
	ctx := context.Background()
	pod := api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p", UID: "u"}
	emit := func() {
		rec.emit(pod, api.EventTypeWarning, "FailedScheduling", "0/1 nodes are available.", "default-scheduler", "")
		rec.write(ctx, <-rec.queue)
	}
	stored := func() []*api.Event {
		l, err := s.env.client.List(ctx, "events", api.DefaultNamespace, registry.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []*api.Event
		for _, o := range api.Items(l) {
			out = append(out, o.(*api.Event))
		}
		return out
	}
	emit()
	*now = now.Add(repeatInterval)
	emit()
	if evs := stored(); len(evs) != 1 || evs[0].Count != 2 || !evs[0].LastTimestamp.Time.Equal(*now) {
		t.Fatalf("after a repeat: %+v", evs)
	}
	if _, err := s.env.client.Delete(ctx, "events", api.DefaultNamespace, stored()[0].Name, api.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	*now = now.Add(repeatInterval)
	emit()
	if evs := stored(); len(evs) != 1 || evs[0].Count != 3 {
		t.Fatalf("a repeat of an expired event: %+v", evs)
	}
}
