#!/usr/bin/env bash
# Release converge: VERSION=vX.Y.Z scripts/release.sh (make release VERSION=vX.Y.Z).
#
# It refuses, with one line and exit 2, a VERSION not in vMAJOR.MINOR.PATCH
# form, a tag that exists, a dirty tree (untracked files too), a red
# `make test` (skipped when SKIP_TEST=1: this script's own test sets it),
# and a release with nothing to say. Then it writes the version and the
# date (RELEASE_DATE, default today in UTC) into CHANGELOG.md: the
# Unreleased section's entries move into the version's section (one
# written ahead, undated, gets them merged in; otherwise Unreleased
# becomes it) and an empty Unreleased heads the file again. It commits
# CHANGELOG.md and tags the commit (annotated). Nothing is pushed.
set -euo pipefail

die() { echo "release: $*" >&2; exit 2; }

version=${VERSION:-}
[[ -n $version ]] || die "usage: make release VERSION=vX.Y.Z"
[[ $version =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] ||
	die "version $version is not vMAJOR.MINOR.PATCH (v0.3.0)"
git rev-parse --git-dir >/dev/null 2>&1 || die "not in a git repository"
cd "$(git rev-parse --show-toplevel)"
[[ -f CHANGELOG.md ]] || die "no CHANGELOG.md at the repository's root"
if git rev-parse -q --verify "refs/tags/$version" >/dev/null; then
	die "$version is tagged already"
fi
[[ -z $(git status --porcelain) ]] || die "the tree is dirty (commit or stash first; git status)"
if grep -Eq "^## \[$version\] - " CHANGELOG.md; then
	die "CHANGELOG.md has a dated $version section already"
fi

if [[ ${SKIP_TEST:-} != 1 ]]; then
	echo "release: make test" >&2
	${MAKE:-make} test || die "make test failed; nothing released"
fi

date=${RELEASE_DATE:-$(date -u +%Y-%m-%d)}
[[ $date =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || die "RELEASE_DATE $date is not YYYY-MM-DD"

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# The changelog's sections: preamble, Unreleased, the version's own if
# written ahead, the rest. Entries are grouped by "### Kind" in Keep a
# Changelog's order; Unreleased's entries of a kind come first.
awk -v version="$version" -v date="$date" '
	/^## / {
		if ($0 ~ /^## \[Unreleased\]/) { section = "u"; next }
		if (index($0, "## [" version "]") == 1) { section = "v"; next }
		section = "r"
	}
	section == "" { pre = pre $0 "\n"; next }
	section == "r" { rest = rest $0 "\n"; next }
	/^### / {
		kind[section] = substr($0, 5)
		if (!(kind[section] in seen)) { seen[kind[section]] = 1; order[++kinds] = kind[section] }
		next
	}
	{
		if (kind[section] == "") { if ($0 != "") loose[section] = loose[section] $0 "\n"; next }
		body[section, kind[section]] = body[section, kind[section]] $0 "\n"
	}
	END {
		if (loose["u"] != "" || loose["v"] != "") { print "entries outside a ### heading" > "/dev/stderr"; exit 3 }
		n = split("Added Changed Deprecated Removed Fixed Security", std, " ")
		out = ""
		for (i = 1; i <= n; i++) out = out group(std[i])
		for (i = 1; i <= kinds; i++) out = out group(order[i])
		if (out == "") { print "nothing to release" > "/dev/stderr"; exit 4 }
		printf "%s## [Unreleased]\n\n## [%s] - %s\n%s", pre, version, date, out
		if (rest != "") printf "\n%s", rest
	}
	function group(k,    text) {
		if (k in done) return ""
		done[k] = 1
		text = trimmed(body["u", k]) trimmed(body["v", k])
		if (text == "") return ""
		return "\n### " k "\n\n" text
	}
	function trimmed(s) {
		sub(/^\n+/, "", s); sub(/\n+$/, "", s)
		return s == "" ? "" : s "\n"
	}
' CHANGELOG.md >"$tmp" || case $? in
	3) die "CHANGELOG.md has entries outside a ### heading in Unreleased or $version" ;;
	4) die "CHANGELOG.md's Unreleased section is empty: nothing to release" ;;
	*) die "could not rewrite CHANGELOG.md" ;;
esac
cat "$tmp" >CHANGELOG.md
git add CHANGELOG.md
git commit -q -m "Release $version"
git tag -a "$version" -m "converge $version"
echo "release: tagged $version ($(git rev-parse --short HEAD)); push with: git push origin HEAD $version"
