package controllertest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/converge-dev/converge/impl/controller"
)

// FakeClock is a controller.Clock that moves only when told to.
type FakeClock struct {
	mu      sync.Mutex
	changed chan struct{}
	now     time.Time
	waiters []waiter
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

var _ controller.Clock = (*FakeClock)(nil)

// NewFakeClock starts at start.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{now: start, changed: make(chan struct{})}
}

// Now is the clock's current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After fires once the clock has been advanced by d (at once if d <= 0).
func (c *FakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{at: c.now.Add(d), ch: ch})
	close(c.changed)
	c.changed = make(chan struct{})
	return ch
}

// Advance moves the clock and fires every After whose time has come, in
// deadline order.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	slices.SortStableFunc(c.waiters, func(a, b waiter) int { return a.at.Compare(b.at) })
	n := 0
	for n < len(c.waiters) && !c.waiters[n].at.After(c.now) {
		c.waiters[n].ch <- c.now
		n++
	}
	c.waiters = slices.Delete(c.waiters, 0, n)
}

// Waiters is the number of After calls not yet fired, so a test can wait
// until a goroutine is blocked on the clock before advancing it.
func (c *FakeClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// WaitWaiters blocks until at least n After calls are pending or ctx ends.
func (c *FakeClock) WaitWaiters(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		got, ch := len(c.waiters), c.changed
		c.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("controllertest: %d clock waiters, want %d: %w", got, n, ctx.Err())
		}
	}
}
