package model

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly enforces that model/ imports nothing outside the
// standard library, so it stays a pure specification.
func TestStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/converge-dev/converge/model" {
			t.Errorf("model imports non-standard package %s", p)
		}
	}
}
