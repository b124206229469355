#!/usr/bin/env bash
# bench-report.sh: the figures of issue 49 as one markdown table, in about
# two minutes on 2 cores (each go test is bounded by -timeout):
#
#   lockstep checks a minute (BenchmarkLockstep, 300 checks of 50 actions,
#     seed 7, faults on) and its time over the model alone on the same checks
#   model steps/s and allocations a step (BenchmarkModelStep)
#   operator checks a minute and the ratio to the raw etcd floor
#     (BenchmarkCheckOperator, 200 checks)
#   pod create over HTTP against a raw etcd put over gRPC (raw/HTTP)
set -euo pipefail
GO=${GO:-go}
cd "$(git rev-parse --show-toplevel)"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run() { # package, benchmark regexp, benchtime
	$GO test -count=1 -timeout 5m "$1" -run '^$' -bench "$2" -benchtime "$3" -benchmem >>"$out" 2>&1 ||
		{ cat "$out"; exit 1; }
}
run ./properties 'BenchmarkLockstep$' 300x
run ./model 'BenchmarkModelStep$' 2s
run ./examples/operator 'BenchmarkCheckOperator$' 200x
run ./impl/apiserver 'BenchmarkHTTPPodCreate$|BenchmarkRawEtcdPutGRPC$' 3000x

# ns/op of benchmark $1.
nsop() { awk -v b="$1" '$1 ~ "^"b"(-[0-9]+)?$" {print $3; exit}' "$out"; }
# The value of metric $2 of benchmark $1.
metric() { awk -v b="$1" -v m="$2" '$1 ~ "^"b"(-[0-9]+)?$" {for (i = 4; i < NF; i++) if ($(i+1) == m) {print $i; exit}}' "$out"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
fmt0() { awk -v a="$1" 'BEGIN {printf "%.0f", a}'; }

echo "| figure | value | goal |"
echo "|---|---|---|"
echo "| lockstep checks a minute (BenchmarkLockstep, 300 x 50 actions, seed 7) | $(fmt0 "$(metric BenchmarkLockstep checks/min)") | >= 10,000 |"
echo "| lockstep time over the model alone on the same checks | $(metric BenchmarkLockstep x-model)x | |"
echo "| model steps/s (BenchmarkModelStep) | $(fmt0 "$(metric BenchmarkModelStep steps/s)") | >= 2,000,000 |"
echo "| model allocations a step | $(metric BenchmarkModelStep allocs/op) | <= 2 |"
echo "| operator checks a minute (BenchmarkCheckOperator, 200 x 50 actions) | $(fmt0 "$(metric BenchmarkCheckOperator interleavings/min)") | >= 1,000 |"
echo "| operator check time over the raw etcd floor of its writes | $(metric BenchmarkCheckOperator x-floor)x | |"
echo "| pod create over HTTP, raw etcd put / create (BenchmarkHTTPPodCreate, BenchmarkRawEtcdPutGRPC) | $(ratio "$(nsop BenchmarkRawEtcdPutGRPC)" "$(nsop BenchmarkHTTPPodCreate)") ($(nsop BenchmarkRawEtcdPutGRPC) vs $(nsop BenchmarkHTTPPodCreate) ns) | >= 0.5 |"
