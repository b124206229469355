package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/converge-dev/converge/"

// importsTable reads ARCHITECTURE.md's layering table: package -> the
// converge packages it imports, sorted.
func importsTable(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start, end := strings.Index(text, "<!-- imports -->"), strings.Index(text, "<!-- /imports -->")
	if start < 0 || end < start {
		t.Fatal("ARCHITECTURE.md has no <!-- imports --> ... <!-- /imports --> table")
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| (.*) \\|$")
	name := regexp.MustCompile("`([^`]+)`")
	out := map[string]string{}
	for _, line := range strings.Split(text[start:end], "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var deps []string
		for _, d := range name.FindAllStringSubmatch(m[2], -1) {
			deps = append(deps, d[1])
		}
		sort.Strings(deps)
		out[m[1]] = strings.Join(deps, " ")
	}
	return out
}

// ARCHITECTURE.md's layering table is what `go list` says each package
// imports (test files excluded), for every package of the module.
func TestArchitectureLayeringMatchesTheImports(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	table := importsTable(t)
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		seen[pkg] = true
		var deps []string
		for _, d := range f[1:] {
			if strings.HasPrefix(d, module) {
				deps = append(deps, strings.TrimPrefix(d, module))
			}
		}
		sort.Strings(deps)
		want, ok := table[pkg]
		switch {
		case !ok:
			t.Errorf("ARCHITECTURE.md's layering table lacks %s (imports: %v)", pkg, deps)
		case want != strings.Join(deps, " "):
			t.Errorf("ARCHITECTURE.md says %s imports [%s]; it imports [%s]", pkg, want, strings.Join(deps, " "))
		}
	}
	for pkg := range table {
		if !seen[pkg] {
			t.Errorf("ARCHITECTURE.md's layering table names %s, which is not a package", pkg)
		}
	}
}
