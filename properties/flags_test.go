package properties

import (
	"flag"
	"fmt"
	"testing"
)

// setFlags sets rapid's global flags for one go-test property run and
// returns the undo. Campaigns do not use them (see engine.go); tests that
// call rapid.Check directly still do.
func setFlags(values map[string]string) (undo func(), err error) {
	old := map[string]string{}
	undo = func() {
		for k, v := range old {
			_ = flag.Set(k, v)
		}
	}
	for k, v := range values {
		f := flag.Lookup(k)
		if f == nil {
			return undo, fmt.Errorf("properties: rapid has no flag %s", k)
		}
		old[k] = f.Value.String()
		if err := flag.Set(k, v); err != nil {
			return undo, fmt.Errorf("properties: set %s: %w", k, err)
		}
	}
	return undo, nil
}

func setRapidFlags(t *testing.T, values map[string]string) func() {
	undo, err := setFlags(values)
	if err != nil {
		t.Fatal(err)
	}
	return undo
}
