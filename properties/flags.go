package properties

import (
	"flag"
	"fmt"
	"testing"
)

// SetRapidFlags sets rapid's global flags (rapid.checks, rapid.seed, ...)
// for a test that calls rapid.Check itself, and returns the undo. It fails
// t on a flag rapid does not have.
func SetRapidFlags(t testing.TB, values map[string]string) (undo func()) {
	t.Helper()
	old := map[string]string{}
	undo = func() {
		for k, v := range old {
			_ = flag.Set(k, v)
		}
	}
	for k, v := range values {
		f := flag.Lookup(k)
		if f == nil {
			t.Fatalf("properties: rapid has no flag %s", k)
			return undo
		}
		old[k] = f.Value.String()
		if err := flag.Set(k, v); err != nil {
			t.Fatal(fmt.Errorf("properties: set %s: %w", k, err))
			return undo
		}
	}
	return undo
}
