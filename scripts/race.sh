#!/usr/bin/env bash
# The race detector over impl/..., properties/... and cmd/... (make race).
# Packages whose tests link rapid run at RAPID_CHECKS checks, so the run
# stays within CI's budget; the others take no rapid flags (a test binary
# refuses flags it does not define).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
RAPID_CHECKS=${RAPID_CHECKS:-20}
# ./properties alone takes 15-18 min under -race on 2 idle cores, and 20 on
# a loaded machine: 35m is a bound for a hung test, not a speed check.
TIMEOUT=${RACE_TIMEOUT:-35m}
# TestMutantsAreCaughtAndShrunk asserts how far rapid shrinks a
# counterexample within its time limit; under the race detector's slowdown
# it shrinks less. It runs in the plain test run; here it would only test
# the machine's speed.
SKIP=${RACE_SKIP:-TestMutantsAreCaughtAndShrunk}
rapid=()
plain=()
for p in $($GO list ./impl/... ./properties/... ./cmd/...); do
  if $GO list -test -deps "$p" | grep -qx pgregory.net/rapid; then
    rapid+=("$p")
  else
    plain+=("$p")
  fi
done
# properties/mutants runs its false-alarm controls at a count of its own
# (200 each in the plain run, ten times slower under -race); here they get
# RAPID_CHECKS too.
mutants=github.com/converge-dev/converge/properties/mutants
others=()
for p in "${rapid[@]}"; do
  [ "$p" = "$mutants" ] || others+=("$p")
done
status=0
$GO test -race -count=1 -timeout "$TIMEOUT" "${plain[@]}" || status=$?
$GO test -race -count=1 -timeout "$TIMEOUT" -skip "$SKIP" "${others[@]}" -rapid.checks="$RAPID_CHECKS" || status=$?
$GO test -race -count=1 -timeout "$TIMEOUT" -skip "$SKIP" "$mutants" -rapid.checks="$RAPID_CHECKS" -mutants.controlchecks="$RAPID_CHECKS" || status=$?
exit $status
