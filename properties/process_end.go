package properties

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/model"
)

// end turns the faults off, waits for convergence, checks the fixed
// point, then deletes every custom resource and checks that nothing is
// stuck and nothing is left behind.
func (r *processRun) end() {
	r.rt.Helper()
	r.ended, r.atEnd = len(r.steps), true
	r.tracker.armKill(0, nil)
	r.tracker.disarmFault()
	r.releaseHold()
	r.steps = append(r.steps, "quiesce: wait for convergence")
	r.converged()
	r.fixedPoint()
	r.cleanup()
}

// converged is the convergence oracle. Convention: controllers are
// level-triggered and move the world towards the spec until nothing is
// left to do (Kubernetes' controller pattern), so once the users stop and
// the faults end, the state converges: every object's owner lives (the
// garbage collector has taken the rest), pods run and are ready,
// Deployments have rolled out, nothing is still terminating.
func (r *processRun) converged() {
	r.rt.Helper()
	r.until("not converged", func() error {
		snap := r.running.Snapshot()
		return cmp.Or(model.Converged(snap), nothingTerminating(snap))
	})
}

// fixedPoint is the fixed-point and churn oracle. Convention: a
// reconcile of a world that matches the spec changes nothing (the
// level-triggered contract: controller-runtime's "a pass that finds
// nothing to change writes nothing"); an operator that writes again and
// again with nothing else changing (a timestamp in its status, an
// annotation bumped each pass, two controllers fighting) never settles.
// A second quiet period after convergence must see no write of the
// operator. Its log must show no reconcile error then either
// (controller-runtime's `Reconciler error`, kopf's `failed with an
// exception`): once the world is quiet, a reconcile that fails is one
// that fails forever, retried with backoff, whose writes never land.
func (r *processRun) fixedPoint() {
	r.rt.Helper()
	window := max(time.Second, 3*r.p.Quiet)
	wrote := 0 // windows in which the operator wrote
	for attempt := 0; ; attempt++ {
		r.settle()
		if err := r.scanLog(false); err != nil { // up to here: only panics count
			r.fail("%v", err)
		}
		before, _ := r.tracker.operatorWrites()
		cp := r.running.LastWrite()
		time.Sleep(window)
		after, recent := r.tracker.operatorWrites()
		if r.running.LastWrite().After(cp) && attempt < 3 {
			continue // the control plane wrote: the operator may answer it
		}
		if after > before {
			// Once may be a retry that slept longer than the quiet period
			// (a backoff); twice in a row is churn.
			if wrote++; wrote < 2 && attempt < 3 {
				continue
			}
			r.steps = append(r.steps, fmt.Sprintf("fixed point: %v with nothing changing, twice", window))
			r.fail("no fixed point: the operator wrote %d times in %v of quiet after convergence, and again after it settled (churn); its last writes: %s",
				after-before, window, strings.Join(recent, "; "))
		}
		r.steps = append(r.steps, fmt.Sprintf("fixed point: %v with nothing changing", window))
		if err := r.scanLog(true); err != nil {
			r.fail("at the fixed point: %v", err)
		}
		return
	}
}

