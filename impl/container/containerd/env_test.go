package containerd_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/container/containerd"
	"github.com/converge-dev/converge/impl/image"
)

// shared is one daemon for the package, with the echo image imported,
// started by the first test that needs it and closed by TestMain.
var shared struct {
	once    sync.Once
	dir     string
	daemon  *containerd.Daemon
	archive string
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.daemon != nil {
		if err := shared.daemon.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "closing the shared daemon: %v\n", err)
			code = 1
		}
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// requireHost skips (or, with CI=true, fails) when this machine cannot run
// containers.
func requireHost(t *testing.T) {
	t.Helper()
	var missing []string
	for _, bin := range []string{"containerd", "containerd-shim-runc-v2", "runc"} {
		if _, err := exec.LookPath(bin); err != nil {
			missing = append(missing, bin)
		}
	}
	why := ""
	switch {
	case len(missing) > 0:
		why = fmt.Sprintf("%v not installed: apt-get install -y containerd runc", missing)
	case os.Geteuid() != 0:
		why = "running containers needs root"
	default:
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but %s", why)
	}
	t.Skipf("skipping: %s", why)
}

// shortTempDir makes a directory with a short path, since unix socket paths
// are limited to 107 bytes and t.TempDir can be long.
func shortTempDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// sharedDaemon returns the package's daemon with the echo image imported.
func sharedDaemon(t *testing.T) *containerd.Daemon {
	t.Helper()
	requireHost(t)
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "cvg-ctrd-")
		if err != nil {
			shared.err = err
			return
		}
		shared.dir = dir
		if shared.daemon, shared.err = containerd.StartDaemon(filepath.Join(dir, "d")); shared.err != nil {
			return
		}
		shared.archive, shared.err = buildEcho(dir)
		if shared.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, shared.err = containerd.ImportArchive(ctx, shared.daemon.Address(), shared.archive)
	})
	if shared.err != nil {
		t.Fatalf("shared daemon: %v", shared.err)
	}
	return shared.daemon
}

func buildEcho(dir string) (string, error) {
	var buf bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := image.BuildEcho(ctx, &buf, ""); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "echo.tar")
	return path, os.WriteFile(path, buf.Bytes(), 0o644)
}

// newRuntime connects a runtime for node to d, with its state private to d.
func newRuntime(t *testing.T, d *containerd.Daemon, node string) *containerd.Runtime {
	t.Helper()
	rt, err := containerd.New(d.Address(), node, d.RuntimeOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}
