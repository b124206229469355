package reliability

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	builtDir  string // removed by TestMain
	builtBin  string
	buildErr  error
)

// TestMain removes the converge binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// convergeBin builds cmd/converge once per test binary.
func convergeBin(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "converge-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		builtBin = filepath.Join(dir, "converge")
		out, err := exec.Command(goBin, "build", "-o", builtBin, "../cmd/converge").CombinedOutput()
		if err != nil {
			buildErr = err
			builtBin = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/converge: %v\n%s", buildErr, builtBin)
	}
	return builtBin
}

// child is a running `converge up` process.
type child struct {
	cmd  *exec.Cmd
	kube *kube
	done chan struct{}
}

// startChild runs `converge up` on dataDir with args and waits until it
// says it is up.
func startChild(t testing.TB, bin, dataDir string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"up", "--data-dir", dataDir, "--listen", "127.0.0.1:0", "--quiet"}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	up := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		said := false
		for sc.Scan() {
			if !said && strings.HasPrefix(sc.Text(), "converge is up:") {
				said = true
				up <- true
			}
		}
		if !said {
			up <- false
		}
		_ = cmd.Wait()
		close(c.done)
	}()
	select {
	case ok := <-up:
		if !ok {
			t.Fatal("converge up ended before it was up")
		}
	case <-time.After(60 * time.Second):
		c.kill()
		t.Fatal("converge up was not up within a minute")
	}
	if c.kube, err = kubeFromKubeconfig(filepath.Join(dataDir, "kubeconfig")); err != nil {
		c.kill()
		t.Fatal(err)
	}
	t.Cleanup(c.kill)
	return c
}

// kill sends SIGKILL and waits for the process to be gone.
func (c *child) kill() {
	_ = c.cmd.Process.Kill()
	<-c.done
}
