#!/usr/bin/env bash
# fuzz.sh runs converge's fuzz targets (package ./fuzz) one after another
# and prints a summary table: execs, execs/s and new coverage per target.
#
#   scripts/fuzz.sh [TARGET...]        default: every Fuzz* target in ./fuzz
#
# Environment:
#   FUZZTIME      time per target (go test -fuzztime), default 15s
#   FUZZMINTIME   time to minimize each new input or crasher
#                 (-fuzzminimizetime), default 5s; Go's own default (60s)
#                 stalls short campaigns on the slow targets
#   FUZZPARALLEL  fuzz workers per target (-parallel), default GOMAXPROCS
#   GO            go command, default go
#
# Exit status: 0 if every target ran without a crasher, 1 otherwise. A
# crasher is left in fuzz/testdata/fuzz/<Target>/ (Go writes it there), so a
# plain `go test ./fuzz` fails on it until it is fixed.
set -u -o pipefail

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-15s}
FUZZMINTIME=${FUZZMINTIME:-5s}
cd "$(dirname "$0")/.."

if [ $# -eq 0 ]; then
	mapfile -t targets < <($GO test ./fuzz -list '^Fuzz' | grep '^Fuzz')
	if [ ${#targets[@]} -eq 0 ]; then
		echo "fuzz.sh: no Fuzz targets found in ./fuzz" >&2
		exit 1
	fi
else
	targets=("$@")
fi

parallel=()
if [ -n "${FUZZPARALLEL:-}" ]; then
	parallel=(-parallel "$FUZZPARALLEL")
fi

logdir=$(mktemp -d "${TMPDIR:-/tmp}/converge-fuzz.XXXXXX")
trap 'rm -rf "$logdir"' EXIT

# seconds converts a Go duration as go test prints it (1h2m3s, 4m0s, 21s).
seconds() {
	awk -v d="$1" 'BEGIN {
		s = 0
		while (match(d, /^[0-9.]+[hms]/)) {
			n = substr(d, 1, RLENGTH - 1) + 0; u = substr(d, RLENGTH, 1)
			s += (u == "h") ? n * 3600 : (u == "m") ? n * 60 : n
			d = substr(d, RLENGTH + 1)
		}
		print s
	}'
}

# stop_race tells whether a failed run is Go 1.26's fuzz coordinator
# reporting its own -fuzztime deadline as a failure (go.dev/issue/75804,
# fixed in Go 1.27): no input was written, the only failure line is the bare
# "context deadline exceeded", and replaying the target's committed corpus
# passes. Anything else is a real failure.
stop_race() {
	local t=$1 log=$2
	grep -q "^--- FAIL: $t " "$log" || return 1
	local reasons
	reasons=$(sed -n "/^--- FAIL: $t /,\$p" "$log" | sed -n '2,$p' |
		grep -vE '^(FAIL|exit status [0-9]+|FAIL[[:space:]].*)$' | sed 's/^[[:space:]]*//')
	[ "$reasons" = "context deadline exceeded" ] || return 1
	echo "=== $t: bare 'context deadline exceeded' at the fuzztime boundary; replaying its corpus"
	$GO test ./fuzz -count=1 -run "^$t\$" 2>&1 | tail -n 3
}

status=0
rows=()
for t in "${targets[@]}"; do
	echo "=== $t (fuzztime $FUZZTIME)"
	log="$logdir/$t.log"
	$GO test ./fuzz -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" \
		-fuzzminimizetime "$FUZZMINTIME" "${parallel[@]}" 2>&1 | tee "$log"
	rc=$?
	# The last progress line: "fuzz: elapsed: 21s, execs: 54363 (1155/sec),
	# new interesting: 30 (total: 30)".
	last=$(grep -E '^fuzz: elapsed: .*, execs: [0-9]+' "$log" | tail -n 1)
	elapsed=$(sed -nE 's/^fuzz: elapsed: ([0-9hms.]+),.*/\1/p' <<<"$last")
	execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
	newcov=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
	total=$(sed -nE 's/.*\(total: ([0-9]+)\).*/\1/p' <<<"$last")
	secs=$(seconds "${elapsed:-0s}")
	rate=$(awk -v e="${execs:-0}" -v s="$secs" 'BEGIN { printf "%.1f", (s > 0) ? e / s : 0 }')
	result=ok
	if [ $rc -ne 0 ]; then
		crasher=$(sed -nE 's/.*Failing input written to (.*)/\1/p' "$log" | tail -n 1)
		if [ -z "$crasher" ] && stop_race "$t" "$log"; then
			result="ok (go.dev/issue/75804 stop race; corpus replay passed)"
		else
			status=1
			result="FAIL${crasher:+ (crasher: fuzz/$crasher)}"
		fi
	fi
	rows+=("$(printf '%-16s %9s %10s %10s %8s %8s  %s' "$t" "${elapsed:--}" "${execs:--}" "$rate" "${newcov:--}" "${total:--}" "$result")")
done

echo
echo "fuzz summary (fuzztime $FUZZTIME, minimize $FUZZMINTIME)"
printf '%-16s %9s %10s %10s %8s %8s  %s\n' target elapsed execs "execs/s" new corpus result
for r in "${rows[@]}"; do
	echo "$r"
done
exit $status
