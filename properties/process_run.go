package properties

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/serving"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
)

// processRun is one check of an operator as its own process: the
// control plane, the apiserver on a loopback port, the process, and the
// steps taken so far.
type processRun struct {
	rt      fataler
	sh      *processShared
	p       Process
	ctx     context.Context
	dir     string
	st      *store.Store
	reg     *registry.Registry
	running *cluster.Running
	hs      *http.Server
	tracker *requestTracker
	user    client.Client
	cfg     *rest.Config // the user's
	proc    *operatorProcess
	kinds   []customKind
	chk     *model.Checker
	steps   []string
	drawn   int // steps drawn
	ended   int // steps before the end, once it has begun (atEnd)
	atEnd   bool
	// baseline is the objects before the first step: what the cleanup
	// must come back to.
	baseline map[string]bool
	logRead  int64 // the operator's log up to here has been scanned
	holdFrom int   // the step that armed a hold of the operator's next write, if one is armed
	failed   bool
}

// runProcess is the property CheckProcess checks.
func runProcess(rt *rapid.T, stores func() *store.Store, sh *processShared) {
	r := newProcessRun(rt, stores, sh)
	defer r.close()
	rt.Repeat(map[string]func(*rapid.T){
		"step": func(rt *rapid.T) {
			// A user's write four times in five; else, with faults on, a
			// fault.
			if r.p.NoFaults || rapid.IntRange(0, 4).Draw(rt, "user or fault") > 0 {
				r.userStep(rt)
			} else {
				r.fault(rt)
			}
		},
	})
	r.end()
}

