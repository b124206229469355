package properties

import (
	"fmt"
	"slices"
	"strings"
)

// The oracles of CheckOperator that Operator.Skip can turn off, by name.
const (
	oracleStatusHonesty     = "status-honesty"
	oracleEventsAlone       = "events-alone"
	oracleConfigReachesPods = "config-reaches-pods"
	oracleLostUpdates       = "lost-updates"
)

// SkippableOracles are the names Operator.Skip accepts.
var SkippableOracles = []string{oracleStatusHonesty, oracleEventsAlone, oracleConfigReachesPods, oracleLostUpdates}

// checkSkip refuses a Skip that names no oracle or gives no reason.
func checkSkip(skip map[string]string) error {
	for name, why := range skip {
		if !slices.Contains(SkippableOracles, name) {
			return fmt.Errorf("properties: Operator.Skip names %q, not one of %s", name, strings.Join(SkippableOracles, ", "))
		}
		if strings.TrimSpace(why) == "" {
			return fmt.Errorf("properties: Operator.Skip turns %q off without a reason", name)
		}
	}
	return nil
}

// skipped says whether the user turned the oracle off.
func (r *operatorRun) skipped(oracle string) bool {
	_, ok := r.op.Skip[oracle]
	return ok
}
