#!/usr/bin/env bash
# bochs.sh - the integration cases on KVM inside Bochs, the project's
# patched build (tests/nested/bochs-build.sh), on one of two emulated CPUs:
#   vmx  Intel VMX (kvm_intel; run-nested.sh --vmx): no machine here has
#        VT-x, and QEMU's TCG emulates only SVM;
#   svm  AMD SVM (kvm_amd; run-nested.sh --bochs-svm): a second SVM
#        implementation beside QEMU's TCG, to tell an emulator's bug from
#        minivmm's.
# Every group of areas boots its own Bochs VM.
#
# Usage: tests/integration/bochs.sh vmx ci     the short VMX area make check runs
#        tests/integration/bochs.sh vmx full   all areas (make check-vmx)
#        tests/integration/bochs.sh svm full   all areas (make check-svm-bochs)
#        tests/integration/bochs.sh ARCH full GROUP...   some groups of `full`
# On svm, `full` starts with the group `repro` (bochs/svm-repro.sh): the
# cases that hung or failed before svm-intr-mask.patch and the project's own
# Bochs patches. Its VM is killed after MINIVMM_REPRO_IDLE (600) s of wall
# time without output: one Bochs bug (bochs-dr7-flush.patch) costs only
# wall time, which no guest clock sees.
#
# A group whose VM ends without a verdict line (the emulator wedged, or the
# VM's time bound hit) is an infrastructure failure: it runs once more in a
# fresh VM, and says so; a second one fails the group.
# When the test bed cannot be built here (no ../shared/vmx-bochs and no
# cached build, or no root for apt-get), `ci` prints one SKIP line with the
# reason and succeeds: make check stays usable on any machine, and says what
# it did not check. `full` fails instead: it was asked for by name.
# MINIVMM_SKIP_VMX=1 skips `ci` on purpose (also said).
# Environment: MINIVMM_VMX_TIMEOUT (bound per VM in seconds; default 540 for
# ci, 2400 per group for full), KUT_DIR (kvm-unit-tests binaries).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
arch=${1:-}
case $arch in
vmx) bed=VMX bed_long="Intel VMX under Bochs (emulated Skylake-X, 2 CPUs, kvm_intel)"
	run_nested_opt=--vmx ;;
svm) bed=SVM-Bochs bed_long="AMD SVM under Bochs (emulated trinity_apu, 2 CPUs, kvm_amd)"
	run_nested_opt=--bochs-svm ;;
*) echo "bochs.sh: first argument: vmx or svm, not '$arch'" >&2; exit 2 ;;
esac
shift
mode=${1:-ci}
[ $# -gt 0 ] && shift
cases=$top/tests/integration/cases.sh
bochs_areas=$top/tests/integration/bochs
asan=$top/build/minivmm-asan
[ -x "$asan" ] || asan=""
KUT_DIR=${KUT_DIR:-$top/../shared/fixtures/kvm-unit-tests}
[ -d "$KUT_DIR" ] && KUT_DIR=$(cd "$KUT_DIR" && pwd)

# Groups of `full`: NAME, then its areas (cases.d names or bochs/ files).
full_groups=()
[ "$arch" = svm ] && full_groups+=("repro:$bochs_areas/svm-repro.sh")
full_groups+=(
	"core:core"
	"hv:hv hvkvm"
	"hostile:hostile"
	"pvtime:steal $bochs_areas/extra.sh"
	"kut:kut"
	"bench:bench"
	"leaks:leaks flood"
	"sandbox:sandbox rounds"
	"linux:linux"
)

case $mode in
ci) limit=${MINIVMM_VMX_TIMEOUT:-540} ;;	# healthy: 2-3.5 min on a loaded 2-CPU machine
full) limit=${MINIVMM_VMX_TIMEOUT:-2400} ;;
*) echo "bochs.sh: unknown mode '$mode' (ci or full)" >&2; exit 2 ;;
esac
if [ "$mode" = ci ] && [ "$arch" != vmx ]; then
	echo "bochs.sh: no ci area on $arch (make check runs the VMX one only)" >&2
	exit 2
fi

if [ "$mode" = ci ] && [ -n "${MINIVMM_SKIP_VMX:-}" ]; then
	echo "SKIP: VMX area (MINIVMM_SKIP_VMX set: Intel VMX not checked)"
	exit 0
