package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/image"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errw bytes.Buffer
	code = run(args, &out, &errw)
	return code, out.String(), errw.String()
}

func TestImageBuildWritesArchive(t *testing.T) {
	p := filepath.Join(t.TempDir(), "echo.tar")
	code, out, errOut := runCLI("image", "build", "-o", p, "--name", "converge.local/echo:test")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "wrote "+p) || !strings.Contains(out, "converge.local/echo:test") {
		t.Fatalf("stdout = %q", out)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			t.Fatal("no index.json in the archive")
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != "index.json" {
			continue
		}
		var idx image.Index
		if err := json.NewDecoder(tr).Decode(&idx); err != nil {
			t.Fatal(err)
		}
		if got := idx.Manifests[0].Annotations[image.AnnotationImageName]; got != "converge.local/echo:test" {
			t.Fatalf("image name = %q", got)
		}
		return
	}
}

func TestImageErrors(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "a.tar")
	os.WriteFile(archive, []byte("x"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"image"}, 2, "needs a subcommand"},
		{[]string{"image", "push"}, 2, "unknown image subcommand"},
		{[]string{"image", "build", "extra"}, 2, "takes no arguments"},
		{[]string{"image", "build", "-o", filepath.Join(dir, "x.tar"), "--name", "bad name"}, 2, "invalid build options"},
		{[]string{"image", "build", "-o", filepath.Join(dir, "missing", "x.tar")}, 1, "no such file or directory"},
		{[]string{"image", "import"}, 2, "takes one archive"},
		{[]string{"image", "import", "a", "b"}, 2, "takes one archive"},
		{[]string{"image", "import", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"image", "import", archive, "--address", filepath.Join(dir, "none.sock")}, 1, "daemon not reachable: no socket at"},
	} {
		code, _, errOut := runCLI(tc.args...)
		// Flag errors print the usage first; the error is the last line.
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		last := lines[len(lines)-1]
		if code != tc.code || !strings.HasPrefix(last, "converge image: ") || !strings.Contains(last, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and a last line with %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("failed builds left files: %v", entries)
	}
}
