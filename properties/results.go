package properties

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// ResultsSchema names version 1 of the results file that `converge check
// --report` and sharded `go test` runs (ReportEnv) write, and that
// `converge report merge` reads. A reader rejects any other value.
//
// Schema v1, one JSON object:
//
//	schema     string   always "converge.check-results/v1"
//	name       string   what ran: "converge check" or the test's name
//	target     string   "model", "lockstep" or "test"
//	seed       uint64   the campaign's seed (every shard the same)
//	shard      string   "I/N", or "" for a whole campaign; merged: "merged"
//	shards     []string the shards a merged file combines, sorted
//	checks     int      checks this file was asked to run (its shard's)
//	passed     int      checks that passed
//	failed     int      checks that failed (0 or 1 per shard: a shard stops at its first)
//	steps      int      average random actions per check asked for
//	actions    int      actions run in all checks, recovery and quiesce included
//	duration_seconds float  wall time
//	failures   []Record one per failed check (absent when all passed)
//
// Record:
//
//	name       string   "check 17 (seed 123...)"
//	index      int      0-based position of the check in the whole campaign
//	seed       uint64   the check's own seed (CheckSeed)
//	steps      int      actions of the shrunk counterexample
//	duration_seconds float  wall time of the failing run
//	failure    string   the property's message
//	fail_step  int      the action at which it fails (1-based)
//	script     []string the shrunk counterexample, one action per line
//	replay     string   the command that re-runs it
//	trace      string   the counterexample saved as a trace ("" if none)
//
// New fields may be added within v1; a field is never renamed or given a
// new meaning without a new version.
const ResultsSchema = "converge.check-results/v1"

// ErrBadResults is wrapped by every error about a results file.
var ErrBadResults = errors.New("properties: bad results")

// CheckResults is one results file (schema ResultsSchema).
type CheckResults struct {
	Schema   string   `json:"schema"`
	Name     string   `json:"name"`
	Target   string   `json:"target"`
	Seed     uint64   `json:"seed"`
	Shard    string   `json:"shard"`
	Shards   []string `json:"shards,omitempty"`
	Checks   int      `json:"checks"`
	Passed   int      `json:"passed"`
	Failed   int      `json:"failed"`
	Steps    int      `json:"steps"`
	Actions  int      `json:"actions"`
	Duration float64  `json:"duration_seconds"`
	Failures []Record `json:"failures,omitempty"`
}

// Record is one failed check.
type Record struct {
	Name     string   `json:"name"`
	Index    int      `json:"index"`
	Seed     uint64   `json:"seed"`
	Steps    int      `json:"steps"`
	Duration float64  `json:"duration_seconds"`
	Failure  string   `json:"failure"`
	FailStep int      `json:"fail_step"`
	Script   []string `json:"script,omitempty"`
	Replay   string   `json:"replay"`
	Trace    string   `json:"trace,omitempty"`
}

// OK is true when every check asked for ran and passed.
func (r CheckResults) OK() bool { return r.Failed == 0 && r.Passed == r.Checks }

// NewResults summarizes a campaign's outcome; replay is the command that
// re-runs its counterexample.
func NewResults(c Campaign, o Outcome, elapsed time.Duration, replay string) CheckResults {
	r := CheckResults{Schema: ResultsSchema, Name: "converge check", Target: string(c.Target), Seed: o.Seed,
		Shard: c.Shard.String(), Checks: len(c.Shard.Indices(c.Checks)), Passed: o.Checks, Steps: c.Steps,
		Duration: elapsed.Seconds()}
	if r.Target == "" {
		r.Target = string(TargetModel)
	}
	for _, run := range o.Runs {
		r.Actions += run.Actions
	}
	if o.Failure != nil {
		last := o.Runs[len(o.Runs)-1]
		rec := Record{Name: fmt.Sprintf("check %d (seed %d)", last.Index, last.Seed), Index: last.Index, Seed: last.Seed,
			Steps: len(o.Script), Duration: last.Duration.Seconds(), Failure: o.Failure.Msg, FailStep: o.Failure.Step,
			Replay: replay, Trace: o.Trace}
		for _, a := range o.Script {
			rec.Script = append(rec.Script, a.String())
		}
		r.Failed, r.Failures = 1, []Record{rec}
	}
	return r
}

