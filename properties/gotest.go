package properties

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"pgregory.net/rapid"
)

// Environment of sharded `go test` property runs (Check). A CI matrix job
// sets the same seed and its own shard, and each writes its results file:
//
//	CONVERGE_SEED=$RUN CONVERGE_SHARD=2/4 CONVERGE_REPORT=shard-2.json \
//	  go test ./examples/replicaset -run TestReplicaSetsPassTheProperty -rapid.checks=1000
//
// then `converge report merge shard-*.json` gives one summary and exit code.
const (
	ShardEnv  = "CONVERGE_SHARD"  // "I/N": run the I-th of N slices of -rapid.checks
	SeedEnv   = "CONVERGE_SEED"   // the campaign's seed; required with ShardEnv
	ReportEnv = "CONVERGE_REPORT" // write a results file (ResultsSchema) here
)

// Check is rapid.Check for properties that may run sharded. With neither
// CONVERGE_SHARD nor CONVERGE_REPORT set it is rapid.Check. Otherwise it
// runs check i of the -rapid.checks for each i of its shard on
// CheckSeed(CONVERGE_SEED, i), stops at the first failure, names the
// command that replays it under rapid (which shrinks it), and writes the
// results file. It reads rapid's flags and sets none.
func Check(tb rapid.TB, prop func(*rapid.T)) {
	tb.Helper()
	shardText, sharded := os.LookupEnv(ShardEnv)
	report, reporting := os.LookupEnv(ReportEnv)
	if !sharded && !reporting {
		rapid.Check(tb, prop)
		return
	}
	shard, err := ParseShard(shardText)
	if err != nil {
		tb.Fatalf("%s: %v", ShardEnv, err)
		return
	}
	seed, err := campaignSeed(shardText != "")
	if err != nil {
		tb.Fatalf("%v", err)
		return
	}
	checks, steps := rapidFlag("rapid.checks", 100), rapidFlag("rapid.steps", 30)
	res := CheckResults{Schema: ResultsSchema, Name: tb.Name(), Target: "test", Seed: seed, Shard: shard.String(),
		Checks: len(shard.Indices(checks)), Steps: steps}
	start := time.Now()
	invalid := 0
	for _, i := range shard.Indices(checks) {
		s := CheckSeed(seed, i)
		t0 := time.Now()
		_, skipped, err := runSeed(s, func(rt *rapid.T) (struct{}, error) { prop(rt); return struct{}{}, nil })
		switch {
		case skipped:
			invalid++
			continue
		case err == nil:
			res.Passed++
			continue
		}
		res.Failed = 1
		res.Failures = []Record{goTestRecord(tb.Name(), i, s, err.Error(), time.Since(t0))}
		break
	}
	res.Duration = time.Since(start).Seconds()
	if reporting {
		if err := res.WriteFile(report); err != nil {
			tb.Errorf("%s: %v", ReportEnv, err)
		}
	}
	if res.Failed > 0 {
		f := res.Failures[0]
		tb.Fatalf("[converge] %s of shard %s failed after %d passing checks: %s\nreplay and shrink with: %s",
			f.Name, shard.whole(), res.Passed, f.Failure, f.Replay)
	}
	if invalid > 0 {
		tb.Errorf("[converge] only %d valid checks of %d (shard %s)", res.Passed, res.Checks, shard.whole())
	}
}

// campaignSeed is CONVERGE_SEED, else -rapid.seed, else (unsharded only)
// the clock. Shards must agree on it, so a sharded run needs one.
func campaignSeed(sharded bool) (uint64, error) {
	if v, ok := os.LookupEnv(SeedEnv); ok {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil || s == 0 {
			return 0, fmt.Errorf("%w: %s=%q is not a positive integer", ErrBadCampaign, SeedEnv, v)
		}
		return s, nil
	}
	if s := uint64(rapidFlag("rapid.seed", 0)); s != 0 {
		return s, nil
	}
	if sharded {
		return 0, fmt.Errorf("%w: %s needs %s (or -rapid.seed) so that the shards run one campaign", ErrBadCampaign, ShardEnv, SeedEnv)
	}
	return uint64(time.Now().UnixNano()), nil
}

// rapidFlag reads one of rapid's integer flags (the test binary's command
// line or RAPID_* environment), or def outside a test binary.
func rapidFlag(name string, def int) int {
	f := flag.Lookup(name)
	if f == nil {
		return def
	}
	n, err := strconv.ParseInt(f.Value.String(), 10, 64)
	if err != nil {
		return def
	}
	return int(n)
}

// goTestRecord reads a property's failure message: the message, then
// optionally "script (n actions):" with indented lines and a "trace: PATH"
// line, as Model, Lockstep and Impl print them.
func goTestRecord(test string, i int, seed uint64, msg string, d time.Duration) Record {
	r := Record{Name: fmt.Sprintf("check %d (seed %d)", i, seed), Index: i, Seed: seed, Duration: d.Seconds(),
		Replay: fmt.Sprintf("go test %s -run '^%s$' -rapid.checks=1 -rapid.seed=%d", packageDir(), test, seed)}
	if j := strings.Index(msg, "\nscript ("); j >= 0 {
		lines := strings.Split(msg[j+1:], "\n")
		end := 1
		for end < len(lines) && strings.HasPrefix(lines[end], "  ") {
			end++
		}
		if s, err := ParseScript(strings.NewReader(strings.Join(lines[:end], "\n"))); err == nil {
			for _, a := range s {
				r.Script = append(r.Script, a.String())
			}
			r.Steps = len(s)
		}
		for _, l := range lines[end:] {
			if p, ok := strings.CutPrefix(l, "trace: "); ok {
				r.Trace, _, _ = strings.Cut(p, " ")
			}
		}
		msg = msg[:j]
	}
	r.Failure, r.FailStep = msg, r.Steps
	return r
}

// packageDir is the test's package as a path from the module root ("." if
// it cannot tell): go test runs a test binary in its package's directory.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}
