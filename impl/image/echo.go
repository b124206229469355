package image

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// EchoImage is the reference of the workload image that BuildEcho makes by
// default and that examples/echo.yaml runs.
const EchoImage = "converge.local/echo:v1"

// ModulePath is the converge module; BuildEcho compiles from its source tree.
const ModulePath = "github.com/converge-dev/converge"

// ErrNoSource reports that the converge source tree or Go toolchain could not
// be found, so the echo binary cannot be compiled.
var ErrNoSource = errors.New("image: converge source tree or go toolchain not found")

// echoBinary is where the binary sits in the image.
const echoBinary = "/converge-echo"

// BuildEcho compiles cmd/converge-echo and writes it to w as an image archive
// named name (EchoImage when empty). The same source and toolchain give the
// same bytes.
func BuildEcho(ctx context.Context, w io.Writer, name string) error {
	if name == "" {
		name = EchoImage
	}
	if _, _, err := splitName(name); err != nil {
		return err
	}
	goBin, err := goTool()
	if err != nil {
		return err
	}
	root, err := moduleRoot(ctx, goBin)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "converge-echo-build-")
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "converge-echo")
	cmd := exec.CommandContext(ctx, goBin, "build", "-trimpath", "-buildvcs=false",
		"-ldflags=-s -w", "-o", out, ModulePath+"/cmd/converge-echo")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("image: go build converge-echo: %w: %s", err, bytes.TrimSpace(msg))
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	return BuildArchive(w, BuildOptions{
		Name:       name,
		Files:      map[string]File{echoBinary: {Content: bin, Mode: 0o755}},
		Entrypoint: []string{echoBinary},
	})
}

// goTool finds the go command: on PATH, else in the toolchain that built us.
func goTool() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := runtime.GOROOT(); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: no go command on PATH", ErrNoSource)
}

// moduleRoot finds the converge source tree: the module of the working
// directory if it is converge, else the tree this file was compiled from.
func moduleRoot(ctx context.Context, goBin string) (string, error) {
	if out, err := exec.CommandContext(ctx, goBin, "env", "GOMOD").Output(); err == nil {
		if gomod := strings.TrimSpace(string(out)); isConvergeModule(gomod) {
			return filepath.Dir(gomod), nil
		}
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
			if isConvergeModule(filepath.Join(dir, "go.mod")) {
				return dir, nil
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return "", fmt.Errorf("%w: run from inside the converge repository", ErrNoSource)
}

func isConvergeModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == ModulePath
		}
	}
	return false
}
