package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// ListOptions select and page a List. The zero value lists everything at
// the latest revision.
type ListOptions struct {
	// LabelSelector is Kubernetes' selector syntax ("app=web,tier!=db").
	LabelSelector string
	// FieldSelector supports metadata.name, metadata.namespace and, for
	// pods, spec.nodeName, with =, == and !=, comma-separated.
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
}

// FieldSelector is a parsed field selector: terms over metadata.name,
// metadata.namespace and (pods) spec.nodeName. Lists and watches (in the
// apiserver) filter with the same one.
type FieldSelector []fieldTerm

// ParseFieldSelector reads "a=b,c!=d" for resource; unsupported fields are
// a 400.
func ParseFieldSelector(resource, sel string) (FieldSelector, error) {
	return parseFieldSelector(resource, sel)
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
	rev, cont, err := r.listStored(ctx, q, func(o store.Object) (bool, error) {
		obj, err := decode(resource, o.Value, o.Rev)
		if err != nil {
			return false, err
		}
		if !q.labels.Matches(obj.GetObjectMeta().Labels) || !matchFields(obj, q.fields) {
			return false, nil
		}
		items = append(items, obj)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	list, err := api.NewList(resource)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	if err := list.SetItems(items); err != nil {
		return nil, api.NewInternalError(err)
	}
	lm := list.GetListMeta()
	lm.ResourceVersion = formatRV(rev)
	lm.Continue = cont
	return list, nil
}

// RawList is a list as JSON bytes: each item is the stored object with its
// resourceVersion, never decoded.
type RawList struct {
	TypeMeta api.TypeMeta
	ListMeta api.ListMeta
	Items    [][]byte
}

// ListRaw is List for callers that only write the result out as JSON. It
// skips decoding and re-encoding each item, most of a large list's cost,
// so it serves only lists without selectors (ok false otherwise: use List).
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
	rev, cont, err := r.listStored(ctx, q, func(o store.Object) (bool, error) {
		item, err := withResourceVersion(resource, tm, o)
		if err != nil {
			return false, err
		}
		list.Items = append(list.Items, item)
		return true, nil
	})
	if err != nil {
		return nil, true, err
	}
	list.ListMeta = api.ListMeta{ResourceVersion: formatRV(rev), Continue: cont}
	return list, true, nil
}

// listQuery is a parsed list request.
type listQuery struct {
	info      api.ResourceInfo
	namespace string
	labels    *api.LabelSelector
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
	if q.labels, err = api.ParseLabelSelector(opts.LabelSelector); err != nil {
		return q, api.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
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
// q's limit of kept items. It returns the list's revision and continue
// token.
func (r *Registry) listStored(ctx context.Context, q listQuery, keep func(store.Object) (bool, error)) (int64, string, error) {
	so := store.ListOptions{AtRev: q.atRev, Limit: q.opts.Limit, Continue: q.opts.Continue}
	var listRev, kept int64
	for {
		page, rev, next, err := r.store.List(ctx, q.info.Resource, q.namespace, so)
		if err != nil {
			return 0, "", storeError(ctx, err, q.info.GroupResource(), "")
		}
		listRev = rev
		for _, o := range page {
			ok, err := keep(o)
			if err != nil {
				return 0, "", err
			}
			if ok {
				kept++
			}
		}
		so.Continue = next
		// Fill the page: ask only for what is missing, so that a page never
		// ends past the last item returned and the store's token stays exact.
		if next == "" || q.opts.Limit == 0 || kept >= q.opts.Limit {
			break
		}
		so.AtRev, so.Limit = 0, q.opts.Limit-kept
	}
	return listRev, so.Continue, nil
}

// parseFieldSelector reads "a=b,c!=d" for the fields the registry indexes
// nothing by but can filter on.
func parseFieldSelector(resource, sel string) ([]fieldTerm, error) {
	var terms []fieldTerm
	for _, t := range strings.Split(sel, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		var ft fieldTerm
		var ok bool
		if ft.field, ft.value, ok = strings.Cut(t, "!="); ok {
			ft.negate = true
		} else if ft.field, ft.value, ok = strings.Cut(t, "=="); !ok {
			ft.field, ft.value, ok = strings.Cut(t, "=")
		}
		if !ok {
			return nil, api.NewBadRequest(fmt.Sprintf("invalid field selector %q: term %q has no operator", sel, t))
		}
		ft.field, ft.value = strings.TrimSpace(ft.field), strings.TrimSpace(ft.value)
		switch {
		case ft.field == "metadata.name", ft.field == "metadata.namespace":
		case ft.field == "spec.nodeName" && resource == "pods":
		default:
			return nil, api.NewBadRequest(fmt.Sprintf("field label not supported: %s", ft.field))
		}
		terms = append(terms, ft)
	}
	return terms, nil
}

func matchFields(obj api.Object, terms []fieldTerm) bool {
	for _, t := range terms {
		var got string
		switch t.field {
		case "metadata.name":
			got = obj.GetObjectMeta().Name
		case "metadata.namespace":
			got = obj.GetObjectMeta().Namespace
		case "spec.nodeName":
			if p, ok := obj.(*api.Pod); ok {
				got = p.Spec.NodeName
			}
		}
		if (got == t.value) == t.negate {
			return false
		}
	}
	return true
}
