// Package probetest runs CheckOperator on the foreign operators: on a fixed
// seed, and expecting a failure for a seeded bug.
package probetest

import (
	"flag"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/properties"
)

var (
	checks = flag.Int("probe.checks", 300, "checks for a seeded bug")
	seed   = flag.Uint64("probe.seed", 1, "seed of the checks")
	shrink = flag.Duration("probe.shrink", 20*time.Second, "shrink time for a seeded bug")
)

// Check is CheckOperator on -probe.seed (1), so that make test runs the
// same checks every time; other seeds explore further.
func Check(t *testing.T, op properties.Operator) {
	t.Helper()
	defer properties.SetRapidFlags(t, map[string]string{"rapid.seed": strconv.FormatUint(*seed, 10)})()
	properties.CheckOperator(t, op)
}

var drawn = regexp.MustCompile(`steps \((\d+) drawn actions`)

// ExpectFailure runs the operator's check with a recording TB and fails
// t if the check passes.
func ExpectFailure(t *testing.T, op properties.Operator) {
	t.Helper()
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": strconv.Itoa(*checks), "rapid.seed": strconv.FormatUint(*seed, 10),
		"rapid.nofailfile": "true", "rapid.shrinktime": shrink.String()})()
	rep := properties.NewReport(t.Name())
	prop := properties.OperatorProperty(t, op)
	n, found := 0, time.Duration(0)
	start := time.Now()
	rapid.Check(rep, func(rt *rapid.T) {
		if found == 0 {
			n++
		}
		defer func() {
			if rt.Failed() && found == 0 {
				found = time.Since(start)
			}
		}()
		prop(rt)
	})
	text := rep.Text()
	if !rep.Failed() {
		t.Fatalf("the seeded bug passed %d checks (%v)", n, time.Since(start))
	}
	d := "?"
	if m := drawn.FindAllStringSubmatch(text, -1); len(m) > 0 {
		d = m[len(m)-1][1]
	}
	if len(text) > 12000 {
		text = text[:12000] + "\n...[truncated]"
	}
	t.Logf("caught after %d checks, %v to find, %v in all, %s drawn actions shrunk\n%s", n, found.Round(time.Millisecond),
		time.Since(start).Round(time.Millisecond), d, strings.TrimSpace(text))
}
