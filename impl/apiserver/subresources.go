package apiserver

import (
	"net/http"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// serveStatus: GET reads the object, PUT and PATCH write only its status
// through registry.UpdateStatus.
func (s *Server) serveStatus(w http.ResponseWriter, r *http.Request, rt route, verb string) {
	ctx := r.Context()
	recording := registry.WithManagedFields(ctx, fieldRecorder(managerFromRequest(r), "status"))
	switch verb {
	case "get":
		s.get(w, r, rt)
	case "update":
		obj, err := decodeFor(w, r, rt, rt.Resource.Resource)
		if err != nil {
			writeError(w, err)
			return
		}
		// obj was decoded for this request, and out is only encoded.
		out, err := s.reg.UpdateStatus(registry.HandOver(recording), obj)
		if err != nil {
			writeError(w, err)
			return
		}
		writeObject(w, r, http.StatusOK, out)
	case "patch":
		s.servePatch(w, r, rt, patchTarget{
			kind:  rt.Resource.Resource,
			get:   func() (api.Object, error) { return s.reg.Get(ctx, rt.Resource.Resource, rt.Namespace, rt.Name) },
			write: func(o api.Object) (api.Object, error) { return s.reg.UpdateStatus(recording, o) },
		})
	}
}

// serveScale serves autoscaling/v1 Scale for deployments and replicasets.
func (s *Server) serveScale(w http.ResponseWriter, r *http.Request, rt route, verb string) {
	ctx := r.Context()
	get := func() (api.Object, error) {
		obj, err := s.reg.Get(ctx, rt.Resource.Resource, rt.Namespace, rt.Name)
		if err != nil {
			return nil, err
		}
		return scaleOf(obj), nil
	}
	write := func(o api.Object) (api.Object, error) { return s.writeScale(r, rt, o.(*api.Scale)) }
	switch verb {
	case "get":
		sc, err := get()
		if err != nil {
			writeError(w, err)
			return
		}
		writeObject(w, r, http.StatusOK, sc)
	case "update":
		obj, err := decodeFor(w, r, rt, rt.Resource.Resource+"/scale")
		if err != nil {
			writeError(w, err)
			return
		}
		out, err := write(obj)
		if err != nil {
			writeError(w, err)
			return
		}
		writeObject(w, r, http.StatusOK, out)
	case "patch":
		s.servePatch(w, r, rt, patchTarget{kind: rt.Resource.Resource + "/scale", get: get, write: write})
	}
}

// scaleOf is the Scale view of a deployment or replicaset.
func scaleOf(obj api.Object) *api.Scale {
	m := api.Meta(obj)
	sc := &api.Scale{TypeMeta: api.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: api.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp}}
	switch o := obj.(type) {
	case *api.Deployment:
		if o.Spec.Replicas != nil {
			sc.Spec.Replicas = *o.Spec.Replicas
		}
		sc.Status.Replicas = o.Status.Replicas
		sc.Status.Selector = api.SelectorString(o.Spec.Selector)
	case *api.ReplicaSet:
		if o.Spec.Replicas != nil {
			sc.Spec.Replicas = *o.Spec.Replicas
		}
		sc.Status.Replicas = o.Status.Replicas
		sc.Status.Selector = api.SelectorString(o.Spec.Selector)
	case *api.StatefulSet:
		sc.Spec.Replicas = replicas(o.Spec.Replicas)
		sc.Status.Replicas = o.Status.Replicas
		sc.Status.Selector = selectorString(o.Spec.Selector)
	case *api.CustomObject:
		customScaleOf(o, sc)
	}
	return sc
}

// writeScale sets spec.replicas of the scaled object; the Scale's
// resourceVersion, if any, is the object's precondition.
func (s *Server) writeScale(r *http.Request, rt route, sc *api.Scale) (api.Object, error) {
	ctx := r.Context()
	obj, err := s.reg.Get(ctx, rt.Resource.Resource, rt.Namespace, rt.Name)
	if err != nil {
		return nil, err
	}
	if sc.ResourceVersion != "" && sc.ResourceVersion != api.Meta(obj).ResourceVersion {
		return nil, api.NewOptimisticLockConflict(rt.gr(), rt.Name)
	}
	if sc.Spec.Replicas < 0 {
		return nil, api.NewInvalid(api.GroupKind{Group: "autoscaling", Kind: "Scale"}, rt.Name,
			api.FieldErrors{api.FieldInvalid("spec.replicas", sc.Spec.Replicas, "must be greater than or equal to 0")})
	}
	n := sc.Spec.Replicas
	old := scaleOf(obj)
	switch o := obj.(type) {
	case *api.Deployment:
		o.Spec.Replicas = &n
	case *api.ReplicaSet:
		o.Spec.Replicas = &n
	case *api.StatefulSet:
		o.Spec.Replicas = &n
	case *api.CustomObject:
		if !setCustomReplicas(o, n) {
			return nil, api.NewMethodNotSupported(rt.gr(), "scale")
		}
	default:
		return nil, api.NewMethodNotSupported(rt.gr(), "scale")
	}
	recordScale(obj, old, sc, managerFromRequest(r))
	out, err := s.reg.Update(ctx, obj)
	if err != nil {
		return nil, err
	}
	return scaleOf(out), nil
}

// serveBinding binds a pod: POST pods/{name}/binding or POST bindings.
func (s *Server) serveBinding(w http.ResponseWriter, r *http.Request, rt route) {
	kind := "pods/binding"
	if rt.Subresource == "" {
		kind = "bindings"
	}
	obj, err := decodeFor(w, r, rt, kind)
	if err != nil {
		writeError(w, err)
		return
	}
	b := obj.(*api.Binding)
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		writeError(w, api.NewInvalid(api.GroupKind{Kind: "Binding"}, b.Name,
			api.FieldErrors{api.FieldNotSupported("target.kind", b.Target.Kind, []string{"Node"})}))
		return
	}
	if _, err := s.reg.Bind(r.Context(), rt.Namespace, b.Name, b.Target.Name, b.ResourceVersion); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, successStatus(http.StatusCreated))
}
