package containerd

import (
	"context"
	"fmt"
	"sort"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/errdefs"

	"github.com/converge-dev/converge/impl/container"
)

// List implements container.Runtime.
func (r *Runtime) List(ctx context.Context) ([]container.ContainerStatus, error) {
	ctx = r.ctx(ctx)
	cs, err := r.client.Containers(ctx, fmt.Sprintf("labels.%q", labelNode))
	if err != nil {
		return nil, fmt.Errorf("containerd: list: %w", err)
	}
	out := make([]container.ContainerStatus, 0, len(cs))
	for _, c := range cs {
		info, err := c.Info(ctx, client.WithoutRefreshedMetadata)
		if err != nil {
			return nil, fmt.Errorf("containerd: info %s: %w", c.ID(), err)
		}
		if info.Labels[labelNode] != r.node {
			continue
		}
		st, err := r.statusOf(ctx, c, info)
		if errdefs.IsNotFound(err) {
			continue // removed while we listed
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Status implements container.Runtime.
func (r *Runtime) Status(ctx context.Context, id string) (container.ContainerStatus, error) {
	ctx = r.ctx(ctx)
	c, info, err := r.load(ctx, id)
	if err != nil {
		return container.ContainerStatus{}, err
	}
	return r.statusOf(ctx, c, info)
}

// statusOf combines the container's labels with its task: a live task says
// running or exited; without one, recorded exit labels say exited.
func (r *Runtime) statusOf(ctx context.Context, c client.Container, info containers.Container) (container.ContainerStatus, error) {
	st := identityOf(info)
	task, err := c.Task(ctx, nil)
	if err != nil && !errdefs.IsNotFound(err) {
		return container.ContainerStatus{}, fmt.Errorf("containerd: task %s: %w", c.ID(), err)
	}
	if err == nil {
		ts, err := task.Status(ctx)
		if err == nil {
			switch ts.Status {
			case client.Running, client.Paused, client.Pausing:
				st.State = container.StateRunning
			case client.Stopped:
				st.State, st.ExitCode, st.FinishedAt = container.StateExited, int(ts.ExitStatus), ts.ExitTime
				st.Reason = container.ExitReason(st.ExitCode)
			default:
				st.State = container.StateCreated
			}
			return st, nil
		}
		if !errdefs.IsNotFound(err) {
			return container.ContainerStatus{}, fmt.Errorf("containerd: task status %s: %w", c.ID(), err)
		}
		// The task went away between the two calls: read the labels anew.
		if info, err = c.Info(ctx); err != nil {
			return container.ContainerStatus{}, err
		}
		st = identityOf(info)
	}
	if code, at, ok := exitOf(info.Labels); ok {
		st.State, st.ExitCode, st.FinishedAt, st.Reason = container.StateExited, code, at, container.ExitReason(code)
	} else {
		st.State = container.StateCreated
	}
	return st, nil
}

// Pid returns the host pid of a running container's process, for tests and
// demos that crash it from outside (`kill -9`).
func (r *Runtime) Pid(ctx context.Context, id string) (int, error) {
	ctx = r.ctx(ctx)
	c, _, err := r.load(ctx, id)
	if err != nil {
		return 0, err
	}
	task, err := c.Task(ctx, nil)
	if errdefs.IsNotFound(err) {
		return 0, fmt.Errorf("%w: %s", container.ErrNotRunning, id)
	}
	if err != nil {
		return 0, fmt.Errorf("containerd: task %s: %w", id, err)
	}
	ts, err := task.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("containerd: task status %s: %w", id, err)
	}
	if ts.Status != client.Running {
		return 0, fmt.Errorf("%w: %s is %s", container.ErrNotRunning, id, ts.Status)
	}
	return int(task.Pid()), nil
}
