package registry_test

import (
	"k8s.io/apimachinery/pkg/types"
	"slices"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

func event(name, kind, objNS, objName, uid, reason, typ string) *api.Event {
	ns := objNS
	if ns == "" {
		ns = "default" // events about nodes live in "default"
	}
	return &api.Event{
		ObjectMeta:     api.ObjectMeta{Name: name, Namespace: ns},
		InvolvedObject: api.ObjectReference{Kind: kind, Namespace: objNS, Name: objName, UID: types.UID(uid), APIVersion: "v1"},
		Reason:         reason, Message: reason + " " + objName, Type: typ, Count: 1,
		Source: api.EventSource{Component: "kubelet", Host: "n1"},
	}
}

// The selectors kubectl sends: describe's involvedObject query (sorted,
// values escaped), get --field-selector, and events --for.
func TestEventFieldSelectors(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, namespace("team"))
	mustCreate(t, ctx, r, event("web-0.a", "Pod", "default", "web-0", "u-web-0", "Scheduled", api.EventTypeNormal))
	pulled := event("web-0.b", "Pod", "default", "web-0", "u-web-0", "Failed", api.EventTypeWarning)
	pulled.InvolvedObject.FieldPath = "spec.containers{web}"
	pulled.InvolvedObject.ResourceVersion = "42"
	mustCreate(t, ctx, r, pulled)
	// An older pod of the same name: same name, another uid.
	mustCreate(t, ctx, r, event("web-0.c", "Pod", "default", "web-0", "u-old", "Killing", api.EventTypeNormal))
	mustCreate(t, ctx, r, event("web.d", "Deployment", "default", "web", "u-web", "ScalingReplicaSet", api.EventTypeNormal))
	mustCreate(t, ctx, r, event("n1.e", "Node", "", "n1", "n1", "NodeReady", api.EventTypeNormal))
	other := event("web-0.f", "Pod", "team", "web-0", "u-team", "Scheduled", api.EventTypeNormal)
	other.Source, other.ReportingController = api.EventSource{}, "default-scheduler"
	mustCreate(t, ctx, r, other)

	cases := []struct {
		ns, sel string
		want    []string
	}{
		{"default", "involvedObject.kind=Pod,involvedObject.name=web-0,involvedObject.namespace=default,involvedObject.uid=u-web-0",
			[]string{"web-0.a", "web-0.b"}},
		// describe node asks every namespace for an empty involvedObject.namespace.
		{"", "involvedObject.kind=Node,involvedObject.name=n1,involvedObject.namespace=,involvedObject.uid=n1", []string{"n1.e"}},
		{"", "involvedObject.kind=Pod,involvedObject.name=web-0", []string{"web-0.a", "web-0.b", "web-0.c", "web-0.f"}},
		{"", "type=Warning", []string{"web-0.b"}},
		{"default", "type!=Normal", []string{"web-0.b"}},
		{"", "reason==Scheduled,metadata.namespace!=default", []string{"web-0.f"}},
		{"", "involvedObject.apiVersion=v1,involvedObject.kind=Deployment", []string{"web.d"}},
		{"", "involvedObject.fieldPath=spec.containers{web}", []string{"web-0.b"}},
		{"", "involvedObject.resourceVersion=42", []string{"web-0.b"}},
		{"", "source=kubelet,involvedObject.namespace=team", nil},
		{"", "source=default-scheduler", []string{"web-0.f"}}, // from reportingComponent
		{"", "reportingComponent=default-scheduler", []string{"web-0.f"}},
		{"", "reportingComponent=", []string{"n1.e", "web-0.a", "web-0.b", "web-0.c", "web.d"}},
		{"", "metadata.name=web.d", []string{"web.d"}},
		// Escaped values: a comma or '=' inside a value does not split it.
		{"", `involvedObject.name=web\,0`, nil},
		{"", `reason!=a\=b\\c`, []string{"n1.e", "web-0.a", "web-0.b", "web-0.c", "web.d", "web-0.f"}},
	}
	for _, c := range cases {
		l, err := r.List(ctx, "events", c.ns, registry.ListOptions{FieldSelector: c.sel})
		if err != nil {
			t.Fatalf("%q: %v", c.sel, err)
		}
		got, want := names(l), slices.Clone(c.want)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("events in %q with %q = %v, want %v", c.ns, c.sel, got, want)
		}
	}

	// A watch filters with the same parsed selector.
	sel, err := registry.ParseFieldSelector("events", "involvedObject.uid=u-web-0,type=Warning")
	if err != nil {
		t.Fatal(err)
	}
	if sel.Matches(event("x", "Pod", "default", "web-0", "u-web-0", "Failed", api.EventTypeNormal)) ||
		!sel.Matches(event("x", "Pod", "default", "web-0", "u-web-0", "Failed", api.EventTypeWarning)) {
		t.Error("FieldSelector.Matches disagrees with the list")
	}
}

