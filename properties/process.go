package properties

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/properties/crdgen"
)

// Process is an operator to check as its own process, whatever its
// language or its controller-runtime version: the command that runs it
// and its CRDs. Only Command and CRDs are needed.
type Process struct {
	// Command is the operator's command line: the program, then its
	// arguments (a built manager, `go run ./cmd`, a Python operator).
	// It reads its cluster from KUBECONFIG, which the check sets.
	Command []string
	// Dir is the directory it runs in; default the current one.
	Dir string
	// Env is added to the check's own environment.
	Env []string
	// CRDs is the directory of the operator's CRD manifests, as
	// kubebuilder lays them out (config/crd/bases).
	CRDs string

	// Kinds, Namespaces, Names and Fields are Operator's: the custom
	// resources a user writes (by plural; default every kind the CRDs
	// define), where (default "default"), their names (default "a" and
	// "b") and constraints on their fields, per plural.
	Kinds      []string
	Namespaces []string
	Names      []string
	Fields     map[string][]crdgen.Option
	// NoFaults turns off the faults: crashes of the process (SIGKILL,
	// also right after its k-th write), and failed API requests.
	NoFaults bool
	// Quiet is the least quiet period that says the operator is idle: no
	// request of its own in flight, and none from anyone for that long.
	// Default 300ms; it grows to twice the longest pause the operator
	// takes between two requests of one burst, up to ten times Quiet.
	Quiet time.Duration
	// Settle bounds how long the operator may take to go idle after a
	// step, and the run to converge at the end; default 30s.
	Settle time.Duration
	// WorkDir is where each check's directory goes: the operator's
	// kubeconfig and log. Default a new temporary directory, removed at
	// the end unless a check failed; a failing check's is kept.
	WorkDir string
}

// OperatorUser is the user the operator's kubeconfig names: the
// apiserver tells its requests from everyone else's by it.
const OperatorUser = "converge-operator"

// CheckProcess checks an operator that runs as its own process, in `go
// test`: converge's apiserver over loopback HTTPS with the whole control
// plane running (Deployments get pods, the garbage collector collects),
// the operator started with KUBECONFIG naming its own user, and random
// interleavings of custom-resource creates, updates and deletes, crashes
// of the process (SIGKILL, then a restart; also right after its k-th
// write) and failed API requests (500, 429, 504). The check waits for the
// operator to go idle after every step and checks what the API shows:
// the built-in invariants after every step; at the end convergence, the
// fixed point (no write of the operator once all is quiet), no
// `Reconciler error` in the operator's log once all is quiet; then it
// deletes every custom resource, and no finalizer may stay stuck and
// nothing may be left behind. A failure prints the shrunk steps and the
// path of the operator's log. Add `func TestMain(m *testing.M) {
// properties.Main(m) }` to stop the embedded etcd at the end.
//
// The operator's timers (RequeueAfter, backoff, resyncs) run on its own
// clock, so a run is not replayed exactly: the steps are, and what the
// operator does between them depends on its timing (docs/processes.md).
func CheckProcess(t *testing.T, p Process) {
	t.Helper()
	CheckProcessTB(t, t, p)
}

// CheckProcessTB is CheckProcess reporting to any rapid.TB (a test that
// expects a failure passes its own, such as NewReport's); stores come
// from t.
func CheckProcessTB(tb rapid.TB, t testing.TB, p Process) {
	tb.Helper()
	CheckProcessWith(tb, func() *store.Store { return storeFor(t) }, p)
}

// CheckProcessWith is CheckProcess reporting to any rapid.TB, with a
// fresh store from stores for each check: for a run outside `go test`,
// such as `converge check operator`. Each check drops its store when it
// ends.
func CheckProcessWith(tb rapid.TB, stores func() *store.Store, p Process) {
	tb.Helper()
	sh, err := newProcessShared(p)
	if err != nil {
		tb.Fatal(err)
		return
	}
	defer sh.close(tb)
	Check(tb, func(rt *rapid.T) { runProcess(rt, stores, sh) })
}

// processShared is what the checks of one CheckProcess share: the
// certificates, the tokens, the CRDs as read, the work directory.
type processShared struct {
	p         Process
	dir       string
	ownDir    bool // the check made dir, and removes it unless a check failed
	tls       apiserver.TLSFiles
	auth      *apiserver.Auth
	userToken string
	opToken   string
	crds      []*api.CustomResourceDefinition

	mu   sync.Mutex
	runs int
}

func newProcessShared(p Process) (*processShared, error) {
	if len(p.Command) == 0 || p.CRDs == "" {
		return nil, errors.New("properties: a Process needs a Command and CRDs")
	}
	silenceControllerRuntime() // the harness's client is controller-runtime's
	if len(p.Namespaces) == 0 {
		p.Namespaces = []string{"default"}
	}
	if len(p.Names) == 0 {
		p.Names = []string{"a", "b"}
	}
	if p.Quiet <= 0 {
		p.Quiet = 300 * time.Millisecond
	}
	if p.Settle <= 0 {
		p.Settle = 30 * time.Second
	}
	if p.Dir == "" {
		p.Dir = "."
	}
	sh := &processShared{p: p, dir: p.WorkDir}
	var err error
	if sh.dir == "" {
		if sh.dir, err = os.MkdirTemp("", "converge-process-"); err != nil {
			return nil, err
		}
		sh.ownDir = true
	} else if err := os.MkdirAll(sh.dir, 0o755); err != nil {
		return nil, err
	}
	if sh.crds, err = registry.ReadCRDs(p.CRDs); err != nil {
		return nil, fmt.Errorf("properties: read the CRDs: %w", err)
	}
	if sh.tls, err = apiserver.EnsureTLS(filepath.Join(sh.dir, "pki")); err != nil {
		return nil, err
	}
	if sh.userToken, err = apiserver.NewToken(); err != nil {
		return nil, err
	}
	if sh.opToken, err = apiserver.NewToken(); err != nil {
		return nil, err
	}
	tokens := filepath.Join(sh.dir, "pki", "tokens.csv")
	lines := fmt.Sprintf("%s,admin,admin,\"system:masters\"\n%s,%s,%s,\"system:masters\"\n", sh.userToken, sh.opToken, OperatorUser, OperatorUser)
	if err := os.WriteFile(tokens, []byte(lines), 0o600); err != nil {
		return nil, err
	}
	if sh.auth, err = apiserver.LoadAuth(tokens, "", false); err != nil {
		return nil, err
	}
	return sh, nil
}

// runDir makes the directory of the next check.
func (sh *processShared) runDir() (string, error) {
	sh.mu.Lock()
	sh.runs++
	n := sh.runs
	sh.mu.Unlock()
	dir := filepath.Join(sh.dir, fmt.Sprintf("check-%d", n))
	return dir, os.MkdirAll(dir, 0o755)
}

// ended removes a passing check's directory; a failing one's is kept
// (rapid reports a failure from its shrinking, then runs it again).
func (sh *processShared) ended(dir string, failed bool) {
	if !failed {
		_ = os.RemoveAll(dir)
	}
}

// close removes the work directory the check made, unless a check
// failed.
func (sh *processShared) close(tb rapid.TB) {
	if sh.ownDir && !tb.Failed() {
		_ = os.RemoveAll(sh.dir)
	}
}