// WriteFile writes r as indented JSON.
func (r CheckResults) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadResults reads one results file and checks its schema.
func ReadResults(rd io.Reader) (CheckResults, error) {
	var r CheckResults
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return CheckResults{}, fmt.Errorf("%w: %w", ErrBadResults, err)
	}
	if r.Schema != ResultsSchema {
		return CheckResults{}, fmt.Errorf("%w: schema %q, want %q", ErrBadResults, r.Schema, ResultsSchema)
	}
	return r, nil
}

// ReadResultsFile is ReadResults on a file, naming it in errors.
func ReadResultsFile(path string) (CheckResults, error) {
	f, err := os.Open(path)
	if err != nil {
		return CheckResults{}, fmt.Errorf("%w: %w", ErrBadResults, err)
	}
	defer f.Close()
	r, err := ReadResults(f)
	if err != nil {
		return CheckResults{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Merge combines the shards of one campaign: the same name, target and
// seed, each shard of an I/N split at most once. Missing shards are an
// error too, so a lost CI job cannot pass for a green campaign. A single
// whole-campaign file merges to itself.
func Merge(rs []CheckResults) (CheckResults, error) {
	if len(rs) == 0 {
		return CheckResults{}, fmt.Errorf("%w: nothing to merge", ErrBadResults)
	}
	m := CheckResults{Schema: ResultsSchema, Name: rs[0].Name, Target: rs[0].Target, Seed: rs[0].Seed, Steps: rs[0].Steps, Shard: "merged"}
	count := 0
	for _, r := range rs {
		if r.Name != m.Name || r.Target != m.Target || r.Seed != m.Seed {
			return CheckResults{}, fmt.Errorf("%w: %q (target %s, seed %d) and %q (target %s, seed %d) are not one campaign",
				ErrBadResults, m.Name, m.Target, m.Seed, r.Name, r.Target, r.Seed)
		}
		sh, err := ParseShard(r.Shard)
		if err != nil {
			return CheckResults{}, fmt.Errorf("%w: shard %q", ErrBadResults, r.Shard)
		}
		sh = sh.whole()
		if count != 0 && sh.Count != count {
			return CheckResults{}, fmt.Errorf("%w: shard %s of a %d-way split next to a %d-way split", ErrBadResults, sh, sh.Count, count)
		}
		count = sh.Count
		if slices.Contains(m.Shards, sh.String()) {
			return CheckResults{}, fmt.Errorf("%w: shard %s given twice", ErrBadResults, sh)
		}
		m.Shards = append(m.Shards, sh.String())
		m.Checks += r.Checks
		m.Passed += r.Passed
		m.Failed += r.Failed
		m.Actions += r.Actions
		m.Duration = max(m.Duration, r.Duration) // shards run side by side
		m.Failures = append(m.Failures, r.Failures...)
	}
	if len(m.Shards) != count {
		var missing []string
		for i := 1; i <= count; i++ {
			if s := (Shard{i, count}).String(); !slices.Contains(m.Shards, s) {
				missing = append(missing, s)
			}
		}
		return CheckResults{}, fmt.Errorf("%w: missing shard(s) %s", ErrBadResults, strings.Join(missing, ", "))
	}
	slices.SortFunc(m.Shards, func(a, b string) int {
		sa, _ := ParseShard(a)
		sb, _ := ParseShard(b)
		return sa.Index - sb.Index
	})
	slices.SortFunc(m.Failures, func(a, b Record) int { return a.Index - b.Index })
	return m, nil
}
