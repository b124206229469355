package apiserver

import (
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/converge-dev/converge/impl/api"
)

// watchMode is what a list or watch request asks beyond its selectors:
// the parameters Kubernetes' ListOptions validation weighs, after
// Kubernetes' defaulting.
type watchMode struct {
	// initialEvents: send the objects that exist as ADDED events first.
	initialEvents bool
	// bookmarks: allowWatchBookmarks, periodic BOOKMARK events, and with
	// initialEvents the one that ends them (k8s.io/initial-events-end).
	bookmarks bool
}

// initialEventsEnd is the annotation of the BOOKMARK that ends a watch's
// initial events, as client-go's WatchList waits for it.
const initialEventsEnd = metav1.InitialEventsAnnotationKey

// checkListQuery validates a list's (watch false) or a watch's query
// parameters as kube-apiserver does: apimachinery's SetListOptionsDefaults
// and ValidateListOptions, with the WatchList feature on as in Kubernetes
// since v1.34. A parameter that does not parse is 400 BadRequest; a
// combination Kubernetes refuses is its 422 Invalid ListOptions.
func checkListQuery(r *http.Request, watch bool) (watchMode, error) {
	q := r.URL.Query()
	opts := internalversion.ListOptions{
		Watch:                watch,
		ResourceVersion:      q.Get("resourceVersion"),
		ResourceVersionMatch: metav1.ResourceVersionMatch(q.Get("resourceVersionMatch")),
		Continue:             q.Get("continue"),
	}
	if v := q.Get("allowWatchBookmarks"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return watchMode{}, api.NewBadRequest(fmt.Sprintf("invalid allowWatchBookmarks %q: %v", v, err))
		}
		opts.AllowWatchBookmarks = b
	}
	if v, ok := q["sendInitialEvents"]; ok && len(v) > 0 {
		b, err := strconv.ParseBool(v[0])
		if err != nil {
			return watchMode{}, api.NewBadRequest(fmt.Sprintf("invalid sendInitialEvents %q: %v", v[0], err))
		}
		opts.SendInitialEvents = &b
	}
	internalversion.SetListOptionsDefaults(&opts, true)
	if errs := validation.ValidateListOptions(&opts, true); len(errs) > 0 {
		return watchMode{}, fromKube(apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs))
	}
	m := watchMode{bookmarks: opts.AllowWatchBookmarks}
	if opts.SendInitialEvents != nil {
		m.initialEvents = *opts.SendInitialEvents
	}
	return m, nil
}

// fromKube carries an apimachinery StatusError's Status, as Kubernetes
// writes it, in converge's own StatusError.
func fromKube(e *apierrors.StatusError) *api.StatusError {
	st := e.ErrStatus
	st.Kind, st.APIVersion = "Status", "v1"
	return &api.StatusError{Status: st}
}
