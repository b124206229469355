#!/usr/bin/env bash
# bench-compare.sh BASE [ROUNDS]: the README's performance goals P2, P3, P5
# and P6, measured at git revision BASE and at the working tree, in
# alternating rounds so that the machine's drift hits both sides. Run it on
# an idle machine: every figure is a ratio to raw etcd measured in the same
# run, but a loaded machine moves the two unevenly.
#
#   P2  stepped driver per action vs a raw etcd CAS (raw/stepped, >= 0.5)
#   P3  lockstep interleavings per minute, 300 checks of 50 steps (>= 1000)
#   P5  1000 pods on 100 nodes to converged vs the gRPC put floor (<= 1.5x)
#   P6  pod create over HTTP vs a raw gRPC put (raw/HTTP, >= 0.5) and a
#       LIST of 10,000 pods vs a raw range (<= 3x)
set -euo pipefail

base=${1:?usage: scripts/bench-compare.sh BASE-REV [ROUNDS]}
rounds=${2:-2}
GO=${GO:-go}
here=$(git rev-parse --show-toplevel)
wt=$(mktemp -d /tmp/bench-base.XXXXXX)
git -C "$here" worktree add -q --detach "$wt" "$base"
trap 'git -C "$here" worktree remove --force "$wt"' EXIT

# ns/op of benchmark $2 in the output file $1.
nsop() { awk -v b="$2" '$1 ~ "^"b"(-[0-9]+)?$" {print $3; exit}' "$1"; }
# The value of metric $3 of benchmark $2 in $1.
metric() { awk -v b="$2" -v m="$3" '$1 ~ "^"b"(-[0-9]+)?$" {for (i = 4; i < NF; i++) if ($(i+1) == m) {print $i; exit}}' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

measure() {
	local dir=$1 label=$2 out
	out=$(mktemp)
	(cd "$dir" &&
		$GO test ./impl/cluster -run '^$' -bench 'BenchmarkSteppedStep$|BenchmarkRawEtcdCAS$' -benchtime 2000x &&
		$GO test ./impl/cluster -run '^$' -bench 'BenchmarkRunning1000Pods$' -benchtime 3x &&
		$GO test ./impl/apiserver -run '^$' -bench 'BenchmarkHTTPPodCreate$|BenchmarkRawEtcdPutGRPC$' -benchtime 3000x &&
		$GO test ./impl/apiserver -run '^$' -bench 'BenchmarkHTTPList10000Pods$|BenchmarkRawEtcdRange10000$' -benchtime 20x) >"$out" 2>&1 ||
		{ cat "$out"; exit 1; }
	# P3 times the test binary alone, not its build.
	local start end bin
	bin=$(mktemp /tmp/properties.test.XXXXXX)
	(cd "$dir" && $GO test -c -o "$bin" ./properties)
	start=$(date +%s.%N)
	(cd "$dir/properties" && "$bin" -test.run 'TestLockstepWithFaults$' -rapid.steps=50 -rapid.checks=300 >/dev/null)
	end=$(date +%s.%N)
	rm -f "$bin"
	printf '%-6s P2 raw/stepped %s (%s vs %s ns)  P3 %s interleavings/min  P5 %sx floor  P6 raw/HTTP create %s (%s vs %s ns), LIST 10k %sx range\n' \
		"$label" \
		"$(ratio "$(nsop "$out" BenchmarkRawEtcdCAS)" "$(nsop "$out" BenchmarkSteppedStep)")" \
		"$(nsop "$out" BenchmarkRawEtcdCAS)" "$(nsop "$out" BenchmarkSteppedStep)" \
		"$(awk -v s="$start" -v e="$end" 'BEGIN {printf "%.0f", 300 / ((e - s) / 60)}')" \
		"$(metric "$out" BenchmarkRunning1000Pods x-floor)" \
		"$(ratio "$(nsop "$out" BenchmarkRawEtcdPutGRPC)" "$(nsop "$out" BenchmarkHTTPPodCreate)")" \
		"$(nsop "$out" BenchmarkRawEtcdPutGRPC)" "$(nsop "$out" BenchmarkHTTPPodCreate)" \
		"$(ratio "$(nsop "$out" BenchmarkHTTPList10000Pods)" "$(nsop "$out" BenchmarkRawEtcdRange10000)")"
	rm -f "$out"
}

echo "base $(git -C "$wt" rev-parse --short HEAD), head $(git -C "$here" rev-parse --short HEAD) (+ working tree), $rounds rounds"
for ((i = 1; i <= rounds; i++)); do
	measure "$wt" base
	measure "$here" head
done
