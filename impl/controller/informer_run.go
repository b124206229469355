package controller

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Run drives the informer in running mode until ctx ends: list, hand the
// differences to the handlers, then watch from the list revision and apply
// events as they come. A watch error or 410 Gone leads to a relist after a
// backoff; a watch that simply closes is reopened from LastRev. Run returns
// ctx's error, or ErrAlreadyRunning if the informer is already driven.
func (i *Informer) Run(ctx context.Context) error {
	i.mu.Lock()
	if i.mode != modeIdle {
		i.mu.Unlock()
		return fmt.Errorf("%w: informer %s", ErrAlreadyRunning, i.cfg.Resource)
	}
	i.mode = modeRunning
	i.mu.Unlock()
	defer func() {
		i.mu.Lock()
		i.mode = modeIdle
		i.mu.Unlock()
	}()

	backoff := i.cfg.MinBackoff
	for {
		if err := i.relistAndNotify(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			i.report(err)
			if !i.sleep(ctx, &backoff) {
				return ctx.Err()
			}
			continue
		}
		backoff = i.cfg.MinBackoff
		for {
			applied, err := i.watchOnce(ctx)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if applied > 0 {
				backoff = i.cfg.MinBackoff
			}
			if err != nil {
				i.report(err)
			}
			if !i.sleep(ctx, &backoff) {
				return ctx.Err()
			}
			if err != nil {
				break // relist
			}
		}
	}
}

// relistAndNotify lists, replaces the cache and tells the handlers what
// changed; the first success marks the informer synced.
func (i *Informer) relistAndNotify(ctx context.Context) error {
	objs, rev, err := i.list(ctx, 0)
	if err != nil {
		return err
	}
	evs := i.replaceCache(objs, rev)
	i.mu.Lock()
	hs := i.handlers
	i.mu.Unlock()
	for _, ev := range evs {
		i.notify(hs, ev)
	}
	i.mu.Lock()
	i.synced = true
	i.broadcastLocked()
	i.mu.Unlock()
	return nil
}

// watchOnce watches from LastRev and applies events until the watch ends.
// It returns how many events it applied, and nil if the watch just closed.
func (i *Informer) watchOnce(ctx context.Context) (int, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := i.lw.Watch(wctx, i.cfg.Resource, i.cfg.Namespace, strconv.FormatInt(i.LastRev(), 10))
	if err != nil {
		return 0, fmt.Errorf("controller: watch %s: %w", i.cfg.Resource, err)
	}
	n := 0
	for ev := range ch {
		if err := checkEvent(ev); err != nil {
			return n, fmt.Errorf("controller: watch %s: %w", i.cfg.Resource, err)
		}
		i.apply(ev)
		n++
	}
	return n, nil
}

// sleep waits out the backoff and doubles it; false if ctx ended first.
func (i *Informer) sleep(ctx context.Context, backoff *time.Duration) bool {
	d := *backoff
	*backoff = min(2*d, i.cfg.MaxBackoff)
	select {
	case <-i.cfg.Clock.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}

func (i *Informer) report(err error) {
	if i.cfg.OnError != nil {
		i.cfg.OnError(err)
	}
}