func TestUnsupportedFieldSelectorsAreBadRequests(t *testing.T) {
	r, ctx := newRegistry(t)
	for _, c := range []struct{ resource, sel, msg string }{
		{"events", "involvedObject.color=red", "field label not supported: involvedObject.color"},
		{"events", "spec.nodeName=n1", "field label not supported: spec.nodeName"},
		{"pods", "type=Warning", "field label not supported: type"},
		{"deployments", "reason=x", "field label not supported: reason"},
		// fields.ParseSelector's own messages.
		{"events", "reason", "invalid selector: 'reason'; can't understand 'reason'"},
		{"events", `reason=a\x`, `invalid field selector: invalid escape sequence: \x`},
		{"events", `reason=a=b`, "invalid field selector: unescaped character in value: 61"},
		{"events", `reason=a\`, `invalid field selector: invalid escape sequence: \`},
	} {
		_, err := r.List(ctx, c.resource, "", registry.ListOptions{FieldSelector: c.sel})
		wantReason(t, err, api.StatusReasonBadRequest, 400)
		if err.Error() != c.msg {
			t.Errorf("%s %q: %v, want %q", c.resource, c.sel, err, c.msg)
		}
		if _, err := registry.ParseFieldSelector(c.resource, c.sel); err == nil {
			t.Errorf("ParseFieldSelector(%s, %q) accepted it", c.resource, c.sel)
		}
	}
}

// A labelSelector that labels.Parse refuses is a 400 with its message, as
// kube-apiserver answers; what it reads (gt, lt, spaces) selects.
func TestBadLabelSelectorsAreBadRequests(t *testing.T) {
	r, ctx := newRegistry(t)
	for sel, msg := range map[string]string{
		"app in (web": "unable to parse requirement: found '', expected: ',' or ')'",
		"x,,y":        "found ',', expected: identifier after ','",
		"a b":         "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
		"=web":        "found '=', expected: !, identifier, or 'end of string'",
	} {
		_, err := r.List(ctx, "pods", "", registry.ListOptions{LabelSelector: sel})
		wantReason(t, err, api.StatusReasonBadRequest, 400)
		if err.Error() != msg {
			t.Errorf("%q: %v, want %q", sel, err, msg)
		}
		if _, err := registry.ParseLabelSelector(sel); err == nil {
			t.Errorf("ParseLabelSelector(%q) accepted it", sel)
		}
	}
	for _, sel := range []string{"replicas>1", " app = web ", "app notin (db),!gone"} {
		if _, err := r.List(ctx, "pods", "", registry.ListOptions{LabelSelector: sel}); err != nil {
			t.Errorf("%q: %v", sel, err)
		}
	}
}

// kubectl describe node lists the node's pods with
// spec.nodeName=N,status.phase!=Succeeded,status.phase!=Failed.
func TestPodPhaseAndNodeFieldSelectors(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, node("n1", api.ConditionTrue))
	for _, n := range []string{"a", "b", "c"} {
		mustCreate(t, ctx, r, pod(n, nil))
		if _, err := r.Bind(ctx, "default", n, "n1", ""); err != nil {
			t.Fatal(err)
		}
	}
	done, err := r.Get(ctx, "pods", "default", "b")
	if err != nil {
		t.Fatal(err)
	}
	done.(*api.Pod).Status.Phase = api.PodSucceeded
	if _, err := r.UpdateStatus(ctx, done); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, ctx, r, pod("unbound", nil))
	for sel, want := range map[string][]string{
		"spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed": {"a", "c"},
		"status.phase=Pending,spec.hostNetwork=false":                   {"a", "c", "unbound"},
		"spec.restartPolicy=Always,spec.nodeName=":                      {"unbound"},
	} {
		l, err := r.List(ctx, "pods", "", registry.ListOptions{FieldSelector: sel})
		if err != nil {
			t.Fatalf("%q: %v", sel, err)
		}
		if got := names(l); !slices.Equal(got, want) {
			t.Errorf("pods with %q = %v, want %v", sel, got, want)
		}
	}
	l, err := r.List(ctx, "nodes", "", registry.ListOptions{FieldSelector: "spec.unschedulable=false"})
	if err != nil || !slices.Equal(names(l), []string{"n1"}) {
		t.Fatalf("nodes spec.unschedulable=false: %v %v", l, err)
	}
}
