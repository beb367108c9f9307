#!/usr/bin/env bash
# Run the integration cases on this host's /dev/kvm or, where there is
# none, each area in its own throw-away nested VM that has one
# (tests/nested/). A nested VM that dies or stops making progress is an
# infrastructure failure, not a verdict on minivmm (seen: the nested kernel
# itself reporting soft lockups on every CPU, idle ones included, under
# QEMU TCG): that area runs again in a fresh VM, up to three times in all,
# and each retry is said. Only a verdict line counts; three wedges fail.
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
			tee "$log" | grep --line-buffered -vE "$verdict"
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
limit=${MINIVMM_NESTED_TIMEOUT:-240}	# a healthy area takes < 60 s; room for one 130 s kill

nested_area() {	# nested_area AREA: 0 ran to its verdict line, 1 infrastructure failure
	local files=(--file "$top/minivmm" --file "$top/guest.elf" --file "$top/tests/integration")
	local envs=() e
	[ -n "$asan" ] && files+=(--file "$asan")
	[ -x "$top/build/minivmm-sandbox-test" ] && files+=(--file "$top/build/minivmm-sandbox-test")
	files+=(${needs_files[@]+"${needs_files[@]}"})
	for e in ${needs_envs[@]+"${needs_envs[@]}"}; do envs+=(--env "$e"); done
	MINIVMM_NESTED_CPU=${needs_cpu:-${MINIVMM_NESTED_CPU:-max}} \
	MINIVMM_NESTED_KVM_PARAMS=${needs_kvm_params:-${MINIVMM_NESTED_KVM_PARAMS:-}} \
	"$top/tests/nested/run-nested.sh" --timeout "${needs_timeout:-$limit}" --idle "${needs_idle:-0}" \
		"${files[@]}" \
		${envs[@]+"${envs[@]}"} \
		-- "$cases" "$top/minivmm" "$top/guest.elf" "${asan:-none}" "$1" >"$log" 2>&1
	grep -qE "$verdict" "$log"
}

for a in ${nested[@]+"${nested[@]}"}; do
	if ! area_needs "$a"; then
		echo "FAIL: area $a (its .needs script failed: see above)"
		fail=$((fail + 1))
		continue
	fi
	try=1
	while ! nested_area "$a" && [ $try -lt 3 ]; do
		sed 's/^/integration:   /' "$log" | tail -n 15
		echo "RETRY: area $a (the nested VM ended without a verdict: see above; trying a fresh VM)"
		try=$((try + 1))
	done
	if ! grep -qE "$verdict" "$log"; then
		cat "$log"
		echo "FAIL: area $a (the nested VM ended without a verdict three times)"
		fail=$((fail + 1))
		continue
	fi
	grep -vE "$verdict" "$log"
	count "$log"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
