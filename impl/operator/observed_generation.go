package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// OracleObservedGeneration names the observed-generation oracle in a
// Failure.
const OracleObservedGeneration = "observed generation"

// generationSeen is what the observed-generation oracle keeps of one
// reconcile: the generations of its own object that it read, and whether
// it wrote one of its children since the newest.
type generationSeen struct {
	kind     schema.GroupKind // the controller's primary kind; zero: not judged
	resource string
	read     bool
	acted    int64 // the generation its writes so far derive from
	newer    int64 // the newest generation it read since, if above acted
	claim    *int64
	reported bool
}

// beginGenerations starts the oracle's record of a reconcile of a
// controller whose primary kind is known.
func (h *Host) beginGenerations(p *pass, gr schema.GroupResource, gk schema.GroupKind) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p.checks.gen = generationSeen{kind: gk, resource: gr.Resource}
}

// noteRead records a read of the reconcile's own object at generation:
// from its cache, live, or as a write's answer. The first read is the
// spec it acts on; a newer one counts once it writes something else.
func (h *Host) noteRead(p *pass, gk schema.GroupKind, key client.ObjectKey, generation int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p.checks.gen.see(p, gk, key, generation)
}

func (g *generationSeen) see(p *pass, gk schema.GroupKind, key client.ObjectKey, generation int64) {
	if g.kind.Empty() || gk != g.kind || key != p.Request.NamespacedName {
		return
	}
	switch {
	case !g.read:
		g.read, g.acted = true, generation
	case generation > max(g.acted, g.newer):
		g.newer = generation
	}
}

// cacheRead is the stepped cache's hook: a reconcile's read of an object
// from the operator's cache.
func (h *Host) cacheRead(ctx context.Context, gk schema.GroupKind, key client.ObjectKey, generation int64) {
	if p, ok := ctx.Value(passKey{}).(*pass); ok {
		h.noteRead(p, gk, key, generation)
	}
}

// answerRead records the object a live read or a write of the
// reconcile's own object answered with: the reconcile holds it now.
func (h *Host) answerRead(p *pass, req *http.Request, resp *http.Response, w written) {
	if p == nil || resp == nil || resp.StatusCode >= 300 || req.Method == http.MethodDelete {
		return
	}
	gvk, ok := w.gvk()
	if !ok {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	p.checks.gen.see(p, gvk.GroupKind(), clientKey(w.Metadata.Namespace, w.Metadata.Name), w.Metadata.Generation)
}

// noteClaim reads, before a status write of the reconcile's own object
// goes out, the status.observedGeneration its body sets, if any: a full
// object, a merge or apply patch that names it, or a JSON patch that
// adds or replaces it. The body is put back for the apiserver.
func (h *Host) noteClaim(p *pass, req *http.Request) {
	if (req.Method != http.MethodPut && req.Method != http.MethodPatch) || !strings.HasSuffix(req.URL.Path, "/status") || req.Body == nil {
		return
	}
	h.mu.Lock()
	g := &p.checks.gen
	judged := !g.kind.Empty() && resourceOf(req.URL.Path) == g.resource
	g.claim = nil
	h.mu.Unlock()
	if !judged {
		return
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return
	}
	if og, ok := claimedGeneration(types.PatchType(req.Header.Get("Content-Type")), body); ok {
		h.mu.Lock()
		p.checks.gen.claim = &og
		h.mu.Unlock()
	}
}

// claimedGeneration is the status.observedGeneration a write's body sets.
func claimedGeneration(contentType types.PatchType, body []byte) (int64, bool) {
	if contentType == types.JSONPatchType {
		var ops []struct {
			Op    string          `json:"op"`
			Path  string          `json:"path"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(body, &ops) != nil {
			return 0, false
		}
		for i := len(ops) - 1; i >= 0; i-- {
			op := ops[i]
			if op.Op != "add" && op.Op != "replace" {
				continue
			}
			switch op.Path {
			case "/status/observedGeneration":
				var g int64
				return g, json.Unmarshal(op.Value, &g) == nil
			case "/status":
				return statusGeneration(op.Value)
			}
		}
		return 0, false
	}
	data, err := yaml.YAMLToJSON(body) // an apply patch may be YAML; JSON is YAML
	if err != nil {
		return 0, false
	}
	var obj struct {
		Status json.RawMessage `json:"status"`
	}
	if json.Unmarshal(data, &obj) != nil || obj.Status == nil {
		return 0, false
	}
	return statusGeneration(obj.Status)
}

func statusGeneration(status json.RawMessage) (int64, bool) {
	var st struct {
		ObservedGeneration *int64 `json:"observedGeneration"`
	}
	if json.Unmarshal(status, &st) != nil || st.ObservedGeneration == nil {
		return 0, false
	}
	return *st.ObservedGeneration, true
}

// observedGeneration is the oracle on one landed write of a reconcile.
// Convention (kstatus, and the API conventions' status.observedGeneration):
// observedGeneration says which generation of the spec the status
// describes, so a reconcile may claim only a generation whose spec its
// writes were made from. A reconcile acts on its object as it first read
// it; a status write that claims a newer generation, after a re-read
// (typically the live object, re-read on a conflict of the status write)
// with no other write since, tells kubectl wait, Flux and Argo CD that the
// new spec is in place while every child still has the old one. A write
// of one of its children (an object whose ownerReferences name it) after
// the re-read counts as the work redone on the newer spec: it is let
// through. A write of anything else (its own bookkeeping, another
// object's status) is no work on the spec, and does not
// (TestObservedGenerationCountsOnlyTheWorkRedone).
func (h *Host) observedGeneration(p *pass, req *http.Request, w written) error {
	g := &p.checks.gen
	if g.kind.Empty() || g.reported {
		return nil
	}
	gvk, _ := w.gvk()
	own := gvk.GroupKind() == g.kind && w.Metadata.Name == p.Request.Name && w.Metadata.Namespace == p.Request.Namespace
	if !own {
		if g.newer > g.acted && req.Method != http.MethodGet && w.ownedBy(g.kind, p.Request.Name) {
			g.acted, g.newer = g.newer, 0 // a child written after the re-read
		}
		return nil
	}
	claim := g.claim
	g.claim = nil
	if claim == nil || !strings.HasSuffix(req.URL.Path, "/status") || !g.read || *claim <= g.acted {
		return nil
	}
	g.reported = true
	reread := ""
	if g.newer >= *claim {
		reread = fmt.Sprintf(", then re-read it at generation %d and wrote none of its children before this status write", g.newer)
	}
	return fmt.Errorf("status.observedGeneration %d of %s %s claims a spec the reconcile never acted on: it acted on generation %d (its first read)%s; a status says which spec it describes, and tools that wait on it (kstatus, kubectl wait, Flux, Argo CD) now take generation %d as rolled out",
		*claim, g.resource, objectKey(p.Request.Namespace, p.Request.Name), g.acted, reread, *claim)
}

// ownedBy says whether w names the object of kind gk called name among
// its owners (in w's namespace, or cluster-scoped).
func (w written) ownedBy(gk schema.GroupKind, name string) bool {
	for _, r := range w.Metadata.OwnerReferences {
		gv, err := schema.ParseGroupVersion(r.APIVersion)
		if err == nil && gv.WithKind(r.Kind).GroupKind() == gk && r.Name == name {
			return true
		}
	}
	return false
}
