package containerd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/errdefs"

	"github.com/converge-dev/converge/impl/container"
)

// Stop implements container.Runtime.
func (r *Runtime) Stop(ctx context.Context, id string, grace time.Duration) error {
	ctx = r.ctx(ctx)
	defer r.lock(id)()
	c, _, err := r.load(ctx, id)
	if err != nil {
		return err
	}
	task, err := c.Task(ctx, nil)
	if errdefs.IsNotFound(err) {
		return nil // never started, or stopped before
	}
	if err != nil {
		return fmt.Errorf("containerd: task %s: %w", id, err)
	}
	ts, err := task.Status(ctx)
	if err != nil {
		return fmt.Errorf("containerd: task status %s: %w", id, err)
	}
	if ts.Status != client.Stopped {
		if err := terminate(ctx, task, grace); err != nil {
			return fmt.Errorf("containerd: stop %s: %w", id, err)
		}
		if ts, err = task.Status(ctx); err != nil {
			return fmt.Errorf("containerd: task status %s: %w", id, err)
		}
	}
	// The exit is recorded on the container before the task (which holds
	// it) is deleted, so a crash in between loses nothing.
	if _, err := c.SetLabels(ctx, exitLabels(int(ts.ExitStatus), ts.ExitTime)); err != nil {
		return fmt.Errorf("containerd: record exit of %s: %w", id, err)
	}
	if _, err := task.Delete(ctx); err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("containerd: delete task %s: %w", id, err)
	}
	return nil
}

// terminate sends SIGTERM, waits up to grace, then SIGKILLs and waits.
func terminate(ctx context.Context, task client.Task, grace time.Duration) error {
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	exited, err := task.Wait(waitCtx)
	if err != nil {
		return err
	}
	if grace > 0 {
		if err := task.Kill(ctx, syscall.SIGTERM); err != nil && !errdefs.IsNotFound(err) {
			return err
		}
		timer := time.NewTimer(grace)
		defer timer.Stop()
		select {
		case <-exited:
			return nil
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := task.Kill(ctx, syscall.SIGKILL, client.WithKillAll); err != nil && !errdefs.IsNotFound(err) {
		return err
	}
	select {
	case <-exited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Remove implements container.Runtime.
func (r *Runtime) Remove(ctx context.Context, id string) error {
	ctx = r.ctx(ctx)
	defer r.lock(id)()
	c, _, err := r.load(ctx, id)
	if err != nil {
		return err
	}
	if task, err := c.Task(ctx, nil); err == nil {
		ts, err := task.Status(ctx)
		if err != nil {
			return fmt.Errorf("containerd: task status %s: %w", id, err)
		}
		var opts []client.ProcessDeleteOpts
		switch ts.Status {
		case client.Running, client.Paused, client.Pausing:
			return fmt.Errorf("%w: %s", container.ErrRunning, id)
		case client.Stopped:
		default: // created but never started: its process must go too
			opts = append(opts, client.WithProcessKill)
		}
		if _, err := task.Delete(ctx, opts...); err != nil && !errdefs.IsNotFound(err) {
			return fmt.Errorf("containerd: delete task %s: %w", id, err)
		}
	} else if !errdefs.IsNotFound(err) {
		return fmt.Errorf("containerd: task %s: %w", id, err)
	}
	if err := c.Delete(ctx, client.WithSnapshotCleanup); err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("containerd: delete %s: %w", id, err)
	}
	if err := os.Remove(r.LogPath(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("containerd: %w", err)
	}
	return nil
}
