#!/usr/bin/env bash
# tests/nested/run-nested.sh refuses impossible options before it prepares
# or boots anything: exit 125 (its setup status) and a line naming what was
# wrong. No VM is started here. (Its --idle watchdog itself needs a VM: the
# linux area's nested runs use it; docs/linux-tests.md.)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
rn=$top/tests/nested/run-nested.sh
pass=0 fail=0

check() {	# check NAME NEEDLE ARGS...: exit 125 within 10 s, NEEDLE on stderr
	local name=$1 needle=$2 got err
	shift 2
	err=$(timeout 10 "$rn" "$@" 2>&1 >/dev/null)
	got=$?
	if [ "$got" -eq 125 ] && grep -qF -- "$needle" <<<"$err"; then
		pass=$((pass + 1)); echo "PASS: run-nested: $name"
	else
		fail=$((fail + 1)); echo "FAIL: run-nested: $name (exit $got, wanted 125 and '$needle'; said: $err)"
	fi
}

check "--idle not a number" "bad --idle 'soon'" --idle soon -- true
check "--idle negative" "bad --idle '-5'" --idle -5 -- true
check "--timeout zero" "bad --timeout '0'" --timeout 0 -- true
check "--cpus 1 under QEMU" "bad --cpus '1'" --cpus 1 -- true
check "--mem too small" "bad --mem '128'" --mem 128 -- true
check "no COMMAND" "no COMMAND given" --idle 30
check "unknown option" "unknown option '--idel'" --idel 30 -- true
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
