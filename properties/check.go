package properties

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/model"
)

// Target is what a campaign checks.
type Target string

const (
	// TargetModel runs the model property (Model's checks) alone.
	TargetModel Target = "model"
	// TargetLockstep runs the model against the stepped implementation.
	TargetLockstep Target = "lockstep"
)

// ErrBadCampaign is wrapped by every error about a campaign's settings.
var ErrBadCampaign = errors.New("properties: bad campaign")

// Campaign is a rapid campaign run outside `go test`.
type Campaign struct {
	// Checks is the number of random checks. Default 100.
	Checks int
	// Steps is the average number of random actions per check. Default 50.
	Steps int
	// Seed is rapid's seed; 0 lets rapid pick one (not reproducible).
	Seed uint64
	// ShrinkTime bounds rapid's shrinking of a counterexample. Default 30s.
	ShrinkTime time.Duration
	// Faults lets the generator draw faults.
	Faults bool
	// Target: TargetModel (default) or TargetLockstep.
	Target Target
	// Decisions replaces components' decisions in the model and, for
	// lockstep, in the implementation: a mutant of the catalogue
	// (properties/mutants). Nil runs the shipped code.
	Decisions model.Decisions
	// NewStepped starts a fresh stepped cluster (its own key prefix) running
	// decisions; required for TargetLockstep. The campaign closes it.
	NewStepped func(decisions model.Decisions) (*cluster.Stepped, error)
	// Progress, when set, is called after every run of the property, on the
	// campaign's goroutine.
	Progress func(Progress)
}

// Progress counts the runs of a campaign so far. Runs after the first
// failure are rapid shrinking the counterexample.
type Progress struct {
	Checks    int // checks finished before the first failure
	Failures  int // failing runs (1 once found; shrinking adds more)
	Shrinking int // runs spent shrinking
}

// Outcome is the end of a campaign.
type Outcome struct {
	Checks  int      // checks that passed
	Failure *Failure // nil when every check passed; Msg without the script
	Script  Script   // the shrunk counterexample, when it has one
	Report  string   // rapid's report, verbatim
}

// Run runs the campaign with rapid. rapid reads its settings from global
// flags (rapid.checks, rapid.steps, rapid.seed, rapid.nofailfile,
// rapid.shrinktime), so Run
// sets them for its duration and restores them: campaigns must not run
// concurrently. No fail file is written.
func (c Campaign) Run() (Outcome, error) {
	if c.Checks == 0 {
		c.Checks = 100
	}
	if c.Steps == 0 {
		c.Steps = 50
	}
	if c.ShrinkTime == 0 {
		c.ShrinkTime = 30 * time.Second
	}
	if c.Target == "" {
		c.Target = TargetModel
	}
	if c.Checks < 0 || c.Steps < 0 || c.ShrinkTime < 0 {
		return Outcome{}, fmt.Errorf("%w: checks, steps and shrink time must be positive", ErrBadCampaign)
	}
	var body func(*rapid.T)
	cfg := model.Config{Decisions: c.Decisions}
	switch c.Target {
	case TargetModel:
		body = func(rt *rapid.T) { modelProperty(rt, cfg, c.Faults) }
	case TargetLockstep:
		if c.NewStepped == nil {
			return Outcome{}, fmt.Errorf("%w: lockstep needs NewStepped", ErrBadCampaign)
		}
		body = func(rt *rapid.T) {
			s, err := c.NewStepped(c.Decisions)
			if err != nil {
				rt.Fatalf("start the stepped cluster: %v", err)
			}
			defer s.Close()
			LockstepConfig(rt, s, c.Faults, cfg)
		}
	default:
		return Outcome{}, fmt.Errorf("%w: unknown target %q (model or lockstep)", ErrBadCampaign, c.Target)
	}

	campaignMu.Lock()
	defer campaignMu.Unlock()
	// rapid asks testing.Short, which needs the test flags registered and
	// parsed; outside `go test` nobody else parses the global flag set.
	testing.Init()
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse(nil)
	}
	undo, err := setFlags(map[string]string{
		"rapid.checks": strconv.Itoa(c.Checks), "rapid.steps": strconv.Itoa(c.Steps),
		"rapid.seed": strconv.FormatUint(c.Seed, 10), "rapid.nofailfile": "true",
		"rapid.shrinktime": c.ShrinkTime.String(),
	})
	defer undo()
	if err != nil {
		return Outcome{}, err
	}

	var p Progress
	rec := &reportTB{name: "converge-check"}
	rapid.Check(rec, func(rt *rapid.T) {
		defer func() {
			switch {
			case rt.Failed():
				p.Failures++
				if p.Failures > 1 {
					p.Shrinking++
				}
			case p.Failures > 0:
				p.Shrinking++
			default:
				p.Checks++
			}
			if c.Progress != nil {
				c.Progress(p)
			}
		}()
		body(rt)
	})
	return rec.outcome(p.Checks), nil
}

// campaignMu serializes campaigns: rapid's settings are global.
var campaignMu sync.Mutex

func setFlags(values map[string]string) (undo func(), err error) {
	old := map[string]string{}
	undo = func() {
		for k, v := range old {
			_ = flag.Set(k, v)
		}
	}
	for k, v := range values {
		f := flag.Lookup(k)
		if f == nil {
			return undo, fmt.Errorf("properties: rapid has no flag %s", k)
		}
		old[k] = f.Value.String()
		if err := flag.Set(k, v); err != nil {
			return undo, fmt.Errorf("properties: set %s: %w", k, err)
		}
	}
	return undo, nil
}

// reportTB is the rapid.TB of a campaign.
type reportTB = Report

// rapidFailed matches the head of rapid's failure report.
var rapidFailed = regexp.MustCompile(`^\[rapid\] failed after (\d+) tests: `)

// outcome reads rapid's report: "[rapid] failed after N tests: MSG\nTo
// reproduce, ...", where MSG is the property's message and script.
func (r *reportTB) outcome(checks int) Outcome {
	o := Outcome{Checks: checks, Report: strings.Join(r.errs, "\n")}
	if !r.failed {
		return o
	}
	msg := o.Report
	if m := rapidFailed.FindStringSubmatch(msg); m != nil {
		o.Checks, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		if i := strings.Index(msg, "\nTo reproduce, specify"); i >= 0 {
			msg = msg[:i]
		}
	}
	if i := strings.Index(msg, "\nscript ("); i >= 0 {
		// The script is the header and the indented lines after it; a
		// property may print more below (a trace path).
		lines := strings.Split(msg[i+1:], "\n")
		end := 1
		for end < len(lines) && strings.HasPrefix(lines[end], "  ") {
			end++
		}
		o.Script, _ = ParseScript(strings.NewReader(strings.Join(lines[:end], "\n")))
		msg = msg[:i]
	}
	o.Failure = &Failure{Step: len(o.Script), Msg: msg}
	return o
}
