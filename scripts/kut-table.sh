#!/usr/bin/env bash
# make check-kut: every kvm-unit-tests standalone script (kvm-unit-tests' own
# runner, one per unittests.cfg entry) run once through minivmm-qemu and,
# where it is installed, once through QEMU, on this machine's KVM; the
# verdicts side by side in a Markdown table (docs/kut.md explains them).
#   KUT_DIR       the fixtures (default ../shared/fixtures/kvm-unit-tests)
#   KUT_TIMEOUT   each test's bound, as kvm-unit-tests' TIMEOUT (default 60s)
#   KUT_ONLY      blank-separated entry names (default: every script)
#   KUT_QEMU      the QEMU to compare with (default qemu-system-x86_64; 'none': skip)
#   KUT_OUT       the table (default docs/results/kut-<backend>.md)
#   KUT_LOGS      keep each run's output in this directory (not with KUT_NESTED)
#   KUT_NESTED=1  run the table inside the nested SVM VM (tests/nested/run-nested.sh:
#                 QEMU TCG + kvm_amd), QEMU's side included; the default where
#                 this machine has no /dev/kvm. KUT_NESTED_TIMEOUT bounds the VM
#                 (default 7200 s), which is killed after 900 s without output.
#   KUT_NESTED=vmx  the same inside VMX under Bochs (run-nested.sh --vmx:
#                 kvm_intel, the only place the vmx entries run): hours of
#                 emulation; docs/results/kut-nested-vmx.md
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kut=${KUT_DIR:-$top/../shared/fixtures/kvm-unit-tests}
timeout=${KUT_TIMEOUT:-60s}
qemu=${KUT_QEMU:-qemu-system-x86_64}
die() { echo "kut-table: $*" >&2; exit 2; }

# Inside the nested VM every row is printed as it is made, after ROW_MARK:
# a VM that wedges under TCG (docs/backends.md) still leaves the rows so far.
ROW_MARK=KUT-TABLE-ROW:
[ -d "$kut/standalone" ] || die "no standalone scripts in $kut (see its README.md; set KUT_DIR)"
[ -x "$top/minivmm-qemu" ] || die "build minivmm-qemu first (make)"
case ${KUT_NESTED:-} in ''|1|vmx) ;; *) die "KUT_NESTED=$KUT_NESTED: 1 (nested SVM) or vmx (VMX under Bochs)" ;; esac
if [ -n "${KUT_NESTED:-}" ] || { [ ! -c /dev/kvm ] && [ -z "${KUT_INSIDE:-}" ]; }; then
	[ -z "${KUT_LOGS:-}" ] || die "KUT_LOGS: in the nested VM the runs' logs stay in the VM (its rows come out, not its files)"
	kut=$(cd "$kut" && pwd)
	files=(--file "$top/minivmm" --file "$top/minivmm-qemu" --file "$top/guest.elf" --file "$0" --file "$kut")
	# The runner's tools busybox lacks (kvm-unit-tests' runner is bash, asks
	# getconf for the CPU count and needs coreutils' timeout --foreground).
	for t in bash timeout env getconf; do
		p=$(command -v "$t") || die "no $t here (kvm-unit-tests' runner needs it)"
		files+=(--file "$(readlink -f "$p")")
	done
	bed=svm
	[ "${KUT_NESTED:-}" = vmx ] && bed=vmx
	envs=(--env "KUT_INSIDE=$bed" --env "KUT_DIR=$kut" --env "KUT_TIMEOUT=$timeout")
	[ -n "${KUT_ONLY:-}" ] && envs+=(--env "KUT_ONLY=$KUT_ONLY")
	if [ "$qemu" != none ] && q=$(command -v "$qemu"); then
		q=$(readlink -f "$q")
		files+=(--file "$q" --file /usr/share/qemu --file /usr/share/seabios)
		envs+=(--env "KUT_QEMU=$q")
	else
		envs+=(--env KUT_QEMU=none)
	fi
	out=${KUT_OUT:-$top/docs/results/kut-nested-$bed.md}
	raw=$(mktemp)
	trap 'rm -f "$raw"' EXIT
	# kvm_amd without nested paging, as the kut area runs (cases.d/kut.needs):
	# with it, QEMU 7.2's TCG has triple-faulted an L2's second vCPU. 6 GiB:
	# QEMU's side gives entries their -m 2048 and -m 4g (TCG and Bochs map
	# RAM as it is touched).
	# Bochs holds 2 GiB in host memory and the rest in a file: 3 GiB covers
	# the vmx entries' -m 2560.
	vm=(--mem 6144)
	params=${MINIVMM_NESTED_KVM_PARAMS-npt=0}
	if [ "$bed" = vmx ]; then
		vm=(--vmx --mem 3072)
		params=${MINIVMM_NESTED_KVM_PARAMS-}
	fi
	MINIVMM_NESTED_KVM_PARAMS=$params \
		"$top/tests/nested/run-nested.sh" "${vm[@]}" --timeout "${KUT_NESTED_TIMEOUT:-7200}" --idle 900 \
		"${files[@]}" "${envs[@]}" -- bash "$0" | tee "$raw" | grep --line-buffered -v "^$ROW_MARK"
	rc=${PIPESTATUS[0]}
	rows=$(grep "^$ROW_MARK| " "$raw" | grep -vc "^$ROW_MARK| entry |")
	[ "$rows" -gt 0 ] || die "the nested VM gave no table (run-nested.sh exited $rc)"
	mkdir -p "$(dirname "$out")"
	{
		sed -n "s/^$ROW_MARK//p" "$raw" | sed 's/\r$//'
		[ "$rc" -eq 0 ] || printf '\nThe nested VM ended early (run-nested.sh exited %s): the entries not\nlisted got no verdict. Rerun them with KUT_ONLY.\n' "$rc"
	} >"$out"
	echo "kut-table: wrote $out ($rows rows)"
	[ "$rc" -eq 0 ] || exit 1
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# KUT_LOGS=DIR keeps every run's output there (ENTRY.minivmm, ENTRY.qemu).
logs=${KUT_LOGS:-$work}
mkdir -p "$logs"

