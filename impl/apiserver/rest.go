package apiserver

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// serveResource dispatches a request on an authorized resource route.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, rt route, verb string) {
	verbs := rt.Resource.Verbs
	if rt.Subresource != "" {
		sub, _ := rt.Resource.Subresource(rt.Subresource)
		verbs = sub.Verbs
	}
	allowed := slices.Contains(verbs, verb)
	// Only collections take create/list/watch/deletecollection; only named
	// objects (or subresources) take get/update/patch/delete.
	switch verb {
	case "list", "watch", "deletecollection":
		allowed = allowed && rt.Subresource == ""
	case "create":
		allowed = allowed && (rt.Name == "") == (rt.Subresource == "")
	case "get", "update", "patch", "delete":
		allowed = allowed && rt.Name != ""
	default:
		allowed = false
	}
	if !allowed {
		writeError(w, api.NewMethodNotSupported(rt.gr(), verb))
		return
	}
	if isCustom(rt) && rt.Resource.Namespaced && rt.Namespace == "" && verb != "list" && verb != "watch" {
		// Upstream serves a namespaced custom resource across namespaces
		// for list and watch only.
		writeError(w, notFoundPath(r.URL.Path))
		return
	}
	if err := checkFieldValidation(r, verb); err != nil {
		writeError(w, err)
		return
	}
	switch rt.Subresource {
	case "status":
		s.serveStatus(w, r, rt, verb)
		return
	case "scale":
		s.serveScale(w, r, rt, verb)
		return
	case "binding":
		s.serveBinding(w, r, rt)
		return
	case "finalize":
		s.serveFinalize(w, r, rt)
		return
	case "log":
		s.podLog(w, r, rt)
		return
	}
	if rt.Resource.Resource == "bindings" {
		s.serveBinding(w, r, rt)
		return
	}
	switch verb {
	case "get":
		s.get(w, r, rt)
	case "list":
		s.list(w, r, rt)
	case "watch":
		s.watch(w, r, rt)
	case "create":
		s.create(w, r, rt)
	case "update":
		s.update(w, r, rt)
	case "patch":
		s.patch(w, r, rt)
	case "delete":
		s.delete(w, r, rt)
	case "deletecollection":
		s.deleteCollection(w, r, rt)
	}
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, rt route) {
	obj, err := s.reg.Get(r.Context(), rt.Resource.Resource, rt.Namespace, rt.Name)
	if err != nil {
		writeError(w, err)
		return
	}
	writeObject(w, r, http.StatusOK, obj)
}

// listOptions reads the list query parameters.
func listOptions(r *http.Request) (registry.ListOptions, error) {
	q := r.URL.Query()
	o := registry.ListOptions{LabelSelector: q.Get("labelSelector"), FieldSelector: q.Get("fieldSelector"),
		Continue: q.Get("continue"), ResourceVersion: q.Get("resourceVersion")}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil || n < 0 {
			return o, api.NewBadRequest(fmt.Sprintf("invalid limit %q: must be a non-negative integer", l))
		}
		o.Limit = n
	}
	return o, nil
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, rt route) {
	o, err := listOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	if _, err := checkListQuery(r, false); err != nil {
		writeError(w, err)
		return
	}
	if negotiateOutput(r) == asObject && atStorageVersion(rt) {
		raw, ok, err := s.reg.ListRaw(r.Context(), rt.Resource.Resource, rt.Namespace, o)
		if err != nil {
			writeError(w, err)
			return
		}
		if ok {
			writeRawList(w, raw)
			return
		}
	}
	list, err := s.reg.List(r.Context(), rt.Resource.Resource, rt.Namespace, o)
	if err != nil {
		writeError(w, err)
		return
	}
	writeObject(w, r, http.StatusOK, list)
}

// protobufType is what kubectl's typed clientset sends on create and update.
const protobufType = "application/vnd.kubernetes.protobuf"

// readBody reads a write's body, which must be JSON or YAML, or for POST,
// PUT and DELETE (DeleteOptions) also Kubernetes protobuf, which it
// converts to JSON (415
// otherwise; no Content-Type is taken as JSON). The media type it returns
// is the body's after conversion.
func readBody(r *http.Request, accepted ...string) ([]byte, string, error) {
	if len(accepted) == 0 {
		accepted = []string{"application/json", "application/yaml"}
		if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodDelete {
			accepted = append(accepted, protobufType)
		}
	}
	ct := r.Header.Get("Content-Type")
	mt := "application/json"
	if ct != "" {
		var err error
		if mt, _, err = mime.ParseMediaType(ct); err != nil {
			return nil, "", api.NewUnsupportedMediaType(accepted)
		}
	}
	if !slices.Contains(accepted, mt) {
		return nil, "", api.NewUnsupportedMediaType(accepted)
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, "", api.NewRequestEntityTooLarge(fmt.Sprintf("limit is %d", mbe.Limit))
		}
		return nil, "", api.NewBadRequest("apiserver: reading the body: " + err.Error())
	}
	if mt == protobufType {
		j, err := jsonFromProtobuf(b)
		if err != nil {
			return nil, "", api.NewBadRequest("the protobuf body could not be decoded: " + err.Error())
		}
		return j, "application/json", nil
	}
	return b, mt, nil
}

