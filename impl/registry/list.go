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
	info, err := collectionScope(resource, namespace)
	if err != nil {
		return nil, err
	}
	labels, err := api.ParseLabelSelector(opts.LabelSelector)
	if err != nil {
		return nil, api.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
	}
	fields, err := parseFieldSelector(resource, opts.FieldSelector)
	if err != nil {
		return nil, err
	}
	if opts.Limit < 0 {
		return nil, api.NewBadRequest(fmt.Sprintf("limit must not be negative, got %d", opts.Limit))
	}
	var atRev int64
	if opts.ResourceVersion != "0" {
		if atRev, err = parseRV(opts.ResourceVersion); err != nil {
			return nil, err
		}
	}
	so := store.ListOptions{AtRev: atRev, Limit: opts.Limit, Continue: opts.Continue}
	var items []api.Object
	var listRev int64
	for {
		page, rev, next, err := r.store.List(ctx, resource, namespace, so)
		if err != nil {
			return nil, storeError(ctx, err, info.GroupResource(), "")
		}
		listRev = rev
		for _, o := range page {
			obj, err := decode(resource, o.Value, o.Rev)
			if err != nil {
				return nil, err
			}
			if labels.Matches(obj.GetObjectMeta().Labels) && matchFields(obj, fields) {
				items = append(items, obj)
			}
		}
		so.Continue = next
		// Fill the page: ask only for what is missing, so that a page never
		// ends past the last item returned and the store's token stays exact.
		if next == "" || opts.Limit == 0 || int64(len(items)) >= opts.Limit {
			break
		}
		so.AtRev, so.Limit = 0, opts.Limit-int64(len(items))
	}
	list, err := api.NewList(resource)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	if err := list.SetItems(items); err != nil {
		return nil, api.NewInternalError(err)
	}
	lm := list.GetListMeta()
	lm.ResourceVersion = formatRV(listRev)
	lm.Continue = so.Continue
	return list, nil
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
