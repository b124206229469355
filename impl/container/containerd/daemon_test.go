package containerd_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/converge-dev/converge/impl/container/containerd"
)

// TestDaemonCloseCleansUp leaves a container running and checks that Close
// kills it and removes its mounts, cgroups and files.
func TestDaemonCloseCleansUp(t *testing.T) {
	requireHost(t)
	sharedDaemon(t) // for the archive
	dir := filepath.Join(shortTempDir(t, "cvg-close-"), "d")
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(dir)) })
	d, err := containerd.StartDaemon(dir)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			d.Close()
		}
	})
	if _, err := containerd.ImportArchive(testCtx(t), d.Address(), shared.archive); err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, d, "close-node")
	sp := echoSpec("close-node", "app", "127.78.0.4", 18084)
	if _, err := rt.Start(testCtx(t), sp); err != nil {
		t.Fatal(err)
	}
	pid, err := rt.Pid(testCtx(t), sp.ID)
	if err != nil {
		t.Fatal(err)
	}
	rt.Close()
	if len(cgroupDirs(d.CgroupParent()+"/"+sp.ID)) == 0 {
		t.Fatalf("no cgroup %s/%s while the container runs: the check below would prove nothing", d.CgroupParent(), sp.ID)
	}

	closed = true
	if err := d.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("container process %d survived Close (kill 0: %v)", pid, err)
	}
	for _, name := range []string{"root", "state", "containerd.sock", "config.toml"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind (%v)", name, err)
		}
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mounts), dir+"/") {
		t.Errorf("mounts left under %s", dir)
	}
	if left := cgroupDirs(d.CgroupParent()); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

func TestStartDaemonErrors(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("x", 100))
	_, err := containerd.StartDaemon(long)
	// Without the binaries that check comes first, which is fine too.
	if err == nil || !strings.Contains(err.Error(), "too long") && !errors.Is(err, containerd.ErrNotInstalled) {
		t.Fatalf("StartDaemon with a long dir: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := containerd.StartDaemon(t.TempDir()); !errors.Is(err, containerd.ErrNotInstalled) {
		t.Fatalf("StartDaemon without binaries: %v", err)
	}
	if !strings.Contains(containerd.ErrNotInstalled.Error(), "apt-get install -y containerd runc") {
		t.Fatal("the error does not say how to install")
	}
}

// cgroupDirs lists the directories for a cgroup path that exist under
// /sys/fs/cgroup, in the v2 root or any v1 hierarchy.
func cgroupDirs(path string) []string {
	var found []string
	roots, _ := filepath.Glob("/sys/fs/cgroup/*")
	for _, root := range append(roots, "/sys/fs/cgroup") {
		p := filepath.Join(root, path)
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			found = append(found, p)
		}
	}
	return found
}
