package operator

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// kindSink is the operator's logger: it logs nothing, and keeps the
// values it is given. controller-runtime's builder gives each
// controller's logger "controllerGroup" and "controllerKind" (the kind of
// For), which is how the host learns a controller's primary kind without
// reading the builder's private fields.
type kindSink struct{ values []any }

func (s *kindSink) Init(logr.RuntimeInfo)        {}
func (s *kindSink) Enabled(int) bool             { return false }
func (s *kindSink) Info(int, string, ...any)     {}
func (s *kindSink) Error(error, string, ...any)  {}
func (s *kindSink) WithName(string) logr.LogSink { return s }
func (s *kindSink) WithValues(kv ...any) logr.LogSink {
	return &kindSink{values: append(slices.Clip(s.values), kv...)}
}

// value is the last value logged under key.
func (s *kindSink) value(key string) (string, bool) {
	for i := len(s.values) - 2; i >= 0; i -= 2 {
		if k, _ := s.values[i].(string); k == key {
			v, ok := s.values[i+1].(string)
			return v, ok
		}
	}
	return "", false
}

// primaryOf is the resource of a controller's primary kind (For), read
// from its LogConstructor; false for a controller built without For or
// with a logger of its own.
func primaryOf(ctrl reflect.Value, mapper meta.RESTMapper) (schema.GroupResource, schema.GroupKind, bool) {
	lc := ctrl.FieldByName("LogConstructor")
	f, ok := func() (func(*reconcile.Request) logr.Logger, bool) {
		if !lc.IsValid() || !lc.CanInterface() || lc.IsNil() {
			return nil, false
		}
		f, ok := lc.Interface().(func(*reconcile.Request) logr.Logger)
		return f, ok
	}()
	if !ok || mapper == nil {
		return schema.GroupResource{}, schema.GroupKind{}, false
	}
	ks, ok := f(nil).GetSink().(*kindSink)
	if !ok {
		return schema.GroupResource{}, schema.GroupKind{}, false
	}
	group, okg := ks.value("controllerGroup")
	kind, okk := ks.value("controllerKind")
	if !okg || !okk || kind == "" {
		return schema.GroupResource{}, schema.GroupKind{}, false
	}
	gk := schema.GroupKind{Group: group, Kind: kind}
	m, err := mapper.RESTMapping(gk)
	if err != nil {
		return schema.GroupResource{}, schema.GroupKind{}, false
	}
	return m.Resource.GroupResource(), gk, true
}

// goneAtStart says whether the reconcile's own request's object was
// absent from the operator's cache of its kind, up to date, when the
// reconcile began: every later pass starts from the same NotFound.
func (o *observed) goneAtStart(req reconcile.Request, p *pass) bool {
	if !o.hasPrimary || p.life == nil || p.life.cache == nil || !p.upToDate(o.primaryKind.WithVersion("")) {
		return false
	}
	for _, i := range p.life.cache.all() {
		if i.gvk.GroupKind() == o.primaryKind {
			_, ok := i.get(client.ObjectKey{Namespace: req.Namespace, Name: req.Name})
			return !ok
		}
	}
	return false
}

// ownObjectGone says whether err is a NotFound of the reconcile's own
// request's object, which was gone from its up-to-date cache when the
// reconcile began (goneAtStart). controller-runtime requeues a reconcile
// that returns an error with backoff, forever: for an object that is gone,
// nothing ever ends it. Its documentation and kubebuilder's scaffold
// ignore that NotFound (client.IgnoreNotFound on the primary's Get),
// because a deleted object has nothing to reconcile. (A delete that lands
// while a reconcile runs is followed by a pass that starts from it, and
// that pass is the one judged.)
func (o *observed) ownObjectGone(err error, req reconcile.Request, gone bool) bool {
	if !gone || !apierrors.IsNotFound(err) {
		return false
	}
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return false
	}
	d := st.Status().Details
	return d != nil && d.Name == req.Name && d.Group == o.primary.Group && d.Kind == o.primary.Resource
}

// refusedValues is the string values a 422's field causes name ("Invalid
// value: \"x\": ..."), and false if a cause names none: then the refusal
// is not about a value.
func refusedValues(err error) ([]string, bool) {
	if !apierrors.IsInvalid(err) {
		return nil, false
	}
	var st apierrors.APIStatus
	if !errors.As(err, &st) || st.Status().Details == nil || len(st.Status().Details.Causes) == 0 {
		return nil, false
	}
	var out []string
	for _, c := range st.Status().Details.Causes {
		_, rest, ok := strings.Cut(c.Message, " value: ")
		if !ok {
			return nil, false
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, false
		}
		v, err := strconv.Unquote(q)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}
