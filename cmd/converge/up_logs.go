package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/registry"
)

// followPoll is how often a followed log is checked for more output.
const followPoll = 200 * time.Millisecond

// podLogs serves kubectl logs from the files containerd writes each
// container's output to; the in-memory runtimes keep none (nil).
func (m *machines) podLogs(reg *registry.Registry) apiserver.PodLogs {
	if !m.real {
		return nil
	}
	return func(ctx context.Context, namespace, name string, o apiserver.LogOptions) (io.ReadCloser, error) {
		obj, err := reg.Get(ctx, "pods", namespace, name)
		if err != nil {
			return nil, err
		}
		pod := obj.(*api.Pod)
		ctr, err := logContainer(pod, o.Container)
		if err != nil {
			return nil, err
		}
		if pod.Spec.NodeName == "" {
			return nil, api.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
		}
		m.mu.Lock()
		rt := m.byNode[pod.Spec.NodeName]
		m.mu.Unlock()
		if rt == nil {
			return nil, api.NewBadRequest(fmt.Sprintf("node %s has no container runtime", pod.Spec.NodeName))
		}
		all, err := rt.List(ctx)
		if err != nil {
			return nil, api.NewInternalError(err)
		}
		var runs []container.ContainerStatus // the pod's container's instances, oldest first
		for _, st := range all {
			if st.PodUID == string(pod.UID) {
				runs = append(runs, st)
			}
		}
		slices.SortFunc(runs, func(a, b container.ContainerStatus) int { return a.Attempt - b.Attempt })
		pick := len(runs) - 1
		if o.Previous {
			pick--
		}
		if pick < 0 {
			if o.Previous {
				return nil, api.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", ctr, name))
			}
			return nil, api.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: ContainerCreating", ctr, name))
		}
		st := runs[pick]
		follow := o.Follow && st.State == container.StateRunning
		return openLog(ctx, rt.LogPath(st.ID), o.TailLines, follow, func() bool {
			cur, err := rt.Status(ctx, st.ID)
			return err == nil && cur.State == container.StateRunning
		})
	}
}

// logContainer is the container kubectl asks for: the pod's first, the
// only one a converge kubelet runs.
func logContainer(pod *api.Pod, name string) (string, error) {
	var names []string
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	switch {
	case len(names) > 0 && (name == "" || name == names[0]):
		return names[0], nil
	case slices.Contains(names, name):
		return "", api.NewBadRequest(fmt.Sprintf("container %s of pod %s is not running: converge's kubelets run a pod's first container only", name, pod.Name))
	}
	return "", api.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", name, pod.Name))
}

// openLog reads a log file: its last tail lines when tail is set, and with
// follow whatever is written after, until ctx ends or alive says the
// writer is gone. A file not written yet reads as empty.
func openLog(ctx context.Context, path string, tail *int64, follow bool, alive func() bool) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	var head io.Reader = bytes.NewReader(nil)
	if tail != nil {
		all, err := io.ReadAll(f)
		if err != nil {
			f.Close()
			return nil, api.NewInternalError(err)
		}
		head = bytes.NewReader(lastLines(all, *tail))
		if !follow {
			f.Close()
			return io.NopCloser(head), nil
		}
	}
	return &logReader{head: head, f: f, ctx: ctx, follow: follow, alive: alive}, nil
}

// lastLines is the last n lines of b (a final line without a newline
// counts).
func lastLines(b []byte, n int64) []byte {
	if n <= 0 {
		return nil
	}
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if b[i] == '\n' {
			if n--; n == 0 {
				return b[i+1:]
			}
		}
	}
	return b
}

// logReader reads head, then the file, and when following waits at the
// end of the file for more.
type logReader struct {
	head   io.Reader
	f      *os.File
	ctx    context.Context
	follow bool
	alive  func() bool
}

func (l *logReader) Read(p []byte) (int, error) {
	if n, _ := l.head.Read(p); n > 0 {
		return n, nil
	}
	for {
		n, err := l.f.Read(p)
		if n > 0 || err != io.EOF || !l.follow {
			return n, err
		}
		if !l.alive() {
			l.follow = false // one last read for what came before the end
			continue
		}
		select {
		case <-l.ctx.Done():
			return 0, io.EOF
		case <-time.After(followPoll):
		}
	}
}

func (l *logReader) Close() error { return l.f.Close() }
