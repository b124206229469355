package properties

import (
	"fmt"
	"slices"
	"strings"

	"github.com/converge-dev/converge/impl/operator"
)

// The oracles of CheckOperator that Operator.Skip can turn off, by name.
const (
	oracleStatusHonesty      = "status-honesty"
	oracleEventsAlone        = "events-alone"
	oracleConfigReachesPods  = "config-reaches-pods"
	oracleObservedGeneration = "observed-generation"
	oracleLostUpdates        = "lost-updates"
	oracleDestructive        = "destructive-history"
	oracleStatusCounts       = "status-counts"
)

// SkippableOracles are the names Operator.Skip accepts.
var SkippableOracles = []string{oracleStatusHonesty, oracleEventsAlone, oracleConfigReachesPods, oracleObservedGeneration, oracleLostUpdates, oracleDestructive, oracleStatusCounts}

// hostOracles are the skippable oracles the operator's host runs, by the
// name its failures carry.
var hostOracles = map[string]string{operator.OracleObservedGeneration: oracleObservedGeneration}

// hostFailures are the host's failures of the oracles not skipped.
func (r *operatorRun) hostFailures() []operator.Failure {
	var out []operator.Failure
	for _, f := range r.host.Failures() {
		if name, ok := hostOracles[f.Oracle]; !ok || !r.skipped(name) {
			out = append(out, f)
		}
	}
	return out
}

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
