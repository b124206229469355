package apiserver

import (
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
)

// listQueryBadRequests are the list and watch parameters Kubernetes'
// ValidateListOptions refuses, with its messages; TestBadRequests... runs
// them.
func listQueryBadRequests() []badRequest {
	const invalid = `ListOptions.meta.k8s.io "" is invalid: `
	return []badRequest{
		{name: "watch resourceVersionMatch without sendInitialEvents", method: "GET", path: podPath + "?watch=true&resourceVersion=1&resourceVersionMatch=NotOlderThan",
			code: 422, reason: api.StatusReasonInvalid, msg: invalid + "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
		{name: "watch sendInitialEvents without resourceVersionMatch", method: "GET", path: podPath + "?watch=true&resourceVersion=1&sendInitialEvents=true",
			code: 422, reason: api.StatusReasonInvalid, msg: "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
		{name: "watch resourceVersionMatch Exact", method: "GET", path: podPath + "?watch=true&sendInitialEvents=true&resourceVersionMatch=Exact",
			code: 422, reason: api.StatusReasonInvalid, msg: `resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"`},
		{name: "watch sendInitialEvents not a bool", method: "GET", path: podPath + "?watch=true&sendInitialEvents=maybe&resourceVersionMatch=NotOlderThan",
			code: 400, reason: api.StatusReasonBadRequest, msg: "sendInitialEvents"},
		{name: "watch allowWatchBookmarks not a bool", method: "GET", path: podPath + "?watch=true&allowWatchBookmarks=often",
			code: 400, reason: api.StatusReasonBadRequest, msg: "allowWatchBookmarks"},
		{name: "list with sendInitialEvents", method: "GET", path: podPath + "?sendInitialEvents=true",
			code: 422, reason: api.StatusReasonInvalid, msg: invalid + "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"},
		{name: "list resourceVersionMatch without resourceVersion", method: "GET", path: podPath + "?resourceVersionMatch=NotOlderThan",
			code: 422, reason: api.StatusReasonInvalid, msg: "resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{name: "list resourceVersionMatch Exact at 0", method: "GET", path: podPath + "?resourceVersion=0&resourceVersionMatch=Exact",
			code: 422, reason: api.StatusReasonInvalid, msg: `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{name: "list unknown resourceVersionMatch", method: "GET", path: podPath + "?resourceVersion=1&resourceVersionMatch=Newest",
			code: 422, reason: api.StatusReasonInvalid, msg: `Unsupported value: "Newest"`},
		{name: "deletecollection with sendInitialEvents", method: "DELETE", path: podPath + "?sendInitialEvents=false",
			code: 422, reason: api.StatusReasonInvalid, msg: "sendInitialEvents is forbidden for list"},
	}
}

// TestWatchListSendsInitialEventsThenTheirBookmark is client-go's default
// informer start since v0.35 (WatchListClient): the objects that exist as
// ADDED, a BOOKMARK annotated k8s.io/initial-events-end at the list's
// revision, then live events.
func TestWatchListSendsInitialEventsThenTheirBookmark(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", podPath, podJSON("b", map[string]string{"app": "x"}))
	e.must(201, "POST", podPath, podJSON("a", map[string]string{"app": "x"}))
	e.must(201, "POST", podPath, podJSON("c", map[string]string{"app": "y"}))
	var list api.PodList
	e.must(200, "GET", podPath+"?labelSelector=app%3Dx", "").into(t, &list)
	for _, rv := range []string{"", "0", list.ResourceVersion} {
		w := e.watch(podPath + "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=app%3Dx&resourceVersion=" + rv)
		var p api.Pod // next decodes into a zeroed object each time
		for _, want := range []string{"a", "b"} {
			if typ := w.next(&p); typ != api.EventAdded || p.Name != want {
				t.Fatalf("rv %q: initial event %s %s, want ADDED %s", rv, typ, p.Name, want)
			}
		}
		if typ := w.next(&p); typ != api.EventBookmark || p.Annotations[initialEventsEnd] != "true" || p.ResourceVersion < list.ResourceVersion || p.Kind != "Pod" {
			t.Fatalf("rv %q: want the initial-events-end BOOKMARK, got %s %+v", rv, typ, p.ObjectMeta)
		}
		e.must(201, "POST", podPath, podJSON("live"+rv, map[string]string{"app": "x"}))
		if typ := w.next(&p); typ != api.EventAdded || p.Name != "live"+rv {
			t.Fatalf("rv %q: live event %s %s", rv, typ, p.Name)
		}
		e.must(200, "DELETE", podPath+"/live"+rv, "")
		if typ := w.next(&p); typ != api.EventDeleted || p.Name != "live"+rv {
			t.Fatalf("rv %q: live event %s %s", rv, typ, p.Name)
		}
	}
}

// TestWatchWithoutInitialEvents: sendInitialEvents=false from "" starts
// at the current revision, and a legacy watch from "0" without bookmarks
// gets its ADDED events and no bookmark.
func TestWatchWithoutInitialEvents(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", podPath, podJSON("old", nil))
	w := e.watch(podPath + "?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan")
	e.must(201, "POST", podPath, podJSON("new", nil))
	var p api.Pod
	if typ := w.next(&p); typ != api.EventAdded || p.Name != "new" {
		t.Fatalf("first event %s %s, want ADDED new", typ, p.Name)
	}
	legacy := e.watch(podPath + "?watch=true&resourceVersion=0")
	for _, want := range []string{"new", "old"} {
		if typ := legacy.next(&p); typ != api.EventAdded || p.Name != want {
			t.Fatalf("legacy initial event %s %s, want ADDED %s", typ, p.Name, want)
		}
	}
	e.must(200, "DELETE", podPath+"/old", "")
	if typ := legacy.next(&p); typ != api.EventDeleted || p.Name != "old" {
		t.Fatalf("legacy live event %s %s", typ, p.Name)
	}
}

// TestWatchBookmarksFollowInitialEvents: periodic bookmarks carry the
// revision the watch has reached, without the end annotation.
func TestWatchBookmarksFollowInitialEvents(t *testing.T) {
	e := newEnvOn(t, newEnv(t).st, nil, func(c *Config) { c.BookmarkInterval = 10 * time.Millisecond })
	e.must(201, "POST", deployPath, deploymentJSON("web", 1, "nginx"))
	w := e.watch(deployPath + "?watch=true&allowWatchBookmarks=true")
	var d api.Deployment
	if typ := w.next(&d); typ != api.EventAdded || d.Name != "web" {
		t.Fatalf("initial %s %s", typ, d.Name)
	}
	if typ := w.next(&d); typ != api.EventBookmark || d.Annotations[initialEventsEnd] != "true" {
		t.Fatalf("end of initial events: %s %+v", typ, d.ObjectMeta)
	}
	end := d.ResourceVersion
	var bm api.Deployment
	if typ := w.next(&bm); typ != api.EventBookmark || bm.Annotations != nil || bm.ResourceVersion != end || bm.Name != "" {
		t.Fatalf("periodic: %s %+v, want a plain BOOKMARK at %s", typ, bm.ObjectMeta, end)
	}
}
