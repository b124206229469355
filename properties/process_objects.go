package properties

import (
	"context"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// apiObjects is every object the API serves, each as
// "resource[.group]/namespace/name": every resource that discovery says
// can be listed, listed. The process check judges what is left behind by
// this, not by the control plane's own snapshot, which holds only the
// kinds its components watch: an operator's ConfigMaps and Secrets are
// there too.
func apiObjects(cfg *rest.Config) (map[string]bool, error) {
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	lists, err := disc.ServerPreferredResources()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, res := range l.APIResources {
			if strings.Contains(res.Name, "/") || !slices.Contains(res.Verbs, "list") {
				continue
			}
			items, err := dyn.Resource(gv.WithResource(res.Name)).List(context.Background(), metav1.ListOptions{})
			if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
				continue // a resource whose CRD went meanwhile, or one listed by name only
			}
			if err != nil {
				return nil, err
			}
			typ := res.Name
			if gv.Group != "" {
				typ += "." + gv.Group
			}
			for _, o := range items.Items {
				key := o.GetName()
				if ns := o.GetNamespace(); ns != "" {
					key = ns + "/" + key
				}
				out[typ+"/"+key] = true
			}
		}
	}
	return out, nil
}

// bookkeeping is what a cluster keeps of its own that no owner holds:
// leader election's Leases, Events.
func bookkeeping(typ string) bool {
	return strings.HasPrefix(typ, "leases.") || typ == "events" || strings.HasPrefix(typ, "events.")
}
