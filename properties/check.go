package properties

import (
	"errors"
	"fmt"
	"hash/fnv"
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

// Campaign is a rapid campaign run outside `go test`. It holds all of its
// settings itself (none in rapid's global flags), so campaigns with
// different settings can run at the same time in one process.
type Campaign struct {
	// Checks is the number of random checks of the whole campaign (every
	// shard). Default 100.
	Checks int
	// Steps is the average number of random actions per check. Default 50.
	Steps int
	// Seed is the campaign's seed; check i runs on CheckSeed(Seed, i). 0
	// picks one from the clock (Outcome.Seed says which).
	Seed uint64
	// Shard runs only the checks of one slice; the zero value runs all.
	Shard Shard
	// ShrinkTime bounds the shrinking of a counterexample. Default 30s.
	ShrinkTime time.Duration
	// Faults lets the generator draw faults.
	Faults bool
	// TimeTravel names the components the time-travel fault may restart
	// (with Faults; see LockstepOptions.TimeTravel and TimeTravelers).
	TimeTravel []string
	// Target: TargetModel (default) or TargetLockstep.
	Target Target
	// Decisions replaces components' decisions in the model and, for
	// lockstep, in the implementation: a mutant of the catalogue
	// (properties/mutants). Nil runs the shipped code.
	Decisions model.Decisions
	// NewStepped starts a fresh stepped cluster (its own key prefix) running
	// decisions; required for TargetLockstep. The campaign closes it.
	NewStepped func(decisions model.Decisions) (*cluster.Stepped, error)
	// TracePath is where a counterexample is saved as a trace; default
	// $CONVERGE_FAILURE_TRACE or converge-failure-<target>-seed<Seed>.jsonl
	// in the temp dir.
	TracePath string
	// Progress, when set, is called after every run of the property, on the
	// campaign's goroutine.
	Progress func(Progress)
}

// Progress counts the runs of a campaign so far. Runs after the first
// failure are replays shrinking the counterexample.
type Progress struct {
	Checks    int // checks finished before the first failure
	Failures  int // failing runs (1 once found)
	Shrinking int // replays spent shrinking
}

// Run is one check of a campaign.
type Run struct {
	Index    int           // 0-based position in the whole campaign
	Seed     uint64        // CheckSeed(campaign seed, Index)
	Actions  int           // actions applied, random and recovery/quiesce
	Digest   uint64        // FNV-1a of the script's text: equal runs, equal digests
	Duration time.Duration // wall time of the run
	Failed   bool
}

// Outcome is the end of a campaign.
type Outcome struct {
	Seed    uint64   // the campaign's seed (chosen when Campaign.Seed was 0)
	Checks  int      // checks that passed
	Runs    []Run    // every check run, in order; the last failed if Failure is set
	Failure *Failure // nil when every check passed; Msg without the script
	Script  Script   // the shrunk counterexample, when it has one
	Trace   string   // the counterexample saved as a trace ("" if none)
	Report  string   // a human summary of the failure
}

func (c *Campaign) defaults() error {
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
	if c.Seed == 0 {
		c.Seed = uint64(time.Now().UnixNano())
	}
	if c.TracePath == "" {
		c.TracePath = failureTracePath(string(c.Target), c.Seed)
	}
	if c.Checks < 0 || c.Steps < 0 || c.ShrinkTime < 0 {
		return fmt.Errorf("%w: checks, steps and shrink time must be positive", ErrBadCampaign)
	}
	if c.Shard.Count != 0 {
		if _, err := ParseShard(c.Shard.String()); err != nil {
			return err
		}
	}
	switch c.Target {
	case TargetModel:
	case TargetLockstep:
		if c.NewStepped == nil {
			return fmt.Errorf("%w: lockstep needs NewStepped", ErrBadCampaign)
		}
	default:
		return fmt.Errorf("%w: unknown target %q (model or lockstep)", ErrBadCampaign, c.Target)
	}
	return nil
}

// Run runs the campaign's checks (its shard's) in order, stops at the first
// failure and shrinks it. Check i draws its actions from CheckSeed(Seed, i)
// alone, so a check gives the same run in any shard and any process.
func (c Campaign) Run() (Outcome, error) {
	if err := c.defaults(); err != nil {
		return Outcome{}, err
	}
	o := Outcome{Seed: c.Seed}
	var p Progress
	progress := func() {
		if c.Progress != nil {
			c.Progress(p)
		}
	}
	for _, i := range c.Shard.Indices(c.Checks) {
		seed := CheckSeed(c.Seed, i)
		start := time.Now()
		script, _, err := runSeed(seed, c.property)
		run := Run{Index: i, Seed: seed, Actions: len(script), Digest: digest(script), Duration: time.Since(start)}
		if err == nil {
			o.Runs = append(o.Runs, run)
			o.Checks++
			p.Checks++
			progress()
			continue
		}
		run.Failed = true
		o.Runs = append(o.Runs, run)
		p.Failures++
		progress()
		fail := asFailure(err, len(script))
		script, fail = shrinkScript(script, fail, time.Now().Add(c.ShrinkTime), c.replay, func() { p.Shrinking++; progress() })
		o.Failure, o.Script = fail, script
		o.Trace = saveFailureTo(c.TracePath, script, model.Config{Decisions: c.Decisions})
		o.Report = fmt.Sprintf("check %d (seed %d) failed after %d passing checks; shrunk to %d actions in %d replays:\n%s\n%s",
			i, seed, o.Checks, len(script), p.Shrinking, fail.Msg, script)
		break
	}
	return o, nil
}

// property is one check of the campaign: random actions (Steps on average)
// with the target's checks after each, then recovery, quiesce and
// convergence. It is the model or lockstep property with the number of
// actions taken from the campaign instead of rapid's global steps flag.
func (c Campaign) property(rt *rapid.T) (Script, error) {
	cfg := model.Config{Decisions: c.Decisions}
	if c.Target == TargetModel {
		m := newModelRun(cfg)
		src := withTimeTravel(m.st, c.TimeTravel)
		for range drawLength(rt, c.Steps) {
			if a, ok := DrawAction(rt, src, c.Faults); ok {
				if err := m.step(a); err != nil {
					return m.script, err
				}
			}
		}
		return m.script, m.finish()
	}
	s, err := c.NewStepped(c.Decisions)
	if err != nil {
		return nil, fmt.Errorf("start the stepped cluster: %w", err)
	}
	defer s.Close()
	p := NewPair(cfg, s)
	src := withTimeTravel(p.Model, c.TimeTravel)
	for range drawLength(rt, c.Steps) {
		if a, ok := DrawAction(rt, src, c.Faults); ok {
			if _, err := p.Step(a); err != nil {
				return p.Script, err
			}
		}
	}
	return p.Script, p.Finish()
}

// replay runs a script with the target's checks and returns the actions
// applied up to the failure, if any.
func (c Campaign) replay(script Script) (Script, *Failure) {
	cfg := model.Config{Decisions: c.Decisions}
	if c.Target == TargetModel {
		m := newModelRun(cfg)
		err := func() error {
			for _, a := range script {
				if err := m.step(a); err != nil {
					return err
				}
			}
			return m.finish()
		}()
		return m.script, asFailureOrNil(err, len(m.script))
	}
	s, err := c.NewStepped(c.Decisions)
	if err != nil {
		return nil, nil // cannot tell: not a counterexample
	}
	defer s.Close()
	p := NewPair(cfg, s)
	err = func() error {
		for _, a := range script {
			if _, err := p.Step(a); err != nil {
				return err
			}
		}
		return p.Finish()
	}()
	return p.Script, asFailureOrNil(err, len(p.Script))
}

func asFailure(err error, step int) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		if f.Step == 0 {
			f.Step = step
		}
		return f
	}
	return &Failure{Step: step, Msg: err.Error()}
}

func asFailureOrNil(err error, step int) *Failure {
	if err == nil {
		return nil
	}
	return asFailure(err, step)
}

func digest(s Script) uint64 {
	h := fnv.New64a()
	for _, a := range s {
		h.Write([]byte(a.String() + "\n"))
	}
	return h.Sum64()
}
