#!/usr/bin/env bash
# Every .PHONY target of the Makefile parses and resolves its prerequisites
# (make -n: nothing is built or run). A comment edit once turned a line
# into "bench: the vCPU filter's ...", and make bench asked for a target
# named "the"; make check itself never names bench, so nothing else noticed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

targets=$(sed -n 's/^\.PHONY: *//p' "$top/Makefile" | tr ' ' '\n' | grep -vx -e '' -e FORCE | sort -u)
[ -n "$targets" ] || { echo "FAIL: make targets: no .PHONY line in $top/Makefile"; exit 1; }
for t in $targets; do
	if make -n -s -C "$top" "$t" >"$log" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: make targets: make -n $t: $(grep -m1 -E 'make(\[[0-9]+\])?: \*\*\*' "$log" || tail -n 1 "$log")"
	fi
done
echo "make targets: $pass of $((pass + fail)) .PHONY targets dry-run cleanly"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
