package properties

import (
	"fmt"
	"math"
	"strings"
	"time"

	"pgregory.net/rapid"
)

// This file drives rapid one check at a time without its global flags.
//
// rapid v1.3.0 reads its settings (rapid.checks, rapid.steps, rapid.seed,
// rapid.shrinktime) from package-level flag variables, and rapid.Check and
// rapid.MakeCheck offer no way to pass them, so two campaigns that set them
// interfere. Generator.Example(seed) is the one entry point that takes a
// seed as an argument and reads no setting: a rapid.Custom generator whose
// function runs the property draws exactly the bits rapid.Check would draw
// for that seed (groups draw no bits), so check i of a campaign is
// Example(CheckSeed(seed, i)), and rapid.Check with -rapid.seed set to it
// and -rapid.checks=1 replays the same check under `go test`.

// CheckSeed is the seed of check i (0-based) of a campaign seeded with
// seed: a SplitMix64 step of seed+i, so neighbouring checks get unrelated
// seeds and any shard can compute any check's seed on its own.
func CheckSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// checkRun is one property run on one seed.
type checkRun struct {
	script  Script   // the actions applied (the property's own count)
	failure *Failure // nil when it passed
	invalid bool     // the property gave up (rapid's Skip): not a check
	dur     time.Duration
}

// runSeed runs prop once on the bits of seed, with no rapid flag involved
// but flags.debug (read only). A rapid Fatal or a panic in prop is a
// failure; a Skip marks the run invalid, as rapid.Check counts it.
func runSeed[R any](seed uint64, prop func(*rapid.T) (R, error)) (r R, invalid bool, err error) {
	type out struct {
		r       R
		err     error
		invalid bool
	}
	gen := rapid.Custom(func(rt *rapid.T) (o out) {
		defer func() {
			p := recover()
			// rapid asserts that a Custom generator drew something; a
			// draw after the property leaves the property's bits as
			// rapid.Check would draw them.
			_ = rapid.Bool().Draw(rt, "end")
			if p == nil {
				if o.err == nil && rt.Failed() {
					o.err = &Failure{Msg: "the property failed (rapid Error without a message)"}
				}
				return
			}
			if fmt.Sprintf("%T", p) == "rapid.invalidData" {
				o.invalid = true
				return
			}
			o.err = &Failure{Msg: fmt.Sprint(p)}
		}()
		o.r, o.err = prop(rt)
		return o
	})
	o := gen.Example(int(seed))
	return o.r, o.invalid, o.err
}

// drawLength is the campaign's own Repeat: the number of random actions
// of one run, geometric with mean steps (as rapid's Repeat draws it) and
// capped at 10×steps. The uniform variate comes from 24 unbiased bits
// (rapid.Bool), because rapid's integer generators lean towards small
// values; shrinking the bits towards 0 shortens the run.
func drawLength(rt *rapid.T, steps int) int {
	var u uint64
	for range 24 {
		u <<= 1
		if rapid.Bool().Draw(rt, "length-bit") {
			u |= 1
		}
	}
	f := float64(u) / (1 << 24)
	n := math.Log1p(-f) / math.Log1p(-1/float64(steps+1))
	return min(int(n), 10*max(steps, 1))
}

// failureClass is what a shrunk script must keep failing with: the first
// line of the message up to its colon, without digits (step numbers).
func failureClass(msg string) string {
	line, _, _ := strings.Cut(msg, "\n")
	if i := strings.Index(line, ":"); i >= 0 {
		line = line[:i]
	}
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, line)
}

// shrinkScript deletes runs of actions from a failing script (delta
// debugging: halves, then quarters, down to single actions) and keeps a
// deletion when replay still fails in the same class. replay returns the
// actions it applied up to the failure. rapid's own shrinker is reachable
// only through rapid.Check and its global flags, so a campaign shrinks at
// the level of scripts, which replay deterministically. It stops at
// deadline; runs counts the replays.
func shrinkScript(script Script, fail *Failure, deadline time.Time, replay func(Script) (Script, *Failure), onRun func()) (Script, *Failure) {
	class := failureClass(fail.Msg)
	for n := len(script) / 2; n >= 1; {
		removed := false
		for start := 0; start < len(script) && time.Now().Before(deadline); {
			end := min(start+n, len(script))
			cand := append(append(Script{}, script[:start]...), script[end:]...)
			applied, f := replay(cand)
			if onRun != nil {
				onRun()
			}
			if f != nil && len(applied) < len(script) && failureClass(f.Msg) == class && !notEnabled(f) {
				script, fail, removed = applied, f, true
				continue // the same start now holds the next actions
			}
			start += n
		}
		if !time.Now().Before(deadline) {
			break
		}
		if !removed {
			n /= 2
		} else {
			n = min(n, len(script)/2)
		}
	}
	return script, fail
}

// notEnabled tells a replay that broke because a deletion left an action
// that cannot happen: not a counterexample.
func notEnabled(f *Failure) bool {
	return strings.Contains(f.Msg, "action not enabled")
}
