package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/mutants"
)

func init() {
	register(command{name: "check", summary: "run a property campaign (model or model-vs-etcd lockstep), replay a script, or check an operator as its own process", run: runCheck,
		examples: []string{
			"converge check --checks 1000",
			"converge check --target lockstep --checks 200 --shard 1/4 --report shard-1.json",
			"converge check --replay failure.script",
			"converge check operator --crds config/crd/bases -- ./bin/manager",
		}})
}

const checkUsage = "[--checks N] [--steps N] [--seed N] [--shard I/N] [--faults=BOOL] [--time-travel] [--target model|lockstep] [--mutant NAME] [--out FILE] [--trace FILE] [--report FILE.json] [--junit FILE.xml] | --replay FILE"

type checkFlags struct {
	checks, steps int
	seed          uint64
	shard         properties.Shard
	faults        bool
	timeTravel    bool
	target        string
	mutant        string
	replay, out   string
	trace         string
	report, junit string
	shrink        time.Duration
}

func runCheck(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "operator" {
		return runCheckOperator(args[1:], stdout, stderr)
	}
	fs := newFlagSet("check", checkUsage, stderr)
	var f checkFlags
	fs.IntVar(&f.checks, "checks", 100, "random checks to run")
	fs.IntVar(&f.steps, "steps", 50, "average random actions per check")
	fs.Uint64Var(&f.seed, "seed", 0, "rapid seed (default: from the clock; printed)")
	fs.BoolVar(&f.faults, "faults", true, "draw faults (stale views, watch drops, compaction, crashes, node partitions)")
	fs.BoolVar(&f.timeTravel, "time-travel", false, "with --faults, also restart components against a lagging apiserver (every built-in one but the replicaset controller)")
	fs.StringVar(&f.target, "target", "model", "model (the spec alone) or lockstep (model vs the implementation over an embedded etcd)")
	fs.StringVar(&f.mutant, "mutant", "", "run a deliberately wrong variant: "+mutantNames())
	fs.StringVar(&f.replay, "replay", "", "run this script (one action per line) instead of a campaign")
	fs.StringVar(&f.out, "out", "converge-failure.script", "where to save a counterexample")
	fs.DurationVar(&f.shrink, "shrink-time", 30*time.Second, "time allowed to shrink a counterexample")
	shard := fs.String("shard", "", "run only the I-th of N disjoint slices of the --checks (1-based, e.g. 2/4); needs --seed")
	fs.StringVar(&f.trace, "trace", "", "save a counterexample as a trace here (default $"+properties.FailureTraceEnv+" or converge-failure-TARGET-seedSEED.jsonl in the temp dir)")
	fs.StringVar(&f.report, "report", "", "write the results as JSON (schema "+properties.ResultsSchema+")")
	fs.StringVar(&f.junit, "junit", "", "write the results as JUnit XML")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if f.shard, err = properties.ParseShard(*shard); err != nil {
		return usageError("--shard: %v", err)
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	target := properties.Target(f.target)
	if target != properties.TargetModel && target != properties.TargetLockstep {
		return usageError("--target must be model or lockstep, not %q", f.target)
	}
	if _, err := mutantDecisions(f.mutant); err != nil {
		return usageError("%v", err)
	}
	if f.checks <= 0 || f.steps <= 0 || f.shrink <= 0 {
		return usageError("--checks, --steps and --shrink-time must be positive")
	}
	seedSet := false
	fs.Visit(func(fl *flag.Flag) { seedSet = seedSet || fl.Name == "seed" })
	if !seedSet && *shard != "" {
		return usageError("--shard needs --seed: every shard must run the same campaign")
	}
	if !seedSet || f.seed == 0 {
		f.seed = uint64(time.Now().UnixNano())
	}
	if f.replay != "" {
		return runReplay(f, target, stdout)
	}
	return runCampaign(f, target, stdout, stderr)
}

func mutantNames() string { return strings.Join(mutants.SharedNames(), ", ") }

// mutantDecisions installs a mutant of the catalogue by name ("" for none).
func mutantDecisions(name string) (model.Decisions, error) {
	if name == "" {
		return nil, nil
	}
	m, err := mutants.Shared(name)
	return m.Decisions, err
}

// lockstepClusters starts an embedded etcd in a temporary directory and
// returns a constructor of stepped clusters, each on a fresh key prefix.
// A campaign runs one cluster at a time, so each new one drops the keys of
// the one before: a long campaign would otherwise fill etcd.
func lockstepClusters() (newStepped func(model.Decisions) (*cluster.Stepped, error), stop func(), err error) {
	c, stopEtcd, err := tempEtcd("check")
	if err != nil {
		return nil, nil, err
	}
	n := 0
	var last *store.Store
	newStepped = func(d model.Decisions) (*cluster.Stepped, error) {
		if last != nil {
			_ = last.Drop(context.Background())
		}
		n++
		last = store.New(c, fmt.Sprintf("/check/%d", n))
		return cluster.NewStepped(cluster.SteppedConfig{Store: last, Decisions: d})
	}
	return newStepped, stopEtcd, nil
}

func runReplay(f checkFlags, target properties.Target, stdout io.Writer) error {
	text, err := os.ReadFile(f.replay)
	if err != nil {
		return usageError("%v", err)
	}
	script, err := properties.ParseScript(strings.NewReader(string(text)))
	if err != nil {
		return usageError("%s: %v", f.replay, err)
	}
	decisions, _ := mutantDecisions(f.mutant) // checked by runCheck
	cfg := model.Config{Decisions: decisions}
	if target == properties.TargetModel {
		err = properties.ReplayModel(strings.NewReader(string(text)), cfg)
	} else {
		newStepped, stop, serr := lockstepClusters()
		if serr != nil {
			return fmt.Errorf("start etcd: %w", serr)
		}
		defer stop()
		s, serr := newStepped(cfg.Decisions)
		if serr != nil {
			return serr
		}
		defer s.Close()
		err = properties.ReplayScript(strings.NewReader(string(text)), s, properties.ReplayOptions{Model: cfg})
	}
	var fail *properties.Failure
	if errors.As(err, &fail) {
		fmt.Fprintf(stdout, "FAIL: replaying %s (%d actions, target %s) fails at step %d:\n%s\n", f.replay, len(script), target, fail.Step, fail.Msg)
		return &exitError{code: 1, err: fmt.Errorf("the script fails at step %d", fail.Step)}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ok: replayed %s (%d actions, target %s), recovered and converged\n", f.replay, len(script), target)
	return nil
}

func runCampaign(f checkFlags, target properties.Target, stdout, stderr io.Writer) error {
	c := properties.Campaign{Checks: f.checks, Steps: f.steps, Seed: f.seed, Shard: f.shard, Faults: f.faults,
		Target: target, ShrinkTime: f.shrink, TracePath: f.trace}
	if f.timeTravel {
		c.TimeTravel = properties.TimeTravelers()
	}
	c.Decisions, _ = mutantDecisions(f.mutant) // checked by runCheck
	if target == properties.TargetLockstep {
		newStepped, stop, err := lockstepClusters()
		if err != nil {
			return fmt.Errorf("start etcd: %w", err)
		}
		defer stop()
		c.NewStepped = newStepped
	}
	mine := len(f.shard.Indices(f.checks))
	fmt.Fprintf(stdout, "converge check: target %s, %d checks of ~%d actions, faults %s, seed %d%s%s\n",
		target, mine, f.steps, faultsNote(f), f.seed, shardNote(f.shard, f.checks), mutantNote(f.mutant))

	start := time.Now()
	var mu sync.Mutex
	var last properties.Progress
	var found time.Time // the first failure: checks/s stops there
	c.Progress = func(p properties.Progress) {
		mu.Lock()
		defer mu.Unlock()
		last = p
		if p.Failures > 0 && found.IsZero() {
			found = time.Now()
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	if showProgress(os.Getenv("CI"), isTerminal(stdout), isTerminal(stderr)) {
		wg.Add(1)
		go func() { // progress, every second, in place on the terminal
			defer wg.Done()
			status := progressWriter{stderr}
			defer status.clear()
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					mu.Lock()
					p, end := last, found
					mu.Unlock()
					if end.IsZero() {
						end = time.Now()
					}
					status.show(progressLine(p, mine, end.Sub(start)))
				}
			}
		}()
	}
	out, err := c.Run()
	close(done)
	wg.Wait()
	if err != nil {
		return usageError("%v", err)
	}
	elapsed := time.Since(start).Round(time.Millisecond)
	replay := "converge check --target lockstep" + mutantFlag(f.mutant) + " --replay " + f.out
	if err := writeResults(f, properties.NewResults(c, out, elapsed, replay)); err != nil {
		return err
	}
	if out.Failure == nil {
		fmt.Fprintf(stdout, "ok: %d checks passed in %v (seed %d%s)\n", out.Checks, elapsed, f.seed, shardNote(f.shard, f.checks))
		return nil
	}
	fail := out.Runs[len(out.Runs)-1]
	fmt.Fprintf(stdout, "FAIL: check %d (seed %d) after %d passing checks in %v (campaign seed %d%s, shrunk in %d replays):\n%s\n",
		fail.Index, fail.Seed, out.Checks, elapsed, f.seed, shardNote(f.shard, f.checks), last.Shrinking, out.Failure.Msg)
	if len(out.Script) == 0 {
		fmt.Fprintf(stdout, "report:\n%s\n", out.Report)
		return &exitError{code: 1, err: errors.New("the property failed without a script")}
	}
	fmt.Fprintf(stdout, "%s\n", out.Script)
	if out.Trace != "" {
		fmt.Fprintf(stdout, "trace: %s (converge trace view %s)\n", out.Trace, out.Trace)
	}
	if err := os.WriteFile(f.out, []byte(scriptFile(f, target, out, replay)), 0o644); err != nil {
		return fmt.Errorf("save the counterexample: %w", err)
	}
	fmt.Fprintf(stdout, "saved to %s; replay it with:\n  %s\n", f.out, replay)
	return &exitError{code: 1, err: fmt.Errorf("property failed; counterexample in %s", f.out)}
}

func shardNote(s properties.Shard, checks int) string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf(", shard %s of %d checks", s, checks)
}

// writeResults writes the --report and --junit files, if asked for.
func writeResults(f checkFlags, r properties.CheckResults) error {
	if f.report != "" {
		if err := r.WriteFile(f.report); err != nil {
			return fmt.Errorf("write the report: %w", err)
		}
	}
	if f.junit != "" {
		if err := writeJUnitFile(f.junit, r); err != nil {
			return err
		}
	}
	return nil
}

func mutantNote(m string) string {
	if m == "" {
		return ""
	}
	return ", mutant " + m
}

func mutantFlag(m string) string {
	if m == "" {
		return ""
	}
	return " --mutant " + m
}

// scriptFile is the saved counterexample: a commented header, then one
// action per line.
func scriptFile(f checkFlags, target properties.Target, out properties.Outcome, replay string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# converge check counterexample: target %s, seed %d, faults %s%s\n", target, f.seed, faultsNote(f), mutantNote(f.mutant))
	fmt.Fprintf(&b, "# fails at step %d:\n", out.Failure.Step)
	for _, l := range strings.Split(out.Failure.Msg, "\n") {
		fmt.Fprintf(&b, "#   %s\n", l)
	}
	fmt.Fprintf(&b, "# replay: %s\n", replay)
	for _, a := range out.Script {
		b.WriteString(a.String() + "\n")
	}
	return b.String()
}

// faultsNote says whether faults are drawn, and time travel with them.
func faultsNote(f checkFlags) string {
	if f.faults && f.timeTravel {
		return "true, with time travel"
	}
	return strconv.FormatBool(f.faults)
}
