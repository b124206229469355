// Package probetest runs CheckOperator on the foreign operators: on a fixed
// seed, and expecting a failure for a seeded bug.
package probetest

import (
	"flag"
	"strconv"
	"strings"
	"testing"
	"time"

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

// ExpectFailure runs the operator's check with a recording TB and fails
// t if the check passes.
func ExpectFailure(t *testing.T, op properties.Operator) {
	t.Helper()
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": strconv.Itoa(*checks), "rapid.seed": strconv.FormatUint(*seed, 10),
		"rapid.nofailfile": "true", "rapid.shrinktime": shrink.String()})()
	h := properties.Hunt(t, op)
	if !h.Failed {
		t.Fatalf("the seeded bug passed %d checks (%v)", h.Checks, h.Total)
	}
	text := h.Report.Text()
	if len(text) > 12000 {
		text = text[:12000] + "\n...[truncated]"
	}
	t.Logf("caught after %d checks, %v to find, %v in all, %d drawn actions shrunk\n%s", h.Checks, h.Find.Round(time.Millisecond),
		h.Total.Round(time.Millisecond), h.Drawn, strings.TrimSpace(text))
}
