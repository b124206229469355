package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entryPoints are properties' functions a user's test calls first; each
// one that properties declares has a godoc Example (Example<Name> in a
// _test.go file of the package), so its documentation shows a whole test.
var entryPoints = []string{"CheckOperator", "CheckController", "FuzzOperator", "Hunt", "Main"}

func TestEveryEntryPointHasAnExample(t *testing.T) {
	for _, missing := range entryPointsWithoutExample(t, filepath.Join(root, "properties"), entryPoints) {
		t.Errorf("properties.%s has no Example%s in properties' tests", missing, missing)
	}
}

// The check itself finds a declared function without an example, and
// does not ask for one of a function the package lacks.
func TestEntryPointsWithoutExampleFindsOne(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"p.go":              "package p\n\nfunc A() {}\n\nfunc B() {}\n",
		"example_a_test.go": "package p_test\n\nfunc ExampleA() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := entryPointsWithoutExample(t, dir, []string{"A", "B", "C"})
	if strings.Join(got, " ") != "B" {
		t.Fatalf("entryPointsWithoutExample = %v, want [B]", got)
	}
}

// entryPointsWithoutExample lists the names among want that dir's
// non-test files declare as functions and no test file has an Example of.
func entryPointsWithoutExample(t *testing.T, dir string, want []string) []string {
	t.Helper()
	declared, examples := map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		test := strings.HasSuffix(path, "_test.go")
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
			}
			if test {
				examples[fn.Name.Name] = true
			} else {
				declared[fn.Name.Name] = true
			}
		}
	}
	var out []string
	for _, name := range want {
		if declared[name] && !examples["Example"+name] {
			out = append(out, name)
		}
	}
	return out
}