func newProcessRun(rt fataler, stores func() *store.Store, sh *processShared) *processRun {
	dir, err := sh.runDir()
	if err != nil {
		rt.Fatal(err)
	}
	r := &processRun{rt: rt, sh: sh, p: sh.p, ctx: context.Background(), dir: dir, chk: model.NewChecker(),
		tracker: newRequestTracker(OperatorUser, sh.p.Quiet)}
	ready := false
	defer func() { // rt.Fatal below ends the goroutine: clean up on the way out
		if !ready {
			r.failed = true
			r.close()
		}
	}()
	r.st = stores()
	r.reg = registry.New(registry.Config{Store: r.st})
	if err := r.reg.EnsureNamespaces(r.ctx); err != nil {
		rt.Fatal(err)
	}
	names, err := r.reg.Install(r.ctx, sh.crds)
	if err != nil {
		rt.Fatalf("properties: install the CRDs: %v", err)
	}
	if r.kinds, err = loadCustomKinds(r.ctx, r.reg, names, r.p.Kinds, r.p.Fields, r.p.CRDs); err != nil {
		rt.Fatal(err)
	}
	server, err := r.serve()
	if err != nil {
		rt.Fatal(err)
	}
	if r.running, err = cluster.StartRunning(cluster.RunningConfig{Store: r.st, Nodes: 1}); err != nil {
		rt.Fatal(err)
	}
	r.cfg = &rest.Config{Host: server, BearerToken: sh.userToken, QPS: -1, TLSClientConfig: rest.TLSClientConfig{CAFile: sh.tls.CA}}
	if r.user, err = client.New(r.cfg, client.Options{Scheme: clientgoscheme.Scheme}); err != nil {
		rt.Fatal(err)
	}
	for _, ns := range r.p.Namespaces {
		r.ensureNamespace(ns)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := apiserver.WriteKubeconfig(kubeconfig, server, sh.tls.CA, OperatorUser, sh.opToken); err != nil {
		rt.Fatal(err)
	}
	env := append(append(os.Environ(), r.p.Env...), "KUBECONFIG="+kubeconfig)
	r.proc = &operatorProcess{argv: r.p.Command, dir: r.p.Dir, env: env, logPath: filepath.Join(dir, "operator.log")}
	if err := r.proc.start(); err != nil {
		rt.Fatal(err)
	}
	ready = true
	r.startup()
	return r
}

// serve puts the apiserver on a loopback port, over HTTPS, and returns
// its URL.
func (r *processRun) serve() (string, error) {
	srv, err := apiserver.New(apiserver.Config{Registry: r.reg, Auth: r.sh.auth, Tracker: r.tracker, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		return "", err
	}
	tlsCfg, err := r.sh.tls.TLSConfig()
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	r.hs = serving.NewServer(srv.Handler(), tlsCfg, serving.Limits{})
	go func() { _ = r.hs.ServeTLS(ln, "", "") }()
	return "https://" + ln.Addr().String(), nil
}

// startup waits for the operator's first request, then for it to go
// idle, and notes what is there before the first step.
func (r *processRun) startup() {
	r.rt.Helper()
	deadline := time.Now().Add(r.p.Settle)
	for {
		if r.tracker.heardOperator() {
			break
		}
		if exited, _, err := r.proc.exitState(); exited {
			r.fail("the operator exited before its first request: %v", err)
		}
		if time.Now().After(deadline) {
			r.fail("the operator made no request in %v: does it read KUBECONFIG?", r.p.Settle)
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.settle()
	var err error
	if r.baseline, err = apiObjects(r.cfg); err != nil {
		r.fail("list what the API serves: %v", err)
	}
}

func (r *processRun) close() {
	r.tracker.releaseHold()
	if r.proc != nil {
		r.proc.close()
	}
	if r.hs != nil {
		_ = r.hs.Close()
	}
	if r.running != nil {
		r.running.Close()
	}
	if r.reg != nil {
		r.reg.UnserveCRDs()
	}
	if r.st != nil {
		_ = r.st.Drop(r.ctx)
	}
	if f, ok := r.rt.(interface{ Failed() bool }); ok && f.Failed() {
		r.failed = true
	}
	r.sh.ended(r.dir, r.failed)
}

func (r *processRun) ensureNamespace(ns string) {
	if err := createNamespace(r.ctx, r.user, ns); err != nil {
		r.fail("%v", err)
	}
}

// userStep creates, updates or deletes a custom resource.
func (r *processRun) userStep(rt *rapid.T) {
	d := drawCustom(rt, r.kinds, r.p.Namespaces, r.p.Names)
	w := d.write(r.ctx, r.user)
	if w.verb == "" {
		r.fail("%v", w.err)
	}
	line := fmt.Sprintf("user %s %s/%s", w.verb, d.k.resource, model.Key(d.ns, d.name))
	if w.detail != "" {
		line += "  # " + w.detail
	}
	if w.err != nil {
		if !apierrors.IsInvalid(w.err) && !strings.HasPrefix(w.err.Error(), "admission webhook ") {
			r.fail("%s: %v", line, w.err)
		}
		line += "; refused: " + w.err.Error()
	}
	r.step(line)
}

// fault crashes the operator now or right after its k-th write, or
// fails one of its requests.
func (r *processRun) fault(rt *rapid.T) {
	switch rapid.IntRange(0, 5).Draw(rt, "fault") {
	case 0:
		r.proc.killAndWait()
		r.step("crash: SIGKILL the operator, then start it again")
	case 1:
		k := rapid.IntRange(1, 3).Draw(rt, "k")
		r.tracker.armKill(k, r.proc.kill)
		r.step(fmt.Sprintf("crash point: SIGKILL the operator right after its write %d from here", k))
	case 2:
		n := r.tracker.dropWatches()
		r.step(fmt.Sprintf("watch drop: close the operator's %d watches, and answer its next ones 410 Gone (a relist)", n))
	case 3:
		r.tracker.armHold()
		r.holdFrom = r.drawn + 1
		r.step("hold: the operator's next write waits until the next step is taken")
	default:
		f := apiFault{writes: rapid.Bool().Draw(rt, "write?"), code: rapid.SampledFrom(faultCodes).Draw(rt, "code")}
		r.tracker.armFault(f)
		r.step("api fault: " + f.String())
	}
}

// step records a step, waits for the operator to go idle (restarting it
// if the check killed it) and checks what must hold after every step:
// the built-in safety invariants of the stored objects (model.Checker:
// Kubernetes' own, such as a pod binds only to a Ready node and
// finalizers hold an object), and no panic in a reconcile.
func (r *processRun) step(line string) {
	r.rt.Helper()
	r.drawn++
	r.steps = append(r.steps, line)
	if r.holdFrom > 0 && r.drawn > r.holdFrom {
		r.releaseHold()
	}
	r.settle()
	snap := r.running.Snapshot()
	// A running cluster's snapshot is not atomic (the store, then the
	// machines): between steps only the store's invariants are checked.
	stored := *snap
	stored.Containers, stored.Rules = nil, nil
	if err := r.chk.Check(&stored, nil); err != nil {
		r.fail("%v", err)
	}
	if err := r.scanLog(false); err != nil {
		r.fail("%v", err)
	}
}

// noteMark starts a line of the steps that notes what happened.
const noteMark = "note: "

// settle waits until the operator is idle and the control plane quiet,
// restarting the operator if the check killed it. An operator that exits
// on its own fails the run: a manager runs until it is told to stop
// (controller-runtime's Manager.Start returns only when its context
// ends, or on an error it cannot recover from), and a Deployment would
// restart it in a crash loop.
func (r *processRun) settle() {
	r.rt.Helper()
	deadline := time.Now().Add(r.p.Settle)
	for {
		if exited, killed, err := r.proc.exitState(); exited {
			if !killed {
				r.fail("the operator exited on its own: %v", err)
			}
			r.tracker.restarted()
			if err := r.proc.start(); err != nil {
				r.fail("%v", err)
			}
			r.steps = append(r.steps, noteMark+"the operator starts again")
		}
		now := time.Now()
		quietFor, quiet, none := r.tracker.idleFor(now)
		if none && r.running.Idle() && quietFor >= quiet && now.Sub(r.running.LastWrite()) >= quiet {
			return
		}
		if now.After(deadline) {
			_, recent := r.tracker.operatorWrites()
			r.fail("the operator never goes idle: still busy %v after the step (its last writes: %s)", r.p.Settle, strings.Join(recent, "; "))
		}
		time.Sleep(min(quiet/10, 20*time.Millisecond))
	}
}

// fail ends the run with the steps taken so far and the operator's log.
func (r *processRun) fail(format string, args ...any) {
	r.rt.Helper()
	r.failed = true
	var b strings.Builder
	fmt.Fprintf(&b, format, args...)
	fmt.Fprintf(&b, "\nsteps (%d drawn, then the end):\n", r.drawn)
	n := 0
	for i, s := range r.steps {
		if r.atEnd && i == r.ended {
			b.WriteString("      ---- the end: faults off, quiesce, oracles\n")
		}
		if note, ok := strings.CutPrefix(s, noteMark); ok {
			fmt.Fprintf(&b, "        (%s)\n", note) // what happened, not a step
			continue
		}
		n++
		fmt.Fprintf(&b, "%4d  %s\n", n, s)
	}
	if r.proc != nil {
		fmt.Fprintf(&b, "operator log: %s\n", r.proc.logPath)
		if tail := logTail(r.proc.logPath, 10); tail != "" {
			b.WriteString(tail)
		}
	}
	r.rt.Fatal(b.String())
}

// releaseHold lets the held write of the operator go, once the step
// after the hold's has been taken, and notes it.
func (r *processRun) releaseHold() {
	r.holdFrom = 0
	if what := r.tracker.releaseHold(); what != "" {
		r.steps = append(r.steps, noteMark+"the held write lands: "+what)
	}
}
