package apiserver

import (
	"bufio"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
)

// watchStream reads one watch's events.
type watchStream struct {
	t    *testing.T
	resp *http.Response
	sc   *bufio.Scanner
}

func (e *testEnv) watch(path string) *watchStream { return e.watchWith(path) }

// watchWith starts a watch with extra "Name: value" headers.
func (e *testEnv) watchWith(path string, hdr ...string) *watchStream {
	e.t.Helper()
	req, err := http.NewRequest("GET", e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		e.t.Fatalf("watch %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return &watchStream{t: e.t, resp: resp, sc: sc}
}

// next reads the next event; the object is decoded as the type of obj.
func (w *watchStream) next(obj api.Object) api.EventType {
	w.t.Helper()
	if !w.sc.Scan() {
		w.t.Fatalf("watch ended: %v", w.sc.Err())
	}
	var ev api.WatchEvent
	reflect.ValueOf(obj).Elem().SetZero()
	if err := json.Unmarshal(w.sc.Bytes(), &ev); err != nil {
		w.t.Fatalf("event %s: %v", w.sc.Bytes(), err)
	}
	if err := json.Unmarshal(ev.Object.Raw, obj); err != nil {
		w.t.Fatalf("event object %s: %v", ev.Object, err)
	}
	return api.EventType(ev.Type)
}

func TestWatchStreamsChanges(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", podPath, podJSON("old", map[string]string{"app": "x"}))
	// Without a resourceVersion the current objects come first as ADDED.
	w := e.watch(podPath + "?watch=true&labelSelector=app%3Dx")
	var p api.Pod
	if typ := w.next(&p); typ != api.EventAdded || p.Name != "old" {
		t.Fatalf("initial event %s %s", typ, p.Name)
	}
	e.must(201, "POST", podPath, podJSON("other", map[string]string{"app": "y"})) // filtered out
	e.must(201, "POST", podPath, podJSON("new", map[string]string{"app": "x"}))
	if typ := w.next(&p); typ != api.EventAdded || p.Name != "new" {
		t.Fatalf("create event %s %s", typ, p.Name)
	}
	e.must(200, "PATCH", podPath+"/new", `{"metadata":{"annotations":{"a":"b"}}}`, "Content-Type: "+mergePatchType)
	if typ := w.next(&p); typ != api.EventModified || p.Annotations["a"] != "b" {
		t.Fatalf("patch event %s %v", typ, p.Annotations)
	}
	e.must(200, "DELETE", podPath+"/new", "")
	if typ := w.next(&p); typ != api.EventDeleted || p.Name != "new" || p.ResourceVersion == "" {
		t.Fatalf("delete event %s %s", typ, p.Name)
	}

	// From a resourceVersion: only what came after it.
	var list api.PodList
	e.must(200, "GET", podPath, "").into(t, &list)
	w2 := e.watch(podPath + "?watch=1&resourceVersion=" + list.ResourceVersion)
	e.must(201, "POST", podPath, podJSON("later", nil))
	if typ := w2.next(&p); typ != api.EventAdded || p.Name != "later" {
		t.Fatalf("event after rv: %s %s", typ, p.Name)
	}
}

func TestWatchBookmarksAndTimeout(t *testing.T) {
	e := newEnvOn(t, newEnv(t).st, nil, func(c *Config) { c.BookmarkInterval = 10 * time.Millisecond })
	var list api.DeploymentList
	e.must(200, "GET", deployPath, "").into(t, &list)
	w := e.watch(deployPath + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + list.ResourceVersion)
	var d api.Deployment
	if typ := w.next(&d); typ != api.EventBookmark || d.ResourceVersion != list.ResourceVersion || d.Kind != "Deployment" {
		t.Fatalf("want a BOOKMARK at %s, got %s %+v", list.ResourceVersion, typ, d.ObjectMeta)
	}
	// timeoutSeconds ends the stream cleanly.
	r := e.must(200, "GET", deployPath+"?watch=true&timeoutSeconds=1&resourceVersion="+list.ResourceVersion, "")
	if len(r.body) != 0 {
		t.Fatalf("unexpected events: %s", r.body)
	}
}

func TestWatchSelectionTransitions(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", podPath, podJSON("p", map[string]string{"app": "x"}))
	var list api.PodList
	e.must(200, "GET", podPath, "").into(t, &list)
	w := e.watch(podPath + "?watch=true&labelSelector=app%3Dx&resourceVersion=" + list.ResourceVersion)
	relabel := func(v string) {
		e.must(200, "PATCH", podPath+"/p", `{"metadata":{"labels":{"app":"`+v+`"}}}`, "Content-Type: "+mergePatchType)
	}
	var p api.Pod
	relabel("y") // leaves the selection
	if typ := w.next(&p); typ != api.EventDeleted || p.Labels["app"] != "y" {
		t.Fatalf("leaving: %s %v", typ, p.Labels)
	}
	relabel("z") // still outside: not seen
	relabel("x") // enters again
	if typ := w.next(&p); typ != api.EventAdded || p.Labels["app"] != "x" {
		t.Fatalf("entering: %s %v", typ, p.Labels)
	}
	e.must(200, "PATCH", podPath+"/p", `{"metadata":{"annotations":{"a":"b"}}}`, "Content-Type: "+mergePatchType)
	if typ := w.next(&p); typ != api.EventModified {
		t.Fatalf("inside: %s", typ)
	}
}
