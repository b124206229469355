package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A user's code imports converge through properties alone: every Go file
// under examples/ that is not a test imports no package under impl/, so
// the examples show what a user can write. (Test files may reach for
// harness internals, as converge's own benchmarks do.)
func TestExamplesImportNothingUnderImpl(t *testing.T) {
	bad := implImports(t, filepath.Join(root, "examples"))
	for _, b := range bad {
		t.Errorf("%s imports %s; a user's code imports converge through properties (add an alias there if it lacks one)", b.file, b.path)
	}
}

// The check itself finds an impl/ import in a non-test file, and ignores
// test files and other converge packages.
func TestImplImportsFindsAnImplImport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/a.go", "package a\n\nimport _ \""+module+"impl/cluster\"\n")
	write("a/a_test.go", "package a\n\nimport _ \""+module+"impl/store/storetest\"\n")
	write("b/b.go", "package b\n\nimport (\n\t_ \""+module+"properties\"\n\t_ \""+module+"model\"\n)\n")
	got := implImports(t, dir)
	if len(got) != 1 || filepath.ToSlash(got[0].file) != filepath.ToSlash(filepath.Join(dir, "a/a.go")) || got[0].path != module+"impl/cluster" {
		t.Fatalf("implImports = %+v, want only a/a.go importing impl/cluster", got)
	}
}

type implImport struct{ file, path string }

// implImports lists the imports of packages under impl/ in the non-test
// Go files under dir, whatever their build tags.
func implImports(t *testing.T, dir string) []implImport {
	t.Helper()
	var out []implImport
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module+"impl/") {
				out = append(out, implImport{file: path, path: p})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
