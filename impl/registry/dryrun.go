package registry

import (
	"context"
	"fmt"
	"slices"

	"github.com/converge-dev/converge/impl/api"
)

type dryRunKey struct{}

// WithDryRun marks the writes made with ctx as a dry run (Kubernetes'
// dryRun=All): every default, validation, precondition and conflict check
// runs and the answer is the object as it would be stored, but nothing is
// written, so no revision moves and no watcher sees an event. Generated
// names are the next the counter would give; a dry-run create answers
// without a resourceVersion, a dry-run update with the current one.
func WithDryRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryRunKey{}, true)
}

// IsDryRun says whether ctx marks a dry run; admission webhooks are told.
func IsDryRun(ctx context.Context) bool {
	dry, _ := ctx.Value(dryRunKey{}).(bool)
	return dry
}

// CheckDryRun validates a request's dryRun values: none, or "All".
func CheckDryRun(values []string) (dry bool, err error) {
	if len(values) == 0 {
		return false, nil
	}
	for _, v := range values {
		if v != "All" {
			return false, api.NewBadRequest(fmt.Sprintf("Invalid dry run value: %q: valid values are \"All\"", v))
		}
	}
	return slices.Contains(values, "All"), nil
}
