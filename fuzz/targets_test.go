package fuzz

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestFuzzScriptRunsEveryTarget: every fuzz target declared anywhere in the
// module (a func FuzzXxx(*testing.F) in a _test.go file, found by parsing
// the source, not the way the script finds them) is in `scripts/fuzz.sh
// --list`, which is what make fuzz and make fuzz-smoke run.
func TestFuzzScriptRunsEveryTarget(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	declared := declaredFuzzTargets(t, root)
	if len(declared) < 5 {
		t.Fatalf("found only %d fuzz targets in %s: %v", len(declared), root, declared)
	}
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "fuzz.sh"), "--list")
	cmd.Env = append(os.Environ(), "GO="+goCommand())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fuzz.sh --list: %v\n%s", err, out)
	}
	listed := strings.Split(strings.TrimSpace(string(out)), "\n")
	slices.Sort(listed)
	for _, d := range declared {
		if !slices.Contains(listed, d) {
			t.Errorf("fuzz target %s is not run by scripts/fuzz.sh (it lists:\n%s)", d, out)
		}
	}
	if !slices.Equal(listed, declared) {
		t.Errorf("fuzz.sh lists\n%v\nthe source declares\n%v", listed, declared)
	}
}

// declaredFuzzTargets parses every _test.go file under root and returns
// "./pkg FuzzName" for each fuzz target, sorted.
func declaredFuzzTargets(t *testing.T, root string) []string {
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !isFuzzName(fn.Name.Name) || fn.Type.Params.NumFields() != 1 {
				continue
			}
			star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr)
			if sel, ok2 := star.X.(*ast.SelectorExpr); !ok || !ok2 || sel.Sel.Name != "F" {
				continue
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			out = append(out, "./"+filepath.ToSlash(rel)+" "+fn.Name.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// isFuzzName is go test's rule: Fuzz, then nothing or not a lower-case letter.
func isFuzzName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Fuzz")
	return ok && (rest == "" || !('a' <= rest[0] && rest[0] <= 'z'))
}

func goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}
