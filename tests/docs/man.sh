#!/usr/bin/env bash
# minivmm.1 against `minivmm --help` and minivmm-compare.1 against its
# --help: every option either lists is in the other; every suite the payload
# defines is in minivmm.1's SUITES; both pages are clean under
# `mandoc -T lint` (or `groff -ww -z` where mandoc is missing).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
page=$top/minivmm.1
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS: man: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: man: $1"; }

# check_options PAGE COMMAND...: the page's OPTIONS entries (the line after
# each .TP, \- unescaped) against the option lines of `COMMAND --help`
# ("  -c, --cpus N ..." or "      --kvm PATH ...").
check_options() {
	local page=$1 help_opts man_opts
	shift
	help_opts=$("$@" --help | grep -E '^ {2,6}(-[a-zA-Z], )?--[a-z]' |
		grep -oE '^ *(-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '-[a-zA-Z]\b|--[a-z][a-z-]*' | sort -u)
	man_opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$page" | sed -n '/^\.TP/{n;p}' |
		sed 's/\\-/-/g' | grep -oE -- '(^|[ "])-[a-zA-Z]\b|--[a-z][a-z-]*' | tr -d ' "' | sort -u)
	if [ -z "$help_opts" ] || [ -z "$man_opts" ]; then
		bad "$(basename "$page"): no options found (help: ${help_opts:-none}; page: ${man_opts:-none})"
	elif [ "$help_opts" = "$man_opts" ]; then
		ok "$(basename "$page"): OPTIONS lists exactly the $(echo "$help_opts" | wc -l) options of --help"
	else
		bad "$(basename "$page"): OPTIONS and --help differ (< only in --help, > only in the page):"
		diff <(echo "$help_opts") <(echo "$man_opts") | grep '^[<>]'
	fi
}
check_options "$page" "$top/minivmm"
check_options "$top/minivmm-compare.1" "$top/scripts/minivmm-compare"

suites=$(grep -rhoE 'DEFINE_SUITE\([0-9]+, *[a-z_0-9]+, *"[^"]+"' "$top/guest" | sed -E 's/.*"([^"]+)"/\1/' | sort -u)
section=$(sed -n '/^\.SH SUITES/,/^\.SH /p' "$page" | sed -n '/^\.TP/{n;p}' | sed 's/\\-/-/g')
missing=""
for s in $suites; do grep -qE "(^|[ \"])$s([ \"]|$)" <<<"$section" || missing+=" $s"; done
if [ -z "$suites" ]; then
	bad "no DEFINE_SUITE found under guest/"
elif [ -z "$missing" ]; then
	ok "SUITES names all $(echo "$suites" | wc -l) suites the payload defines"
else
	bad "SUITES lacks:$missing"
fi

for s in NAME SYNOPSIS DESCRIPTION OPTIONS SUITES "EXIT STATUS" ENVIRONMENT FILES EXAMPLES; do
	grep -qx "\.SH \"*$s\"*" "$page" || bad "no $s section"
done

# --cpu-features' names: the page lists what minivmm knows (its error message says).
known=$("$top/minivmm" --cpu-features +? 2>&1 | sed -n 's/.*(known: \(.*\)).*/\1/p')
listed=$(sed -n '/^Known names:/,/^\./p' "$page" | sed '$d' | sed 's/^Known names: //' | tr '\n' ' ' |
	sed 's/\.* *$//')
if [ -n "$known" ] && [ "$known" = "$listed" ]; then
	ok "--cpu-features: the page names the $(wc -w <<<"$known") features minivmm knows"
else
	bad "--cpu-features: minivmm knows '$known', the page lists '$listed'"
fi

for p in "$page" "$top/minivmm-compare.1" "$top/minivmm-qemu.1"; do
	n=$(basename "$p")
	if command -v mandoc >/dev/null; then
		out=$(mandoc -T lint -W all "$p" 2>&1)
		if [ -z "$out" ]; then ok "$n: mandoc -T lint -W all is clean"; else bad "$n: mandoc -T lint:"; echo "$out"; fi
	elif command -v groff >/dev/null; then
		out=$(groff -ww -z -man "$p" 2>&1)
		if [ -z "$out" ]; then ok "$n: groff -ww -z is clean"; else bad "$n: groff -ww -z:"; echo "$out"; fi
	else
		bad "neither mandoc nor groff is installed (scripts/deps.sh check installs mandoc)"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
