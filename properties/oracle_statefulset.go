package properties

import (
	"slices"
	"strings"

	"github.com/converge-dev/converge/model"
)

// The differential oracle and StatefulSets. The reference run replays a
// set's last apply. What the retention policy kept is history the
// reference cannot replay: upstream's StatefulSet keeps a claim when its
// pod goes on a scale down (whenScaled Retain, the default, with the
// set's ownerReference still on it when whenDeleted is Delete) and when
// the set goes (whenDeleted Retain), so a run that scaled 3 -> 1 holds
// claims of ordinals 1 and 2 that a sequential apply of 1 never made. Such
// a claim (no owner or a StatefulSet's, of an ordinal at or above its
// set's replicas or of a set gone) is left out of the comparison; since
// the policy may change between scale downs, which policy kept it is
// history too. A claim a condemned pod owns (whenScaled Delete put it up
// for deletion) is compared, so one the collector failed to take is
// caught, and so is a missing claim of a live ordinal (the convergence
// check's, too).

// statefulSetApply is the apply-statefulset that makes s.
func statefulSetApply(s *model.StatefulSet) model.Action {
	return model.Action{Op: model.OpApplyStatefulSet, Key: model.KeyOf(s), N: s.Replicas, Image: s.Image, StatefulSet: &model.StatefulSetOptions{
		Service: s.ServiceName, Parallel: s.Parallel, Claims: s.ClaimTemplates,
		DeleteOnScale: s.DeleteClaimsWhenScaled, DeleteOnGone: s.DeleteClaimsWhenDeleted}}
}

// retainedClaim: c is a claim the Retain policy kept past its pod.
func retainedClaim(snap *model.Snapshot, c *model.PersistentVolumeClaim) bool {
	if c.Owner.UID != 0 && c.Owner.Kind != model.KindStatefulSet {
		return false
	}
	for _, o := range snap.List(model.KindStatefulSet) {
		s := o.(*model.StatefulSet)
		if s.Namespace != c.Namespace {
			continue
		}
		for n := range s.Replicas {
			for _, name := range model.StatefulSetClaims(s, n) {
				if name == c.Name {
					return false // a live ordinal's: compared
				}
			}
		}
	}
	return true
}

// stuckStatefulSets adds the StatefulSets whose template names an image
// that does not pull or does not parse, as stuckRollouts does for
// Deployments: how far
// their pods got (which ordinals wait for the image, which run an older
// one) is history, and the reference pulls the image before it fails.
// Their pods follow them, and so do their claims: OrderedReady stops
// making claims at the first ordinal that waits for the image.
func stuckStatefulSets(s *model.Snapshot, left leftovers) {
	for _, o := range s.List(model.KindStatefulSet) {
		set := o.(*model.StatefulSet)
		if !slices.Contains(s.FailingImages, set.Image) && model.ImageNameError(set.Image) == "" {
			continue
		}
		left.uids[set.UID] = true
		for _, c := range s.List(model.KindPersistentVolumeClaim) {
			if m := model.MetaOf(c); m.Namespace == set.Namespace && claimOfSet(set, m.Name) {
				left.uids[m.UID] = true
			}
		}
	}
}

// claimOfSet: claim is "<template>-<set>-<ordinal>" of one of set's templates.
func claimOfSet(set *model.StatefulSet, claim string) bool {
	for _, t := range set.ClaimTemplates {
		if rest, ok := strings.CutPrefix(claim, t+"-"); ok {
			if _, ok := model.StatefulSetOrdinal(set.Name, rest); ok {
				return true
			}
		}
	}
	return false
}
