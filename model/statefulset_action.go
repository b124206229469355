package model

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrStatefulSetImmutable refuses an apply that changes a StatefulSet's
// spec beyond what the apiserver lets an update change.
var ErrStatefulSetImmutable = errors.New("model: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")

// StatefulSetOptions are apply-statefulset's spec fields beyond replicas
// and image. The zero value is upstream's defaults: OrderedReady, no
// claim templates, Retain on delete and on scale down, serviceName the
// set's name.
type StatefulSetOptions struct {
	Service       string   // spec.serviceName; "" is the set's name
	Parallel      bool     // podManagementPolicy Parallel
	Claims        []string // volumeClaimTemplates' names
	DeleteOnScale bool     // persistentVolumeClaimRetentionPolicy.whenScaled Delete
	DeleteOnGone  bool     // persistentVolumeClaimRetentionPolicy.whenDeleted Delete
}

// statefulSetString writes
// "apply-statefulset NAME replicas=N image=I [service=S] [policy=Parallel]
// [claims=a,b] [when-scaled=Delete] [when-deleted=Delete]".
func (a Action) statefulSetString(arg func(string), kv func(string, string)) {
	arg(a.Key)
	kv("replicas", strconv.Itoa(a.N))
	kv("image", a.Image)
	o := a.StatefulSet
	if o == nil {
		return
	}
	if o.Service != "" {
		kv("service", o.Service)
	}
	if o.Parallel {
		kv("policy", "Parallel")
	}
	if len(o.Claims) > 0 {
		kv("claims", strings.Join(o.Claims, ","))
	}
	if o.DeleteOnScale {
		kv("when-scaled", "Delete")
	}
	if o.DeleteOnGone {
		kv("when-deleted", "Delete")
	}
}

func (a *Action) parseStatefulSet(kv map[string]string, line string) error {
	a.Image = kv["image"]
	if a.Image == "" {
		return fmt.Errorf("model: apply-statefulset needs image= in %q", line)
	}
	n, err := strconv.Atoi(kv["replicas"])
	if err != nil || n < 0 {
		return fmt.Errorf("model: %q is not a non-negative number in %q", kv["replicas"], line)
	}
	a.N = n
	var o StatefulSetOptions
	o.Service = kv["service"]
	switch kv["policy"] {
	case "", "OrderedReady":
	case "Parallel":
		o.Parallel = true
	default:
		return fmt.Errorf("model: policy takes OrderedReady or Parallel, got %q", line)
	}
	if c := kv["claims"]; c != "" {
		o.Claims = strings.Split(c, ",")
		seen := map[string]bool{}
		for _, t := range o.Claims {
			if t == "" || strings.Contains(t, "/") || seen[t] {
				return fmt.Errorf("model: claims takes distinct template names, got %q", line)
			}
			seen[t] = true
		}
	}
	for k, dst := range map[string]*bool{"when-scaled": &o.DeleteOnScale, "when-deleted": &o.DeleteOnGone} {
		switch kv[k] {
		case "", "Retain":
		case "Delete":
			*dst = true
		default:
			return fmt.Errorf("model: %s takes Retain or Delete, got %q", k, line)
		}
	}
	if o.Service != "" || o.Parallel || len(o.Claims) > 0 || o.DeleteOnScale || o.DeleteOnGone {
		a.StatefulSet = &o
	}
	return nil
}

// statefulSetIntent is apply-statefulset's write: a create, or an update
// of replicas, image and retention policy (the apiserver forbids changing
// the rest, so an apply that would is refused as upstream's validation
// refuses it).
func statefulSetIntent(a Action, target Ref, cur *StatefulSet) (*UserWrite, error) {
	o := StatefulSetOptions{}
	if a.StatefulSet != nil {
		o = *a.StatefulSet
	}
	if o.Service == "" {
		o.Service = target.Name
	}
	if cur == nil {
		labels := map[string]string{"app": target.Name}
		s := &StatefulSet{
			Meta:                    Meta{Name: target.Name, Namespace: target.Namespace, Labels: labels},
			Replicas:                a.N,
			Image:                   a.Image,
			PodLabels:               labels,
			ServiceName:             o.Service,
			Parallel:                o.Parallel,
			ClaimTemplates:          slices.Clone(o.Claims),
			DeleteClaimsWhenDeleted: o.DeleteOnGone,
			DeleteClaimsWhenScaled:  o.DeleteOnScale,
			Generation:              1,
		}
		return &UserWrite{Verb: VerbCreate, After: s}, nil
	}
	if cur.ServiceName != o.Service || cur.Parallel != o.Parallel || !slices.Equal(cur.ClaimTemplates, o.Claims) {
		return nil, fmt.Errorf("statefulsets/%s: %w", target.Key(), ErrStatefulSetImmutable)
	}
	n := cur.shallow().(*StatefulSet)
	n.Replicas, n.Image = a.N, a.Image
	n.DeleteClaimsWhenDeleted, n.DeleteClaimsWhenScaled = o.DeleteOnGone, o.DeleteOnScale
	if n.Replicas == cur.Replicas && n.Image == cur.Image && n.DeleteClaimsWhenDeleted == cur.DeleteClaimsWhenDeleted && n.DeleteClaimsWhenScaled == cur.DeleteClaimsWhenScaled {
		return nil, nil
	}
	n.Generation++
	return &UserWrite{Verb: VerbUpdate, Before: cur, After: n}, nil
}
