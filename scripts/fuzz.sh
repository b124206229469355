#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the module one after another and prints
# a summary table: execs, execs/s and new coverage per target.
#
#   scripts/fuzz.sh [TARGET...]   default: every Fuzz* target in the module
#   scripts/fuzz.sh --list        print the targets ("PKG TARGET" lines), run nothing
#
# A TARGET is a function name (FuzzLockstep) or PKG:NAME (./fuzz:FuzzLockstep).
#
# Targets are discovered, not listed by hand: the packages whose _test.go
# files declare a func Fuzz..., then `go test -list` on them, which names
# exactly the targets go test would run. A test (fuzz/targets_test.go)
# fails if a fuzz target exists in the module that --list does not print.
#
# Environment:
#   FUZZTIME      time per target (go test -fuzztime), default 15s
#   FUZZMINTIME   time to minimize each new input or crasher
#                 (-fuzzminimizetime), default 5s; Go's own default (60s)
#                 stalls short campaigns on the slow targets
#   FUZZPARALLEL  fuzz workers per target (-parallel), default GOMAXPROCS
#   GO            go command, default go
#
# The corpus Go grows lives in $(go env GOCACHE)/fuzz; keep that directory
# between CI runs (examples/ci caches it) and each run starts where the
# last one stopped.
#
# Exit status: 0 if every target ran without a crasher, 1 otherwise, 2 if
# discovery failed. A crasher is left in PKG/testdata/fuzz/<Target>/ (Go
# writes it there), so a plain `go test PKG` fails on it until it is fixed.
set -u -o pipefail

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-15s}
FUZZMINTIME=${FUZZMINTIME:-5s}
cd "$(dirname "$0")/.."

# discover prints "PKG TARGET" for every fuzz target of the module.
discover() {
	local pkgs
	mapfile -t pkgs < <(grep -rlE --include='*_test.go' --exclude-dir=testdata --exclude-dir=.git '^func Fuzz' . |
		xargs -r -n1 dirname | sort -u)
	[ ${#pkgs[@]} -gt 0 ] || return 0
	# go test -list prints the matching names, then "ok  <import path> ..."
	# per package, in the order given.
	local out
	out=$($GO test -count=1 -run '^$' -list '^Fuzz' "${pkgs[@]}") || { echo "$out" >&2; return 1; }
	awk -v mod="$($GO list -m)" '
		/^Fuzz/ { names[n++] = $1; next }
		/^ok[ \t]/ {
			p = $2; sub("^" mod, ".", p)
			for (i = 0; i < n; i++) print p, names[i]
			n = 0
		}' <<<"$out"
}

if ! all=$(discover); then
	echo "fuzz.sh: discovering the fuzz targets failed" >&2
	exit 2
fi
if [ -z "$all" ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 2
fi
if [ "${1:-}" = "--list" ]; then
	echo "$all"
	exit 0
fi

pkgs=()
targets=()
if [ $# -eq 0 ]; then
	while read -r p t; do pkgs+=("$p"); targets+=("$t"); done <<<"$all"
else
	for want in "$@"; do
		wp=${want%%:*} wt=${want##*:}
		[ "$wp" = "$want" ] && wp=
		m=$(awk -v p="$wp" -v t="$wt" '$2 == t && (p == "" || $1 == p)' <<<"$all")
		if [ "$(grep -c . <<<"$m")" -ne 1 ]; then
			echo "fuzz.sh: $want names $(grep -c . <<<"$m") targets; one of:" >&2
			sed 's/ /:/' <<<"$all" >&2
			exit 2
		fi
		read -r p t <<<"$m"
		pkgs+=("$p")
		targets+=("$t")
	done
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
	local p=$1 t=$2 log=$3
	grep -q "^--- FAIL: $t " "$log" || return 1
	local reasons
	reasons=$(sed -n "/^--- FAIL: $t /,\$p" "$log" | sed -n '2,$p' |
		grep -vE '^(FAIL|exit status [0-9]+|FAIL[[:space:]].*)$' | sed 's/^[[:space:]]*//')
	[ "$reasons" = "context deadline exceeded" ] || return 1
	echo "=== $t: bare 'context deadline exceeded' at the fuzztime boundary; replaying its corpus"
	$GO test "$p" -count=1 -run "^$t\$" 2>&1 | tail -n 3
}

status=0
rows=()
start=$SECONDS
for i in "${!targets[@]}"; do
	p=${pkgs[$i]} t=${targets[$i]}
	echo "=== $p $t (fuzztime $FUZZTIME)"
	log="$logdir/$i.log"
	$GO test "$p" -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" \
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
		if [ -z "$crasher" ] && stop_race "$p" "$t" "$log"; then
			result="ok (go.dev/issue/75804 stop race; corpus replay passed)"
		else
			status=1
			result="FAIL${crasher:+ (crasher: ${p#./}/$crasher)}"
		fi
	fi
	rows+=("$(printf '%-36s %-26s %9s %10s %10s %8s %8s  %s' "$p" "$t" "${elapsed:--}" "${execs:--}" "$rate" "${newcov:--}" "${total:--}" "$result")")
done

echo
echo "fuzz summary: ${#targets[@]} targets, fuzztime $FUZZTIME each, minimize $FUZZMINTIME, $((SECONDS - start))s in all"
printf '%-36s %-26s %9s %10s %10s %8s %8s  %s\n' package target elapsed execs "execs/s" new corpus result
for r in "${rows[@]}"; do
	echo "$r"
done
exit $status
