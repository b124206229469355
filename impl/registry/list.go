package registry

import (
	"context"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// ListOptions select and page a List. The zero value lists everything at
// the latest revision.
type ListOptions struct {
	// LabelSelector is Kubernetes' selector syntax ("app=web,tier!=db"),
	// as labels.Parse reads it.
	LabelSelector string
	// FieldSelector is Kubernetes' field selector syntax, as
	// fields.ParseSelector reads it ("a=b,c!=d", values escaped as
	// fields.EscapeValue does), over metadata.name, metadata.namespace and
	// the fields Kubernetes makes selectable on the resource
	// (selectableFields).
	FieldSelector string
	// Limit caps the items of one page; 0 means no cap.
	Limit int64
	// Continue is the previous page's metadata.continue.
	Continue string
	// ResourceVersion reads the snapshot at that revision; "" and "0" mean
	// the latest.
	ResourceVersion string
}

// fieldTerm is one term of a field selector.
type fieldTerm struct {
	field, value string
	negate       bool
	get          fieldGetter
}

// FieldSelector is a parsed field selector: terms over metadata.name,
// metadata.namespace and the resource's selectable fields (see
// selectableFields: pods' spec.nodeName and status.phase, events'
// involvedObject.*, reason, source, type, ...). Lists and watches (in the
// apiserver) filter with the same one.
type FieldSelector []fieldTerm

// ParseFieldSelector reads a fieldSelector for resource; one that does not
// parse, or selects on a field the resource does not offer, is a 400 with
// Kubernetes' message.
func ParseFieldSelector(resource, sel string) (FieldSelector, error) {
	return parseFieldSelector(resource, sel)
}

// ParseLabelSelector reads a labelSelector as kube-apiserver does
// (labels.Parse); one that does not parse is a 400 with its message.
func ParseLabelSelector(sel string) (labels.Selector, error) {
	s, err := labels.Parse(sel)
	if err != nil {
		return nil, api.NewBadRequest(err.Error())
	}
	return s, nil
}

// Matches reports whether obj satisfies every term.
func (f FieldSelector) Matches(obj api.Object) bool { return matchFields(obj, f) }

// List returns the objects of resource in namespace ("" = all namespaces)
// that match opts, as the resource's list kind.
func (r *Registry) List(ctx context.Context, resource, namespace string, opts ListOptions) (api.ListObject, error) {
	q, err := r.parseList(resource, namespace, opts)
	if err != nil {
		return nil, err
	}
	var items []api.Object
	shared := handsOver(ctx)
	rev, cont, remaining, err := r.listStored(ctx, q, func(o store.Object) (bool, error) {
		var obj api.Object
		if shared {
			obj = r.recent.kept(o)
		}
		if obj == nil {
			var err error
			if obj, err = r.recent.decode(api.ResourceNamed(o.Key.Resource), o, false); err != nil {
				return false, err
			}
		}
		if !q.labels.Matches(labels.Set(api.Meta(obj).Labels)) || !matchFields(obj, q.fields) {
			return false, nil
		}
		items = append(items, obj)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	list, err := newList(resource)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	if err := api.SetItems(list, items); err != nil {
		return nil, api.NewInternalError(err)
	}
	lm := api.ListMetaOf(list)
	lm.ResourceVersion = formatRV(rev)
	lm.Continue = cont
	lm.RemainingItemCount = remaining
	return list, nil
}

// RawList is a list as JSON bytes: each item is the stored object with its
// resourceVersion (Registry.wire).
type RawList struct {
	TypeMeta api.TypeMeta
	ListMeta api.ListMeta
	Items    [][]byte
}

// ListRaw is List for callers that only write the result out as JSON. It
// skips decoding and re-encoding each JSON value (a custom resource's),
// most of a large list's cost, and encodes a protobuf value's kept object
// when there is one, so it serves only lists without selectors (ok false
// otherwise: use List).
func (r *Registry) ListRaw(ctx context.Context, resource, namespace string, opts ListOptions) (_ *RawList, ok bool, _ error) {
	if opts.LabelSelector != "" || opts.FieldSelector != "" {
		return nil, false, nil
	}
	q, err := r.parseList(resource, namespace, opts)
	if err != nil {
		return nil, true, err
	}
	tm := api.TypeMeta{Kind: q.info.Kind, APIVersion: q.info.APIVersion()}
	list := &RawList{TypeMeta: api.TypeMeta{Kind: q.info.ListKind, APIVersion: tm.APIVersion}, Items: [][]byte{}}
	rev, cont, remaining, err := r.listStored(ctx, q, func(o store.Object) (bool, error) {
		item, err := r.wire(resource, tm, o)
		if err != nil {
			return false, err
		}
		list.Items = append(list.Items, item)
		return true, nil
	})
	if err != nil {
		return nil, true, err
	}
	list.ListMeta = api.ListMeta{ResourceVersion: formatRV(rev), Continue: cont, RemainingItemCount: remaining}
	return list, true, nil
}

// listQuery is a parsed list request.
type listQuery struct {
	info      api.ResourceInfo
	namespace string
	labels    labels.Selector
	fields    []fieldTerm
	opts      ListOptions
	atRev     int64
}

func (r *Registry) parseList(resource, namespace string, opts ListOptions) (listQuery, error) {
	q := listQuery{namespace: namespace, opts: opts}
	var err error
	if q.info, err = collectionScope(resource, namespace); err != nil {
		return q, err
	}
	if q.labels, err = ParseLabelSelector(opts.LabelSelector); err != nil {
		return q, err
	}
	if q.fields, err = parseFieldSelector(resource, opts.FieldSelector); err != nil {
		return q, err
	}
	if opts.Limit < 0 {
		return q, api.NewBadRequest(fmt.Sprintf("limit must not be negative, got %d", opts.Limit))
	}
	if opts.ResourceVersion != "0" {
		if q.atRev, err = parseRV(opts.ResourceVersion); err != nil {
			return q, err
		}
	}
	return q, nil
}

// listStored reads q's stored objects page by page and offers each to
// keep, which reports whether it took it; the pages are filled until
// q's limit of kept items. It returns the list's revision, continue token
// and, as kube-apiserver, the count of the objects after the page when
// nothing filters them (a count with selectors would be wrong: nil).
func (r *Registry) listStored(ctx context.Context, q listQuery, keep func(store.Object) (bool, error)) (int64, string, *int64, error) {
	so := store.ListOptions{AtRev: q.atRev, Limit: q.opts.Limit, Continue: q.opts.Continue}
	var listRev, kept int64
	var remaining *int64
	for {
		page, err := r.store.ListPage(ctx, storageResource(q.info), q.namespace, so)
		if err != nil {
			return 0, "", nil, storeError(ctx, err, q.info.GroupResource(), "")
		}
		listRev = page.Rev
		for _, o := range page.Objects {
			ok, err := keep(o)
			if err != nil {
				return 0, "", nil, err
			}
			if ok {
				kept++
			}
		}
		so.Continue = page.Continue
		if page.Continue != "" && q.opts.LabelSelector == "" && q.opts.FieldSelector == "" {
			remaining = &page.Remaining
		}
		// Fill the page: ask only for what is missing, so that a page never
		// ends past the last item returned and the store's token stays exact.
		if page.Continue == "" || q.opts.Limit == 0 || kept >= q.opts.Limit {
			break
		}
		so.AtRev, so.Limit = 0, q.opts.Limit-kept
	}
	return listRev, so.Continue, remaining, nil
}

// parseFieldSelector reads sel with fields.ParseSelector, as
// kube-apiserver does, then looks up each field's getter: a field the
// resource does not offer is refused as upstream's field label
// conversion refuses it.
func parseFieldSelector(resource, sel string) ([]fieldTerm, error) {
	parsed, err := fields.ParseSelector(sel)
	if err != nil {
		return nil, api.NewBadRequest(err.Error())
	}
	var terms []fieldTerm
	for _, r := range parsed.Requirements() {
		get, ok := selectableField(resource, r.Field)
		if !ok {
			return nil, api.NewBadRequest("field label not supported: " + r.Field)
		}
		terms = append(terms, fieldTerm{field: r.Field, value: r.Value, negate: r.Operator == selection.NotEquals, get: get})
	}
	return terms, nil
}

func matchFields(obj api.Object, terms []fieldTerm) bool {
	for _, t := range terms {
		if (t.get(obj) == t.value) == t.negate {
			return false
		}
	}
	return true
}

// fieldGetter reads one selectable field of an object as a string.
type fieldGetter func(api.Object) string

// fieldOf adapts a typed accessor; another kind reads as "".
func fieldOf[T api.Object](get func(T) string) fieldGetter {
	return func(o api.Object) string {
		if t, ok := o.(T); ok {
			return get(t)
		}
		return ""
	}
}

// metadataFields are selectable on every resource.
var metadataFields = map[string]fieldGetter{
	"metadata.name":      func(o api.Object) string { return api.Meta(o).Name },
	"metadata.namespace": func(o api.Object) string { return api.Meta(o).Namespace },
}

// selectableFields are the fields beyond metadata each resource can be
// selected on: those of Kubernetes' ToSelectableFields that converge's
// types carry.
var selectableFields = map[string]map[string]fieldGetter{
	"pods": {
		"spec.nodeName":           fieldOf(func(p *api.Pod) string { return p.Spec.NodeName }),
		"spec.restartPolicy":      fieldOf(func(p *api.Pod) string { return string(p.Spec.RestartPolicy) }),
		"spec.schedulerName":      fieldOf(func(p *api.Pod) string { return p.Spec.SchedulerName }),
		"spec.serviceAccountName": fieldOf(func(p *api.Pod) string { return p.Spec.ServiceAccountName }),
		// converge pods never use the host network.
		"spec.hostNetwork":         func(api.Object) string { return "false" },
		"status.phase":             fieldOf(func(p *api.Pod) string { return string(p.Status.Phase) }),
		"status.podIP":             fieldOf(podIP),
		"status.nominatedNodeName": fieldOf(func(p *api.Pod) string { return p.Status.NominatedNodeName }),
	},
	"nodes": {
		"spec.unschedulable": fieldOf(func(n *api.Node) string { return strconv.FormatBool(n.Spec.Unschedulable) }),
	},
	"namespaces": {
		"status.phase": fieldOf(func(n *api.Namespace) string { return string(n.Status.Phase) }),
	},
	"events": {
		"involvedObject.kind":            fieldOf(func(e *api.Event) string { return e.InvolvedObject.Kind }),
		"involvedObject.namespace":       fieldOf(func(e *api.Event) string { return e.InvolvedObject.Namespace }),
		"involvedObject.name":            fieldOf(func(e *api.Event) string { return e.InvolvedObject.Name }),
		"involvedObject.uid":             fieldOf(func(e *api.Event) string { return string(e.InvolvedObject.UID) }),
		"involvedObject.apiVersion":      fieldOf(func(e *api.Event) string { return e.InvolvedObject.APIVersion }),
		"involvedObject.resourceVersion": fieldOf(func(e *api.Event) string { return e.InvolvedObject.ResourceVersion }),
		"involvedObject.fieldPath":       fieldOf(func(e *api.Event) string { return e.InvolvedObject.FieldPath }),
		"reason":                         fieldOf(func(e *api.Event) string { return e.Reason }),
		"reportingComponent":             fieldOf(func(e *api.Event) string { return e.ReportingController }),
		"source":                         fieldOf(eventSource),
		"type":                           fieldOf(func(e *api.Event) string { return e.Type }),
	},
}

func selectableField(resource, field string) (fieldGetter, bool) {
	if get, ok := metadataFields[field]; ok {
		return get, true
	}
	if c, ok := api.LookupCustom(resource); ok {
		return customSelectableField(c, field)
	}
	get, ok := selectableFields[resource][field]
	return get, ok
}

// podIP is the first of status.podIPs, as Kubernetes selects on it.
func podIP(p *api.Pod) string {
	if len(p.Status.PodIPs) > 0 {
		return p.Status.PodIPs[0].IP
	}
	return p.Status.PodIP
}

// eventSource is source.component, or reportingComponent for events
// recorded through the newer API.
func eventSource(e *api.Event) string {
	if e.Source.Component != "" {
		return e.Source.Component
	}
	return e.ReportingController
}