[ -c /dev/kvm ] || die "no /dev/kvm here"
[ "$qemu" = none ] || command -v "$qemu" >/dev/null || qemu=none

# The backend's name from minivmm's own banner (kvm_pvm, kvm_amd, kvm_intel).
backend=$("$top/minivmm" --timeout 30 -- smoke 2>/dev/null | sed -n 's/.*kvm backend \([a-z_]*\).*/\1/p' | head -1)
backend=${backend:-unknown}
out=${KUT_OUT:-$top/docs/results/kut-$backend.md}

# verdict TAG VMM SCRIPT: kvm-unit-tests' own last word on the entry, colours
# stripped; it may follow the guest's unfinished line (sieve's "mapped:").
# The escape is spelt out: busybox's sed (the nested VM's) knows no \x1b.
esc=$(printf '\033')
verdict() {
	local n log
	n=$(basename "$3")
	log=$logs/$n.$1
	env QEMU="$2" TIMEOUT="$timeout" timeout 600 "$3" </dev/null >"$log" 2>&1
	sed "s/$esc\[[0-9;]*m//g" "$log" | grep -oE "(PASS|FAIL|SKIP) $n( .*)?\$" | tail -1 |
		sed 's/|/\\|/g' || true
}

# QEMU 7.2 with -cpu host or max aborts on kvm_pvm reading MSR 0x10a
# (docs/linux.md): there it runs with arch-capabilities off, and the table says so.
qemu_cmd=$qemu
qemu_note=""
if [ "$qemu" != none ] && [ "$backend" = pvm ]; then
	qemu_cmd=$work/qemu-no-arch-cap
	printf '#!/usr/bin/env bash\na=()\nfor x in "$@"; do case "$p" in -cpu) x=$x,-arch-capabilities;; esac; a+=("$x"); p=$x; done\nexec %q "${a[@]}"\n' \
		"$(command -v "$qemu")" >"$qemu_cmd"
	chmod +x "$qemu_cmd"
	qemu_note=" QEMU's -cpu gets ,-arch-capabilities on kvm_pvm (without it QEMU aborts at MSR 0x10a)."
fi

names=${KUT_ONLY:-$(cd "$kut/standalone" && ls)}
{
	if [ "${KUT_INSIDE:-}" = vmx ]; then
		echo "# kvm-unit-tests through its own runner on $backend in VMX under Bochs"
		echo
		echo "The nested VM is the project's patched Bochs with kvm_intel (tests/nested/run-nested.sh --vmx),"
		echo "QEMU's side runs in it too: an emulator's speed, so a TIMEOUT here says little."
	elif [ -n "${KUT_INSIDE:-}" ]; then
		echo "# kvm-unit-tests through its own runner on $backend in the nested SVM VM"
		echo
		echo "The nested VM is QEMU TCG with kvm_amd ($(cat /sys/module/kvm_amd/parameters/npt 2>/dev/null |
			sed 's/^[Y1]$/nested paging on/;s/^[N0]$/npt=0/'), tests/nested/run-nested.sh),"
		echo "QEMU's side runs in it too: an emulator's speed, so a TIMEOUT here says little."
	else
		echo "# kvm-unit-tests through its own runner on $backend"
	fi
	echo
	echo "Generated by \`make check-kut\` (scripts/kut-table.sh) on $(date -u +%Y-%m-%d), minivmm"
	echo "$("$top/minivmm" --version | cut -d' ' -f2), kvm-unit-tests $(sed -n 's/^echo BUILD_HEAD=//p' "$kut/standalone/smptest"),"
	echo "TIMEOUT=$timeout per entry. Each cell is the runner's own line (PASS, FAIL, SKIP and"
	echo "its reason). docs/kut.md says why minivmm and QEMU differ where they do.$qemu_note"
	echo
	echo "| entry | minivmm-qemu | QEMU ($([ "$qemu" = none ] && echo "not installed" || "$qemu" --version | head -1 | cut -d' ' -f4)) |"
	echo "|---|---|---|"
} >"$work/table"
[ -z "${KUT_INSIDE:-}" ] || sed "s/^/$ROW_MARK/" "$work/table"
for n in $names; do
	s=$kut/standalone/$n
	[ -f "$s" ] || { echo "kut-table: no entry $n" >&2; continue; }
	m=$(verdict minivmm "$top/minivmm-qemu" "$s")
	q="(not run)"
	[ "$qemu" = none ] || q=$(verdict qemu "$qemu_cmd" "$s")
	echo "| $n | ${m:-no verdict} | ${q:-no verdict} |" >>"$work/table"
	[ -z "${KUT_INSIDE:-}" ] || echo "$ROW_MARK$(tail -n 1 "$work/table")"
	echo "kut-table: $n: minivmm-qemu: ${m:-no verdict}; QEMU: ${q:-no verdict}"
done
[ -z "${KUT_INSIDE:-}" ] || exit 0	# the rows went out as they came
mkdir -p "$(dirname "$out")"
cp "$work/table" "$out"
echo "kut-table: wrote $out"
