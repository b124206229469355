package containerd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/errdefs"
)

// ErrNotInstalled reports a missing containerd, shim or runc binary.
var ErrNotInstalled = errors.New("containerd: containerd or runc not installed (apt-get install -y containerd runc)")

// Binaries StartDaemon needs on PATH.
var requiredBinaries = []string{"containerd", "containerd-shim-runc-v2", "runc"}

const (
	readyTimeout = 15 * time.Second
	stopTimeout  = 10 * time.Second
	// maxSocketPath is the room a unix socket path has (sun_path less NUL).
	maxSocketPath = 107
)

// Daemon is a private containerd: its own config, root, state and socket
// under one directory, started as a child process.
type Daemon struct {
	dir, address string
	cmd          *exec.Cmd
	exited       chan struct{} // closed once the process is reaped
	waitErr      error
	logFile      *os.File
	closeOnce    sync.Once
	closeErr     error
}

// StartDaemon writes dir/config.toml and starts containerd with it, root in
// dir/root, state in dir/state and the socket dir/containerd.sock. It
// returns once the socket answers. It needs root.
func StartDaemon(dir string) (*Daemon, error) {
	for _, bin := range requiredBinaries {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("%w: %s not on PATH", ErrNotInstalled, bin)
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("containerd: %w", err)
	}
	d := &Daemon{dir: dir, address: filepath.Join(dir, "containerd.sock"), exited: make(chan struct{})}
	if len(d.address)+len(".ttrpc") > maxSocketPath {
		return nil, fmt.Errorf("containerd: socket path %s is too long for a unix socket; use a shorter dir", d.address)
	}
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return nil, fmt.Errorf("containerd: %w", err)
	}
	config := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(config, []byte(d.config()), 0o644); err != nil {
		return nil, fmt.Errorf("containerd: %w", err)
	}
	if d.logFile, err = os.Create(filepath.Join(dir, "containerd.log")); err != nil {
		return nil, fmt.Errorf("containerd: %w", err)
	}
	d.cmd = exec.Command("containerd", "--config", config)
	d.cmd.Stdout, d.cmd.Stderr = d.logFile, d.logFile
	// Its own process group: a ^C to the test run reaches us, and Close
	// stops the daemon in order.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		d.logFile.Close()
		return nil, fmt.Errorf("containerd: start daemon: %w", err)
	}
	go func() {
		d.waitErr = d.cmd.Wait()
		close(d.exited)
	}()
	if err := d.waitReady(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// config is a version 2 config (containerd 1.6 and 1.7) that keeps every
// path under dir and turns off what converge does not use.
func (d *Daemon) config() string {
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	return strings.Join([]string{
		"version = 2",
		"root = " + q(filepath.Join(d.dir, "root")),
		"state = " + q(filepath.Join(d.dir, "state")),
		`disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.aufs", ` +
			`"io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", ` +
			`"io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]`,
		"",
		"[grpc]",
		"  address = " + q(d.address),
		"[ttrpc]",
		"  address = " + q(d.address+".ttrpc"),
		"[debug]",
		`  address = ""`,
		`  level = "warn"`,
		"[metrics]",
		`  address = ""`,
		`[plugins."io.containerd.internal.v1.opt"]`,
		"  path = " + q(filepath.Join(d.dir, "opt")),
		"",
	}, "\n")
}

func (d *Daemon) waitReady() error {
	deadline := time.Now().Add(readyTimeout)
	for {
		select {
		case <-d.exited:
			return fmt.Errorf("containerd: daemon exited at start (%v): %s", d.waitErr, d.logTail())
		default:
		}
		if conn, err := net.DialTimeout("unix", d.address, time.Second); err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("containerd: socket %s not ready after %v: %s", d.address, readyTimeout, d.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logTail is the end of the daemon's log, for error messages.
func (d *Daemon) logTail() string {
	b, _ := os.ReadFile(d.logFile.Name())
	b = bytes.TrimSpace(b)
	if len(b) > 800 {
		b = b[len(b)-800:]
	}
	return string(b)
}

// Address is the daemon's unix socket path.
func (d *Daemon) Address() string { return d.address }

// Dir is the directory holding the daemon's files.
func (d *Daemon) Dir() string { return d.dir }

// RuntimeOptions keep a Runtime's host state private to this daemon: runc
// state and container logs under Dir, cgroups under CgroupParent. With
// them, daemons running containers with the same ids do not collide.
func (d *Daemon) RuntimeOptions() []Option {
	return []Option{
		WithRuncRoot(filepath.Join(d.dir, "runc")),
		WithCgroupParent(d.CgroupParent()),
		WithLogDir(filepath.Join(d.dir, "logs")),
	}
}

// CgroupParent is the cgroup directory RuntimeOptions put containers in:
// "converge-" and a hash of Dir.
func (d *Daemon) CgroupParent() string {
	h := fnv.New32a()
	h.Write([]byte(d.dir))
	return fmt.Sprintf("/converge-%08x", h.Sum32())
}

// Close kills and deletes every task and container in every namespace,
// stops the daemon, unmounts whatever is still mounted under its directory,
// removes the cgroups its containers used and deletes the files it made.
// It is safe to call more than once.
func (d *Daemon) Close() error {
	d.closeOnce.Do(func() {
		var errs []error
		var cgroups []string
		select {
		case <-d.exited:
		default:
			var err error
			cgroups, err = d.deleteEverything()
			errs = append(errs, err)
		}
		errs = append(errs, d.stop())
		d.logFile.Close()
		errs = append(errs, unmountUnder(d.dir))
		errs = append(errs, removeCgroups(append(cgroups, d.CgroupParent())))
		for _, name := range []string{"root", "state", "opt", "runc", "logs", "config.toml", "containerd.log", "containerd.sock", "containerd.sock.ttrpc"} {
			if err := os.RemoveAll(filepath.Join(d.dir, name)); err != nil {
				errs = append(errs, fmt.Errorf("containerd: %w", err))
			}
		}
		d.closeErr = errors.Join(errs...)
	})
	return d.closeErr
}

// deleteEverything empties the daemon and returns the cgroup paths its
// containers used (children before parents).
func (d *Daemon) deleteEverything() ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*stopTimeout)
	defer cancel()
	c, err := client.New(d.address, client.WithTimeout(stopTimeout))
	if err != nil {
		return nil, fmt.Errorf("containerd: cleanup: %w", err)
	}
	defer c.Close()
	nss, err := c.NamespaceService().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("containerd: cleanup: %w", err)
	}
	var errs []error
	var cgroups, parents []string
	for _, ns := range nss {
		nctx := namespaces.WithNamespace(ctx, ns)
		cs, err := c.Containers(nctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, ctr := range cs {
			if spec, err := ctr.Spec(nctx); err == nil && spec.Linux != nil && spec.Linux.CgroupsPath != "" {
				cgroups = append(cgroups, spec.Linux.CgroupsPath)
			}
			if task, err := ctr.Task(nctx, nil); err == nil {
				if _, err := task.Delete(nctx, client.WithProcessKill); err != nil && !errdefs.IsNotFound(err) {
					errs = append(errs, fmt.Errorf("containerd: cleanup task %s/%s: %w", ns, ctr.ID(), err))
				}
			}
			if err := ctr.Delete(nctx, client.WithSnapshotCleanup); err != nil && !errdefs.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("containerd: cleanup container %s/%s: %w", ns, ctr.ID(), err))
			}
		}
		// The default spec puts containers in /<namespace>/<id>.
		parents = append(parents, "/"+ns)
	}
	return append(cgroups, parents...), errors.Join(errs...)
}

// stop sends SIGTERM, then SIGKILL after stopTimeout, and reaps.
func (d *Daemon) stop() error {
	select {
	case <-d.exited:
		return nil
	default:
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
		return nil
	case <-time.After(stopTimeout):
	}
	d.cmd.Process.Kill()
	<-d.exited
	return fmt.Errorf("containerd: daemon ignored SIGTERM for %v and was killed", stopTimeout)
}
