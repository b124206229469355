package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
)

const checkOperatorUsage = "--crds DIR [--checks N] [--steps N] [--seed N] [--faults=BOOL] [--field PLURAL:PATH=V1,V2] [--work-dir DIR] -- CMD ARGS..."

type checkOperatorFlags struct {
	crds, workDir, dir       string
	checks, steps            int
	seed                     uint64
	faults                   bool
	quiet, settle, shrink    time.Duration
	kinds, namespaces, names string
	fields                   map[string][]crdgen.Option
}

// runCheckOperator is `converge check operator`: properties.CheckProcess
// outside `go test`, on an embedded etcd of its own.
func runCheckOperator(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("check operator", checkOperatorUsage, stderr)
	f := checkOperatorFlags{fields: map[string][]crdgen.Option{}}
	fs.StringVar(&f.crds, "crds", "", "the operator's CustomResourceDefinitions (a kubebuilder project's config/crd/bases); required")
	fs.IntVar(&f.checks, "checks", 20, "random checks to run")
	fs.IntVar(&f.steps, "steps", 10, "average drawn steps per check")
	fs.Uint64Var(&f.seed, "seed", 0, "rapid seed (default: from the clock; printed)")
	fs.BoolVar(&f.faults, "faults", true, "draw faults: SIGKILL and restart the operator (also right after its k-th write), fail one of its requests with 500, 429 or 504")
	fs.DurationVar(&f.quiet, "quiet", 300*time.Millisecond, "the least quiet period that says the operator is idle (it adapts to the operator's pace)")
	fs.DurationVar(&f.settle, "settle", 30*time.Second, "how long the operator may take to go idle after a step, and the run to converge")
	fs.DurationVar(&f.shrink, "shrink-time", 30*time.Second, "time allowed to shrink a counterexample")
	fs.StringVar(&f.kinds, "kinds", "", "the custom resources users write, by plural, comma-separated (default: every kind the CRDs define)")
	fs.StringVar(&f.namespaces, "namespaces", "default", "where custom resources are created, comma-separated")
	fs.StringVar(&f.names, "names", "a,b", "the custom resources' names, comma-separated")
	fs.StringVar(&f.workDir, "work-dir", "", "where each check's kubeconfig and operator log go (default: a temporary directory, kept if a check fails)")
	fs.StringVar(&f.dir, "dir", "", "the directory the operator runs in (default: the current one)")
	fs.Func("field", "draw a field of a kind's custom resources from these values: PLURAL:PATH=V1,V2 (values as JSON, else strings); repeatable", f.addField)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.crds == "" {
		return usageError("--crds is required: the directory of the operator's CRDs")
	}
	if fs.NArg() == 0 {
		return usageError("no operator command: converge check operator --crds DIR -- CMD ARGS...")
	}
	if f.checks <= 0 || f.steps <= 0 || f.quiet <= 0 || f.settle <= 0 || f.shrink <= 0 {
		return usageError("--checks, --steps, --quiet, --settle and --shrink-time must be positive")
	}
	if st, err := os.Stat(f.crds); err != nil || !st.IsDir() {
		return usageError("--crds %s: not a directory", f.crds)
	}
	seedSet := false
	fs.Visit(func(fl *flag.Flag) { seedSet = seedSet || fl.Name == "seed" })
	if !seedSet || f.seed == 0 {
		f.seed = uint64(time.Now().UnixNano())
	}
	p := properties.Process{Command: fs.Args(), Dir: f.dir, CRDs: f.crds, Kinds: split(f.kinds), Namespaces: split(f.namespaces),
		Names: split(f.names), Fields: f.fields, NoFaults: !f.faults, Quiet: f.quiet, Settle: f.settle, WorkDir: f.workDir}
	return checkOperator(f, p, stdout)
}

func checkOperator(f checkOperatorFlags, p properties.Process, stdout io.Writer) error {
	c, stop, err := tempEtcd("check-operator")
	if err != nil {
		return fmt.Errorf("start etcd: %w", err)
	}
	defer stop()
	var n atomic.Int64
	stores := func() *store.Store { return store.New(c, fmt.Sprintf("/check-operator/%d", n.Add(1))) }
	// rapid.Check, whose shrinker this check uses, asks testing.Short,
	// which needs the testing flags registered and parsed: outside `go
	// test` there are none to parse.
	testing.Init()
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse(nil)
	}
	undo, err := setRapidFlags(map[string]string{"rapid.checks": strconv.Itoa(f.checks), "rapid.steps": strconv.Itoa(f.steps),
		"rapid.seed": strconv.FormatUint(f.seed, 10), "rapid.shrinktime": f.shrink.String(), "rapid.nofailfile": "true"})
	defer undo()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "converge check operator: %s, %d checks of ~%d steps, faults %v, seed %d\n", strings.Join(p.Command, " "), f.checks, f.steps, f.faults, f.seed)
	start := time.Now()
	report := properties.NewReport("check operator")
	properties.CheckProcessWith(report, stores, p)
	elapsed := time.Since(start).Round(time.Millisecond)
	if !report.Failed() {
		fmt.Fprintf(stdout, "ok: %d checks passed in %v (seed %d)\n", f.checks, elapsed, f.seed)
		return nil
	}
	fmt.Fprintf(stdout, "FAIL: in %v (seed %d; the same seed draws the same steps, the operator's own timing aside):\n", elapsed, f.seed)
	for _, line := range strings.Split(report.Text(), "\n") {
		if strings.HasPrefix(line, "Failed test output:") {
			break // rapid's rerun of the shrunk steps says it again
		}
		if !strings.Contains(line, "[rapid] draw ") && !strings.Contains(line, "To reproduce, specify -run") {
			fmt.Fprintln(stdout, line)
		}
	}
	return &exitError{code: 1, err: fmt.Errorf("the operator failed the check (seed %d)", f.seed)}
}

// addField parses one --field.
func (f *checkOperatorFlags) addField(s string) error {
	plural, rest, ok := strings.Cut(s, ":")
	path, values, ok2 := strings.Cut(rest, "=")
	if !ok || !ok2 || plural == "" || path == "" || values == "" {
		return fmt.Errorf("want PLURAL:PATH=V1,V2, not %q", s)
	}
	var vs []any
	for _, v := range strings.Split(values, ",") {
		var x any
		if json.Unmarshal([]byte(v), &x) != nil {
			x = v
		}
		vs = append(vs, x)
	}
	f.fields[plural] = append(f.fields[plural], crdgen.WithField(path, rapid.SampledFrom(vs)))
	return nil
}

// split is a comma-separated list, nil if empty.
func split(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// setRapidFlags sets rapid's flags (registered on the command line's flag
// set) and returns how to put them back.
func setRapidFlags(values map[string]string) (undo func(), err error) {
	old := map[string]string{}
	undo = func() {
		for k, v := range old {
			_ = flag.Set(k, v)
		}
	}
	for k, v := range values {
		fl := flag.Lookup(k)
		if fl == nil {
			return undo, fmt.Errorf("rapid has no flag %s", k)
		}
		old[k] = fl.Value.String()
		if err := flag.Set(k, v); err != nil {
			return undo, err
		}
	}
	return undo, nil
}