fi
if ! why=$("$top/scripts/deps.sh" vmx 2>&1 && "$top/tests/nested/bochs-build.sh" 2>&1 >/dev/null); then
	if [ "$mode" = ci ]; then
		echo "SKIP: VMX area (no VMX test bed here: Intel VMX not checked; $(echo "$why" | head -n 1))"
		echo "$why" | tail -n +2 | sed 's/^/vmx:   /'
		exit 0
	fi
	echo "$why" >&2
	echo "FAIL: $bed: the test bed (patched Bochs) cannot be built here" >&2
	exit 1
fi
[ -n "$why" ] && echo "$why" | sed "s/^/$arch: /"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
verdict='^[0-9]+ passed, [0-9]+ failed$'

# shellcheck source=tests/integration/needs.sh
. "$top/tests/integration/needs.sh"
needs_prefix=$arch

vm_run() {	# vm_run AREA...: 0 the VM reached a verdict line
	local files=(--file "$top/minivmm" --file "$top/guest.elf" --file "$top/tests/integration")
	local envs=(--env "KUT_DIR=$KUT_DIR" --env "MVM_BED=$bed" --env "MVM_BED_BACKEND=$arch"
		--env "MVM_REPRO_IDLE=$idle") a e
	[ -n "$asan" ] && files+=(--file "$asan")
	[ -x "$top/build/minivmm-sandbox-test" ] && files+=(--file "$top/build/minivmm-sandbox-test")
	[ -d "$KUT_DIR" ] && files+=(--file "$KUT_DIR")
	for a in "$@"; do	# an area's .needs (linux: the kernel and initramfs)
		[[ $a == */* ]] && continue
		area_needs "$a" || return 1
		files+=(${needs_files[@]+"${needs_files[@]}"})
		for e in ${needs_envs[@]+"${needs_envs[@]}"}; do envs+=(--env "$e"); done
	done
	"$top/tests/nested/run-nested.sh" "$run_nested_opt" --cpus 2 --timeout "$limit" --idle "$idle" "${files[@]}" \
		"${envs[@]}" \
		-- "$cases" "$top/minivmm" "$top/guest.elf" "${asan:-none}" "$@" >"$log" 2>&1
	grep -qE "$verdict" "$log"
}

pass=0 fail=0 summary=()
run_group() {	# run_group NAME AREA...
	local name=$1 t0 t try=1
	shift
	t0=$(date +%s)
	while ! vm_run "$@" && [ $try -lt 2 ]; do
		sed "s/^/$arch:   /" "$log" | tail -n 15
		echo "RETRY: $bed group $name (the Bochs VM ended without a verdict: see above; trying a fresh VM)"
		try=$((try + 1))
	done
	t=$(($(date +%s) - t0))
	if ! grep -qE "$verdict" "$log"; then
		cat "$log"
		echo "FAIL: $bed group $name (the Bochs VM ended without a verdict twice; ${t} s)"
		fail=$((fail + 1))
		summary+=("$name: no verdict, ${t} s")
		return
	fi
	grep -vE "$verdict|^STEP-DONE: " "$log"
	local p f s
	read -r p f < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$log" | tail -n 1)
	# Case SKIPs only, not the guest's own lines a FAIL prints between ---- marks.
	s=$(awk '/^---- stdout$/ { d = 1 } /^----$/ { d = 0; next } !d && /^SKIP: / { n++ } END { print n + 0 }' "$log")
	pass=$((pass + p))
	fail=$((fail + f))
	summary+=("$name: $p passed, $f failed, $s skipped, ${t} s wall (VM $try)")
}

start=$(date +%s)
idle=0
if [ "$mode" = ci ]; then
	echo "$arch: $bed_long: boot + the ci area"
	run_group ci "$bochs_areas/vmx-ci.sh"
else
	want=("$@")
	for g in "${full_groups[@]}"; do
		name=${g%%:*}
		if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $name "* ]]; then continue; fi
		echo "# $bed group $name (${g#*:})"
		# One Linux boot under Bochs takes minutes: the first case only, 4 KiB sent.
		[ "$name" = linux ] && export MVM_LINUX_QUICK=${MVM_LINUX_QUICK-1} MVM_LINUX_TX=${MVM_LINUX_TX:-4096} \
			MVM_LINUX_CASE_TIMEOUT=${MVM_LINUX_CASE_TIMEOUT:-1800} \
			MVM_LINUX_BUDGET=${MVM_LINUX_BUDGET:-2000}
		idle=0
		[ "$name" = repro ] && idle=${MINIVMM_REPRO_IDLE:-600}
		# shellcheck disable=SC2086  # the areas are words
		run_group "$name" ${g#*:}
	done
fi
for s in "${summary[@]}"; do echo "$arch: $s"; done
echo "$arch: total $(($(date +%s) - start)) s wall"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
