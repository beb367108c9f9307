#!/usr/bin/env bash
# tests/integration/run.sh's handling of nested VMs that end without a
# verdict, with a stand-in for run-nested.sh (MINIVMM_RUN_NESTED) that
# plays each VM from a script: a VM that finished steps is followed by one
# told to resume after the last (MINIVMM_RESUME_AFTER), its lines and
# counts kept and added; three VMs in a row without a finished step, or six
# in all, fail the area.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The stand-in: VM number N (counted in $work/vms) prints $work/vm.N and
# exits 1 (no verdict) unless the file holds one; it records the resume
# point it was given.
cat >"$work/fake-nested" <<'FAKE'
#!/usr/bin/env bash
n=$(($(cat "$STAND_IN/vms" 2>/dev/null || echo 0) + 1))
echo "$n" >"$STAND_IN/vms"
resume=none
for a in "$@"; do [[ $a == MINIVMM_RESUME_AFTER=* ]] && resume=${a#*=}; done
echo "$resume" >>"$STAND_IN/resumes"
cat "$STAND_IN/vm.$n" 2>/dev/null
grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$STAND_IN/vm.$n" 2>/dev/null
FAKE
chmod +x "$work/fake-nested"

# play NAME: run run.sh's core area against the VMs in $work/vm.*.
play() {
	rm -f "$work/vms" "$work/resumes"
	STAND_IN=$work MINIVMM_RUN_NESTED=$work/fake-nested MINIVMM_FORCE_NESTED=1 MINIVMM_AREAS=core \
		"$top/tests/integration/run.sh" >"$work/out" 2>&1
	rc=$?
	resumes=$(paste -sd' ' "$work/resumes")
}
check() {	# check NAME CONDITION-TEXT COMMAND...
	local name=$1 what=$2
	shift 2
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: integration retry: $name: $what"
		sed 's/^/    /' "$work/out"
	fi
}
last_line() { [ "$(tail -n 1 "$work/out")" = "$1" ]; }
has_line() { grep -qxF -- "$1" "$work/out"; }
lacks_line() { ! grep -qxF -- "$1" "$work/out"; }

# 1. Two steps done, the third cut off; the next VM resumes after step 2.
rm -f "$work"/vm.*
printf '%s\n' '# core' 'PASS: one' 'STEP-DONE: 1 (1 passed, 0 failed)' 'FAIL: two (x)' \
	'STEP-DONE: 2 (1 passed, 1 failed)' 'PASS: three, cut off' >"$work/vm.1"
printf '%s\n' '# core' 'PASS: three' 'STEP-DONE: 3 (1 passed, 0 failed)' '1 passed, 0 failed' >"$work/vm.2"
play
check "resume" "second VM told to resume after step 2 (got: $resumes)" [ "$resumes" = "none 2" ]
check "resume" "totals of both VMs (2 passed, 1 failed) and exit 1" \
	eval 'last_line "2 passed, 1 failed" && [ "$rc" -eq 1 ]'
check "resume" "kept lines shown, the cut-off step's not" \
	eval 'has_line "PASS: one" && has_line "FAIL: two (x)" && has_line "PASS: three" && lacks_line "PASS: three, cut off"'
check "resume" "the retry is said" grep -qF "a fresh VM resumes after step 2" "$work/out"
check "resume" "no STEP-DONE line shown" eval '! grep -q "^STEP-DONE" "$work/out"'

# 2. No step finished in three VMs: the area fails after the third.
rm -f "$work"/vm.*
for n in 1 2 3 4; do printf '%s\n' '# core' 'PASS: half a step' >"$work/vm.$n"; done
play
check "no progress" "three VMs, each from the start (got: $resumes)" [ "$resumes" = "none none none" ]
check "no progress" "the area fails, exit 1" \
	eval 'has_line "FAIL: area core (three nested VMs in a row ended without a verdict or a finished step)" && last_line "0 passed, 1 failed" && [ "$rc" -eq 1 ]'

# 3. A step a VM, never a verdict: six VMs, then the area fails with what they kept.
rm -f "$work"/vm.*
for n in 1 2 3 4 5 6 7; do
	printf '%s\n' '# core' "PASS: step $n" "STEP-DONE: $n (1 passed, 0 failed)" >"$work/vm.$n"
done
play
check "six VMs" "six VMs, each resuming (got: $resumes)" [ "$resumes" = "none 1 2 3 4 5" ]
check "six VMs" "six steps kept, the area failed" \
	eval '[ "$(grep -c "^PASS: step 6$" "$work/out")" -eq 1 ] && lacks_line "PASS: step 7" && has_line "FAIL: area core (six nested VMs ended without a verdict)" && last_line "6 passed, 1 failed"'

# 4. A plain area that ends with its verdict in the first VM: nothing kept, no retry.
rm -f "$work"/vm.*
printf '%s\n' '# core' 'PASS: all' '1 passed, 0 failed' >"$work/vm.1"
play
check "first VM" "one VM, exit 0, its verdict" \
	eval '[ "$resumes" = none ] && [ "$rc" -eq 0 ] && last_line "1 passed, 0 failed" && ! grep -q RETRY "$work/out"'

echo "integration retry: $pass checks passed, $fail failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
