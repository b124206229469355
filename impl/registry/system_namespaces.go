package registry

import (
	"context"
	"fmt"

	"github.com/converge-dev/converge/impl/api"
)

// SystemNamespaces are the namespaces a cluster starts with, so that
// kubectl get namespaces lists them.
var SystemNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

// EnsureNamespaces creates the SystemNamespaces a fresh store lacks.
func (r *Registry) EnsureNamespaces(ctx context.Context) error {
	for _, ns := range SystemNamespaces {
		_, err := r.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}})
		if err != nil && !api.IsAlreadyExists(err) {
			return fmt.Errorf("create namespace %s: %w", ns, err)
		}
	}
	return nil
}
