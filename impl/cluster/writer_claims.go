package cluster

import (
	"slices"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// claimTemplate is the StatefulSet whose claim template a claim with no
// owner of that set is stamped from (a claim the Retain policy leaves
// unowned): the first set of its namespace, by name, in the component's
// cache that names it "<template>-<set>-<ordinal>".
func (w *writer) claimTemplate(m *model.Meta) api.Object {
	inf := w.c.inf[model.KindStatefulSet]
	if inf == nil {
		return nil
	}
	sets := inf.Cache().List()
	slices.SortFunc(sets, func(a, b api.Object) int {
		if api.Meta(a).Name < api.Meta(b).Name {
			return -1
		}
		return 1
	})
	for _, o := range sets {
		s, _ := o.(*api.StatefulSet)
		if s == nil || s.Namespace != m.Namespace {
			continue
		}
		for _, t := range s.Spec.VolumeClaimTemplates {
			if project.ClaimOf(s, t.Name, m.Name) {
				return s
			}
		}
	}
	return nil
}