// cleanup deletes every custom resource, then checks the stuck-finalizer
// and leftover oracles. Conventions: the controller that puts a
// finalizer on an object removes it once its cleanup is done, and only
// then does the object go (Kubernetes' finalizers), so a deleted object
// whose finalizers never clear is stuck, and so is its namespace's
// deletion; and what an operator makes for a custom resource names it
// in a controller ownerReference (kubebuilder's SetControllerReference),
// so that the garbage collector deletes it with its owner, or, where an
// ownerReference cannot reach (another namespace, the cluster scope),
// the operator deletes it itself behind a finalizer. So once every
// custom resource is gone, the cluster is back to what it was before the
// first step, bookkeeping (Leases, Events) aside.
func (r *processRun) cleanup() {
	r.rt.Helper()
	r.steps = append(r.steps, "cleanup: delete every custom resource")
	for _, o := range r.customs() {
		if err := r.user.Delete(r.ctx, o); err != nil && !apierrors.IsNotFound(err) {
			r.fail("cleanup: delete %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	r.until("stuck finalizers", func() error {
		var stuck []string
		for _, o := range r.customs() {
			stuck = append(stuck, fmt.Sprintf("%s %s (finalizers %v)", o.GetKind(), model.Key(o.GetNamespace(), o.GetName()), o.GetFinalizers()))
		}
		if len(stuck) > 0 {
			return fmt.Errorf("deleted but still there, nothing removes their finalizers: %s", strings.Join(stuck, ", "))
		}
		return nothingTerminating(r.running.Snapshot())
	})
	now, err := apiObjects(r.cfg)
	if err != nil {
		r.fail("cleanup: list what the API serves: %v", err)
	}
	var left []string
	for obj := range now {
		if typ, _, _ := strings.Cut(obj, "/"); !r.baseline[obj] && !bookkeeping(typ) {
			left = append(left, obj)
		}
	}
	if len(left) > 0 {
		slices.Sort(left)
		r.fail("left behind once every custom resource was deleted (no ownerReference to it, and no finalizer that deletes them): %s", strings.Join(left, ", "))
	}
}

// customs lists every custom resource of the kinds the check writes.
func (r *processRun) customs() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, k := range r.kinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List"))
		if err := r.user.List(r.ctx, l, client.InNamespace("")); err != nil {
			r.fail("list %s: %v", k.resource, err)
		}
		for i := range l.Items {
			o := &l.Items[i]
			o.SetGroupVersionKind(k.gvk)
			out = append(out, o)
		}
	}
	return out
}

// until waits for cond to hold, settling between tries. It fails with
// what and cond's error once neither the operator nor the control plane
// has been heard for stillFor (the world has stopped and cond still does
// not hold; cond's own reads do not count) or after Settle.
func (r *processRun) until(what string, cond func() error) {
	r.rt.Helper()
	stillFor := max(2*time.Second, 5*r.p.Quiet)
	start := time.Now()
	deadline := start.Add(r.p.Settle)
	for {
		r.settle()
		err := cond()
		if err == nil {
			return
		}
		now := time.Now()
		still := min(now.Sub(r.tracker.operatorHeard()), now.Sub(r.running.LastWrite()), now.Sub(start))
		if still >= stillFor || now.After(deadline) {
			r.fail("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// errorMarks are the lines operators log for a failed reconcile:
// controller-runtime's and kopf's.
var errorMarks = []string{"Reconciler error", "failed with an exception"}

// scanLog reads the operator's log from where it last stopped. A panic
// in a reconcile (controller-runtime recovers it, and logs it as a
// Reconciler error) fails the run at any time: a reconciler never
// panics. With all, any reconcile error does.
func (r *processRun) scanLog(all bool) error {
	data, err := readFrom(r.proc.logPath, r.logRead)
	if err != nil {
		return err
	}
	// Only whole lines: the rest is read next time.
	end := strings.LastIndexByte(data, '\n') + 1
	r.logRead += int64(end)
	for _, line := range strings.Split(data[:end], "\n") {
		marked := slices.ContainsFunc(errorMarks, func(m string) bool { return strings.Contains(line, m) })
		if !marked {
			continue
		}
		if strings.Contains(line, "panic") {
			return fmt.Errorf("a reconcile panicked: %s", strings.TrimSpace(line))
		}
		if all {
			return fmt.Errorf("a reconcile fails in a quiet world: %s", strings.TrimSpace(line))
		}
	}
	return nil
}

// readFrom reads a file from offset on.
func readFrom(path string, offset int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return "", err
	}
	b, err := io.ReadAll(f)
	return string(b), err
}

// logTail is the last n lines of a log, indented, for a failure report.
func logTail(path string, n int) string {
	data, err := readFrom(path, 0)
	if err != nil || data == "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(data, "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	return "  | " + strings.Join(lines, "\n  | ") + "\n"
}
