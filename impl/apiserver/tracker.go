package apiserver

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/converge-dev/converge/impl/api"
)

// Tracker hears every authenticated request, with who sent it, as it
// starts and as it ends. A check of an operator that runs as its own
// process learns from it when the operator is idle (nothing in flight,
// nothing new for a while) and counts the operator's writes, by the user
// its kubeconfig names. It may also refuse a request, as a fault.
type Tracker interface {
	// Begin is called once a request is authenticated, before it is
	// authorized. If refuse is nil the request is served and end (never
	// nil then) hears the answer's status code when the handler returns:
	// for a watch, when the watch ends. A non-nil refuse is the answer
	// instead (an *api.StatusError: 500, 429 with a Retry-After, 504), and
	// end is not called.
	Begin(u User, req Request) (end func(code int), refuse error)
}

// Request is what a Tracker learns of a request.
type Request struct {
	// Verb is Kubernetes' verb: get, list, watch, create, update, patch,
	// delete, deletecollection; a request outside the resources (discovery,
	// /version, /openapi) has the lowercased HTTP method.
	Verb string
	// Resource, Subresource, Namespace and Name are the route's; empty
	// outside the resources.
	Resource, Subresource, Namespace, Name string
	// Path is the URL's path.
	Path string
	// DryRun: the request stores nothing.
	DryRun bool
	// Close, for a watch, ends it as if its client had gone away: the
	// client sees its stream end, and watches again. Nil otherwise.
	Close func()
}

// IsWrite says whether the request asks to change state.
func (r Request) IsWrite() bool {
	switch r.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return !r.DryRun
	}
	return false
}

// requestOf describes r for a Tracker.
func requestOf(r *http.Request) Request {
	req := Request{Verb: strings.ToLower(r.Method), Path: r.URL.Path, DryRun: r.URL.Query().Get("dryRun") != ""}
	if rt, err := parseRoute(r.URL.Path); err == nil {
		req.Verb = verbOf(r, rt)
		req.Resource, req.Subresource, req.Namespace, req.Name = rt.Resource.Resource, rt.Subresource, rt.Namespace, rt.Name
	}
	return req
}

// track runs serve under s's Tracker, if any.
func (s *Server) track(w http.ResponseWriter, r *http.Request, u User, serve func(http.ResponseWriter, *http.Request)) {
	if s.tracker == nil {
		serve(w, r)
		return
	}
	req := requestOf(r)
	if req.Verb == "watch" {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		r, req.Close = r.WithContext(ctx), cancel
	}
	end, refuse := s.tracker.Begin(u, req)
	if refuse != nil {
		if st := api.StatusOf(refuse); st.Details != nil && st.Details.RetryAfterSeconds > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
		}
		writeError(w, refuse)
		return
	}
	cw := &codeWriter{ResponseWriter: w, code: http.StatusOK}
	defer func() { end(cw.code) }()
	serve(cw, r)
}

// codeWriter remembers the status code of a response, and passes flushes
// on (watches flush per event).
type codeWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (c *codeWriter) WriteHeader(code int) {
	if !c.wrote {
		c.code, c.wrote = code, true
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *codeWriter) Write(b []byte) (int, error) {
	c.wrote = true
	return c.ResponseWriter.Write(b)
}

func (c *codeWriter) Flush() {
	c.wrote = true
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (c *codeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