// decodeFor reads the body as rt's kind (or subresource kind), applies the
// request's fieldValidation to the fields the kind does not have, and
// checks its namespace and, for named routes, its name against the URL.
func decodeFor(w http.ResponseWriter, r *http.Request, rt route, kindPath string) (api.Object, error) {
	b, _, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, api.NewBadRequest("the request body is empty")
	}
	obj, strict, err := api.DecodeFields(kindPath, rt.Resource.APIVersion(), b)
	if err != nil {
		return nil, err
	}
	if err := validateFields(w, r, obj, strict, nil); err != nil {
		return nil, err
	}
	return obj, checkIdentity(obj, rt)
}

// checkIdentity fills the namespace from the URL and rejects a body that
// names another namespace or (on a named route) another object.
func checkIdentity(obj api.Object, rt route) error {
	m := api.Meta(obj)
	if rt.Resource.Namespaced {
		if m.Namespace != "" && m.Namespace != rt.Namespace {
			return api.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		m.Namespace = rt.Namespace
	} else if m.Namespace != "" {
		return api.NewBadRequest(fmt.Sprintf("%s is not namespaced, but the object sets namespace %q", rt.Resource.Resource, m.Namespace))
	}
	if rt.Name != "" && m.Name != rt.Name {
		return api.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.Name, rt.Name))
	}
	return nil
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, rt route) {
	obj, err := decodeFor(w, r, rt, rt.Resource.Resource)
	if err != nil {
		writeError(w, err)
		return
	}
	api.Default(obj)
	api.Meta(obj).ManagedFields = recordedFields(nil, obj, managerFromRequest(r), "")
	out, wire, err := s.reg.CreateWire(r.Context(), obj)
	if err != nil {
		writeError(w, err)
		return
	}
	if wire != nil && negotiateOutput(r) == asObject && atStorageVersion(rt) {
		writeBody(w, http.StatusCreated, append(wire, '\n'))
		return
	}
	writeObject(w, r, http.StatusCreated, out)
}

func (s *Server) update(w http.ResponseWriter, r *http.Request, rt route) {
	obj, err := decodeFor(w, r, rt, rt.Resource.Resource)
	if err != nil {
		writeError(w, err)
		return
	}
	// obj was decoded for this request, and out is only encoded.
	ctx := registry.WithManagedFields(registry.HandOver(r.Context()), fieldRecorder(managerFromRequest(r), ""))
	out, err := s.reg.Update(ctx, obj)
	if err != nil {
		writeError(w, err)
		return
	}
	writeObject(w, r, http.StatusOK, out)
}

// deleteOptions merges the optional DeleteOptions body with the query
// parameters gracePeriodSeconds and propagationPolicy.
func deleteOptions(r *http.Request) (api.DeleteOptions, error) {
	var o api.DeleteOptions
	b, _, err := readBody(r)
	if err != nil {
		return o, err
	}
	if len(strings.TrimSpace(string(b))) > 0 {
		if err := decodeDeleteOptions(b, &o); err != nil {
			return o, err
		}
	}
	q := r.URL.Query()
	if g := q.Get("gracePeriodSeconds"); g != "" {
		n, err := strconv.ParseInt(g, 10, 64)
		if err != nil {
			return o, api.NewBadRequest(fmt.Sprintf("invalid gracePeriodSeconds %q", g))
		}
		o.GracePeriodSeconds = &n
	}
	if p := q.Get("propagationPolicy"); p != "" {
		pp := api.DeletionPropagation(p)
		o.PropagationPolicy = &pp
	}
	if q.Get("orphanDependents") == "true" {
		t := true
		o.OrphanDependents = &t
	}
	o.DryRun = append(o.DryRun, q["dryRun"]...)
	return o, nil
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, rt route) {
	o, err := deleteOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	out, err := s.reg.Delete(r.Context(), rt.Resource.Resource, rt.Namespace, rt.Name, o)
	if err != nil {
		writeError(w, err)
		return
	}
	// 200 even for a graceful delete that leaves the object, as Kubernetes
	// answers unless orphanDependents=false was asked for.
	writeObject(w, r, http.StatusOK, out)
}

// deleteCollection deletes every object a list with the same query would
// return and answers with them, as `kubectl delete -l` expects.
func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, rt route) {
	o, err := deleteOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	lo, err := listOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	if _, err := checkListQuery(r, false); err != nil {
		writeError(w, err)
		return
	}
	lo.Limit, lo.Continue = 0, ""
	list, err := s.reg.List(r.Context(), rt.Resource.Resource, rt.Namespace, lo)
	if err != nil {
		writeError(w, err)
		return
	}
	var deleted []api.Object
	for _, item := range api.Items(list) {
		m := api.Meta(item)
		out, err := s.reg.Delete(r.Context(), rt.Resource.Resource, m.Namespace, m.Name, o)
		if api.IsNotFound(err) {
			continue // deleted meanwhile
		}
		if err != nil {
			writeError(w, err)
			return
		}
		deleted = append(deleted, out)
	}
	if err := api.SetItems(list, deleted); err != nil {
		writeError(w, api.NewInternalError(err))
		return
	}
	writeObject(w, r, http.StatusOK, list)
}
