package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// watch streams newline-delimited WatchEvents until the client goes, the
// registry ends the stream, or timeoutSeconds pass.
func (s *Server) watch(w http.ResponseWriter, r *http.Request, rt route) {
	q := r.URL.Query()
	lo, err := listOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	mode, err := checkListQuery(r, true)
	if err != nil {
		writeError(w, err)
		return
	}
	as := negotiateOutput(r)
	if as == asPartialList {
		// A watch's events carry objects, never lists.
		writeError(w, notAcceptable("you requested PartialObjectMetadataList, but the requested object is not a list (watch events)"))
		return
	}
	if rt.Name != "" { // GET .../pods/web?watch=true watches one object
		lo.FieldSelector = strings.Trim(lo.FieldSelector+",metadata.name="+rt.Name, ",")
	}
	sel, err := newEventFilter(rt, lo)
	if err != nil {
		writeError(w, err)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	if t := q.Get("timeoutSeconds"); t != "" {
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || n < 0 {
			writeError(w, api.NewBadRequest(fmt.Sprintf("invalid timeoutSeconds %q", t)))
			return
		}
		if n > 0 {
			ctx, cancel = context.WithTimeout(ctx, time.Duration(n)*time.Second)
			defer cancel()
		}
	}
	var initial []api.Object
	switch {
	case mode.initialEvents:
		// The objects that exist, at the latest revision (which is not
		// older than any resourceVersion given), then what follows it.
		lo.Limit, lo.Continue, lo.ResourceVersion = 0, "", ""
		list, err := s.reg.List(ctx, rt.Resource.Resource, rt.Namespace, lo)
		if err != nil {
			writeError(w, err)
			return
		}
		initial = api.Items(list)
		lo.ResourceVersion = api.ListMetaOf(list).ResourceVersion
		if sel.labels != nil || len(sel.fields) > 0 {
			sel.selected = map[string]bool{}
		}
	case lo.ResourceVersion == "" || lo.ResourceVersion == "0":
		// sendInitialEvents=false: only what happens from now on.
		rev, err := s.reg.Rev(ctx)
		if err != nil {
			writeError(w, err)
			return
		}
		lo.ResourceVersion = strconv.FormatInt(rev, 10)
		fallthrough
	default:
		if err := s.seedSelection(ctx, rt, lo, &sel); err != nil {
			writeError(w, err)
			return
		}
	}
	events, err := s.reg.Watch(ctx, rt.Resource.Resource, rt.Namespace, lo.ResourceVersion)
	if err != nil {
		writeError(w, err)
		return
	}
	var bookmarks <-chan time.Time
	if mode.bookmarks {
		t := time.NewTicker(s.bookmark)
		defer t.Stop()
		bookmarks = t.C
	}
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	enc := json.NewEncoder(w)
	lastRV := lo.ResourceVersion
	send := func(t api.EventType, obj any) bool {
		obj = servedAs(obj, rt.Resource.Version)
		switch {
		case as == asTable && (t == api.EventAdded || t == api.EventModified || t == api.EventDeleted):
			if tb, ok := toTable(r, obj); ok {
				obj = tb
			}
		case as == asPartial && t != api.EventError:
			// Bookmarks too: a metadata informer decodes every event's
			// object as PartialObjectMetadata.
			if o, ok := obj.(api.Object); ok {
				obj = partialOf(o)
			}
		}
		b, err := api.Marshal(obj)
		if err != nil {
			b, _ = json.Marshal(api.NewInternalError(err).Status)
			t = api.EventError
		}
		if err := enc.Encode(api.WatchEvent{Type: string(t), Object: runtime.RawExtension{Raw: b}}); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	bookmark := func(annotations map[string]string) bool {
		bm, err := api.New(rt.Resource.Resource)
		if err != nil {
			return true
		}
		m := api.Meta(bm)
		m.ResourceVersion, m.Annotations = lastRV, annotations
		return send(api.EventBookmark, bm)
	}
	for _, obj := range initial {
		if typ, ok := sel.translate(api.EventAdded, obj); ok && !send(typ, obj) {
			return
		}
	}
	if mode.initialEvents && mode.bookmarks && !bookmark(map[string]string{initialEventsEnd: "true"}) {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-bookmarks:
			if !bookmark(nil) {
				return
			}
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Type == registry.EventError {
				st := api.StatusOf(ev.Err)
				send(api.EventError, &st)
				return
			}
			lastRV = strconv.FormatInt(ev.Rev, 10)
			typ, ok := sel.translate(api.EventType(ev.Type), ev.Object)
			if !ok {
				continue
			}
			if !send(typ, ev.Object) {
				return
			}
		}
	}
}

// eventFilter applies a watch's label and field selectors to its events,
// with the same semantics as a list (the registry filters lists itself).
// As in Kubernetes, an object that starts matching is ADDED and one that
// stops matching is DELETED; selected holds the keys now matching.
type eventFilter struct {
	labels   labels.Selector
	fields   registry.FieldSelector
	selected map[string]bool // nil when there is no selector
}

// seedSelection fills f.selected with what matched at the watch's start
// revision, so that a change leaving the selection is seen as DELETED.
// A watch with initial events is seeded by its ADDED events instead.
func (s *Server) seedSelection(ctx context.Context, rt route, lo registry.ListOptions, f *eventFilter) error {
	if f.labels == nil && len(f.fields) == 0 {
		return nil
	}
	f.selected = map[string]bool{}
	lo.Limit, lo.Continue = 0, ""
	list, err := s.reg.List(ctx, rt.Resource.Resource, rt.Namespace, lo)
	if err != nil {
		return err
	}
	for _, it := range api.Items(list) {
		f.selected[objectKey(it)] = true
	}
	return nil
}

func objectKey(o api.Object) string {
	m := api.Meta(o)
	return m.Namespace + "/" + m.Name
}

// translate maps a change to what a selecting watcher sees, or ok=false
// for a change it does not see at all.
func (f *eventFilter) translate(typ api.EventType, obj api.Object) (api.EventType, bool) {
	match := f.matches(obj)
	if f.selected == nil {
		return typ, match
	}
	key := objectKey(obj)
	was := f.selected[key]
	switch {
	case typ == api.EventDeleted:
		delete(f.selected, key)
		return typ, was || match
	case match:
		f.selected[key] = true
		if !was {
			return api.EventAdded, true
		}
		return typ, true
	case was:
		delete(f.selected, key)
		return api.EventDeleted, true
	}
	return typ, false
}

func newEventFilter(rt route, lo registry.ListOptions) (eventFilter, error) {
	var f eventFilter
	if lo.LabelSelector != "" {
		sel, err := registry.ParseLabelSelector(lo.LabelSelector)
		if err != nil {
			return f, err
		}
		f.labels = sel
	}
	terms, err := registry.ParseFieldSelector(rt.Resource.Resource, lo.FieldSelector)
	if err != nil {
		return f, err
	}
	f.fields = terms
	return f, nil
}

func (f eventFilter) matches(obj api.Object) bool {
	if obj == nil {
		return false
	}
	m := api.Meta(obj)
	if f.labels != nil && !f.labels.Matches(labels.Set(m.Labels)) {
		return false
	}
	if !f.fields.Matches(obj) {
		return false
	}
	return true
}
