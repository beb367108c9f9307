#!/usr/bin/env bash
# Run the integration cases on this host's /dev/kvm or, where there is
# none, each area in its own throw-away nested VM that has one
# (tests/nested/). A nested VM that dies or stops making progress is an
# infrastructure failure, not a verdict on minivmm (seen: the nested kernel
# itself reporting soft lockups on every CPU, idle ones included, under
# QEMU TCG): that area runs again in a fresh VM, and each retry is said.
# An area made of steps (cases.sh's step: the linux area's boots) resumes
# there after the last step the dead VM finished, whose lines and counts
# are kept; any other area starts over. Only a verdict line ends an area;
# three VMs in a row that end without one and without a finished step, or
# six VMs in all, fail it.
# MINIVMM_FORCE_NESTED=1 takes the nested path even where /dev/kvm exists
# (to check an SVM KVM from a kvm_pvm host; slow: minutes per area).
# An area that needs more than minivmm and guest.elf (a kernel, an initrd)
# says so in an executable cases.d/AREA.needs, run here on the host before
# the area; each line it prints is one of
#   file PATH        copy PATH into the nested VM (same absolute path)
#   env NAME=VALUE   set NAME for the area (on this host and in the VM)
#   timeout SECONDS  this area's nested-VM bound instead of the default
#   idle SECONDS     kill this area's nested VM once the area has printed
#                    nothing for SECONDS (run-nested.sh --idle): a wedged VM
#                    then costs that, not the rest of its timeout
#   nested BACKEND   run the area in the nested VM even where /dev/kvm is
#                    served by BACKEND (pvm: kvm_pvm emulates guest CPL0,
#                    far too slow for booting Linux)
#   nested-cpu MODEL the QEMU -cpu model of this area's nested VM
#                    (MINIVMM_NESTED_CPU; default max)
#   nested-kvm-params P  the nested VM's kvm_amd parameters, e.g. npt=0
#                    (MINIVMM_NESTED_KVM_PARAMS; default none)
# A .needs that fails fails its area (nothing else runs for it).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cases=$top/tests/integration/cases.sh
asan=$top/build/minivmm-asan
[ -x "$asan" ] || asan=""
areas=(core)
for f in "$top"/tests/integration/cases.d/*.sh; do
	a=$(basename "$f" .sh)
	[ "$a" = core ] || areas+=("$a")
done
# MINIVMM_AREAS="linux hv": only those (for a developer's quick rerun; CI runs all).
if [ -n "${MINIVMM_AREAS:-}" ]; then
	read -r -a areas <<<"$MINIVMM_AREAS"
	echo "integration: MINIVMM_AREAS set: only ${areas[*]}"
fi
verdict='^[0-9]+ passed, [0-9]+ failed$'
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# shellcheck source=tests/integration/needs.sh
. "$top/tests/integration/needs.sh"

# The module behind /dev/kvm, as minivmm decides it (vmm/kvm.c).
host_backend() {
	if [ -d /sys/module/kvm_intel ]; then echo vmx
	elif [ -d /sys/module/kvm_amd ]; then echo svm
	elif [ -d /sys/module/kvm_pvm ]; then echo pvm
	else echo unknown; fi
}

pass=0 fail=0
count() {	# count LOG: add its verdict line to pass/fail
	local p f
	read -r p f < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$1" | tail -n 1)
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
}

nested=("${areas[@]}")
if [ -z "${MINIVMM_FORCE_NESTED:-}" ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	backend=$(host_backend)
	echo "integration: using this host's /dev/kvm ($backend)"
	direct=() nested=()
	for a in "${areas[@]}"; do
		if ! area_needs "$a"; then
			echo "FAIL: area $a (its .needs script failed: see above)"
			fail=$((fail + 1))
		elif [[ $needs_nested == *" $backend "* ]]; then
			echo "integration: area $a runs in a nested VM (its .needs asks for that on $backend)"
			nested+=("$a")
		else
			for e in ${needs_envs[@]+"${needs_envs[@]}"}; do export "${e?}"; done
			direct+=("$a")
		fi
	done
	# cases.sh's own verdict line is left out: the one at the end counts all.
	if [ ${#direct[@]} -gt 0 ]; then
		"$cases" "$top/minivmm" "$top/guest.elf" "${asan:-none}" "${direct[@]}" |
			tee "$log" | grep --line-buffered -vE "$verdict|^STEP-DONE: "
		if ! grep -qE "$verdict" "$log"; then
			echo "FAIL: the areas on this host's /dev/kvm ended without a verdict"
			fail=$((fail + 1))
		fi
		count "$log"
	fi
elif [ -n "${MINIVMM_FORCE_NESTED:-}" ]; then
	echo "integration: MINIVMM_FORCE_NESTED set; each area runs in a nested KVM VM (QEMU TCG, emulated SVM)"
else
	echo "integration: no usable /dev/kvm here; each area runs in a nested KVM VM (QEMU TCG, emulated SVM)"
fi
# MINIVMM_RUN_NESTED: a stand-in for run-nested.sh (tests/host/integration-retry.sh).
run_nested=${MINIVMM_RUN_NESTED:-$top/tests/nested/run-nested.sh}
limit=${MINIVMM_NESTED_TIMEOUT:-240}	# a healthy area takes < 60 s; room for one 130 s kill

nested_area() {	# nested_area AREA RESUME: 0 ran to its verdict line, 1 infrastructure failure
	local files=(--file "$top/minivmm" --file "$top/guest.elf" --file "$top/tests/integration")
	local envs=() e
	(($2 > 0)) && envs+=(--env "MINIVMM_RESUME_AFTER=$2")
	[ -n "$asan" ] && files+=(--file "$asan")
	[ -x "$top/build/minivmm-sandbox-test" ] && files+=(--file "$top/build/minivmm-sandbox-test")
	files+=(${needs_files[@]+"${needs_files[@]}"})
	for e in ${needs_envs[@]+"${needs_envs[@]}"}; do envs+=(--env "$e"); done
	MINIVMM_NESTED_CPU=${needs_cpu:-${MINIVMM_NESTED_CPU:-max}} \
	MINIVMM_NESTED_KVM_PARAMS=${needs_kvm_params:-${MINIVMM_NESTED_KVM_PARAMS:-}} \
	"$run_nested" --timeout "${needs_timeout:-$limit}" --idle "${needs_idle:-0}" \
		"${files[@]}" \
		${envs[@]+"${envs[@]}"} \
		-- "$cases" "$top/minivmm" "$top/guest.elf" "${asan:-none}" "$1" >"$log" 2>&1
	grep -qE "$verdict" "$log"
}

# keep_steps LOG: a dead VM's log. When its area finished a step, keep its
# lines up to the last STEP-DONE, add that line's counts and resume after
# it (kept_upto: how many of LOG's lines); 1 when no step was finished.
kept=$(mktemp)
trap 'rm -f "$log" "$kept"' EXIT
keep_steps() {
	local at n p f
	at=$(grep -nE '^STEP-DONE: [0-9]+ \([0-9]+ passed, [0-9]+ failed\)$' "$1" | tail -n 1)
	[ -n "$at" ] || return 1
	read -r n p f < <(sed -E 's/^[0-9]+:STEP-DONE: ([0-9]+) \(([0-9]+) passed, ([0-9]+) failed\)$/\1 \2 \3/' <<<"$at")
	head -n "${at%%:*}" "$1" >>"$kept"
	pass=$((pass + p)) fail=$((fail + f)) resume=$n kept_upto=${at%%:*}
}

for a in ${nested[@]+"${nested[@]}"}; do
	if ! area_needs "$a"; then
		echo "FAIL: area $a (its .needs script failed: see above)"
		fail=$((fail + 1))
		continue
	fi
	: >"$kept"
	resume=0 vms=0 stuck=0 why=""
	while vms=$((vms + 1)) && ! nested_area "$a" "$resume"; do
		sed 's/^/integration:   /' "$log" | tail -n 15
		kept_upto=0
		if keep_steps "$log"; then stuck=0; else stuck=$((stuck + 1)); fi
		if ((stuck >= 3)); then
			why="three nested VMs in a row ended without a verdict or a finished step"
		elif ((vms >= 6)); then
			why="six nested VMs ended without a verdict"
		else
			from="a fresh VM starts it over"
			((resume > 0)) && from="a fresh VM resumes after step $resume"
			echo "RETRY: area $a (the nested VM ended without a verdict: see above; $from)"
			continue
		fi
		break
	done
	grep -v '^STEP-DONE: ' "$kept"
	if [ -n "$why" ]; then
		tail -n +$((kept_upto + 1)) "$log" | grep -v '^STEP-DONE: '
		echo "FAIL: area $a ($why)"
		fail=$((fail + 1))
		continue
	fi
	grep -vE "$verdict|^STEP-DONE: " "$log"
	count "$log"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
