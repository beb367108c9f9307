# kvm-unit-tests' own x86 binaries, unmodified, booted as Multiboot kernels
# (docs/kut.md). They are fixtures outside this repository: KUT_DIR names
# their directory (default ../shared/fixtures/kvm-unit-tests from the
# repository top); without them every case here SKIPs and says so.

kut_top=$(cd "$(dirname "$0")/../.." && pwd)
KUT_DIR=${KUT_DIR:-$kut_top/../shared/fixtures/kvm-unit-tests}
kut_tests="cpuid inl_from_qemu inl_from_kernel outl_to_kernel ipi inl_from_pmtimer"
# vmexit's bounds follow the guest's TSC rate (cases.sh: kut_vmexit_bound).
kut_mhz=$(guest_tsc_mhz)

# kut_unclaimed_only PORTS...: stderr reports no unclaimed access but these.
kut_unclaimed_only() {
	extra=$(grep -F 'unclaimed' "$T/err" | grep -vF "$1" || true)
	[ -z "$extra" ] && return 0
	bad "$c" "unexpected unclaimed accesses: $extra"
	return 1
}

if [ ! -r "$KUT_DIR/smptest.flat" ] || [ ! -r "$KUT_DIR/vmexit.flat" ]; then
	skip "kvm-unit-tests smptest and vmexit" "fixtures not found in $KUT_DIR (set KUT_DIR)"
else
	for n in 1 2 4; do
		c="kvm-unit-tests smptest.flat with $n vCPU(s)"
		run "$c" 0 -- --cpus "$n" --timeout 60 "$KUT_DIR/smptest.flat" &&
			has "$c" out "found $n cpus" && has "$c" out "PASS: IPI to each CPU" &&
			has "$c" out "SUMMARY: 1 tests" && kut_unclaimed_only "none" && ok "$c"
	done

	# --hv-xmm-path auto must not time its 64-bit block on a kernel that boots in 32-bit mode.
	c="kvm-unit-tests smptest.flat with --hyperv: the XMM path is chosen without timing"
	run "$c" 0 -- --hyperv --cpus 2 --timeout 60 "$KUT_DIR/smptest.flat" &&
		has "$c" out "xmm path ioctl: auto: Multiboot kernel, not timed" &&
		has "$c" out "PASS: IPI to each CPU" && ok "$c"

	# The reference TSC page is valid only where KVM reports a stable TSC;
	# elsewhere (nested SVM: the L1 marks its TSC unstable) minivmm says so
	# and kvm-unit-tests stops at its own "page not available" check.
	c="kvm-unit-tests hyperv_clock.flat with --hyperv, 2 vCPUs: reference TSC page and TIME_REF_COUNT"
	if [ ! -r "$KUT_DIR/hyperv_clock.flat" ]; then
		skip "$c" "hyperv_clock.flat not found in $KUT_DIR"
	else
		timeout "$RUN_LIMIT" "$VMM" --hyperv --cpus 2 --timeout 100 \
			"$KUT_DIR/hyperv_clock.flat" >"$T/out" 2>"$T/err" </dev/null
		got=$?
		if ! has "$c" out "PASS: MSR value after enabling"; then
			:
		elif grep -qF "reference TSC page is marked invalid" "$T/err"; then
			if [ "$got" -ne 63 ]; then
				bad "$c" "page invalid, exit status $got, expected 63 (abort)"
			elif has "$c" out "ABORT: Reference TSC page not available"; then
				ok "$c (page invalid here: KVM's TSC is not stable)"
			fi
		elif [ "$got" -ne 0 ]; then
			bad "$c" "exit status $got"
		elif has "$c" out "PASS: TSC reference precision test" &&
			has "$c" out "PASS: MSR value after disabling"; then
			ok "$c"
		fi
	fi

	c="kvm-unit-tests vmexit.flat: $kut_tests"
	kut_bound=$(kut_vmexit_bound "$(echo $kut_tests | wc -w)" "$kut_mhz")
	kut_limit=$RUN_LIMIT
	RUN_LIMIT=$((kut_bound + 30))
	# shellcheck disable=SC2086
	if run "$c" 0 -- --cpus 2 --timeout "$kut_bound" "$KUT_DIR/vmexit.flat" -- $kut_tests &&
		has "$c" out "PM timer port is 608" && kut_unclaimed_only "port 0x1234"; then
		missing=""
		for t in $kut_tests; do
			grep -qE "^$t [0-9]+\$" "$T/out" || missing="$missing $t"
		done
		if [ -z "$missing" ]; then ok "$c (bound ${kut_bound} s: guest TSC ${kut_mhz:-?} MHz)"
		else bad "$c" "no cycle count for:$missing"; fi
	fi
	RUN_LIMIT=$kut_limit

	c="kvm-unit-tests under ASan: smptest.flat with 2 vCPUs, no leak"
	if [ -z "$VMM_ASAN" ] || [ "$VMM_ASAN" = none ]; then
		skip "$c" "no sanitizer build of minivmm given"
	else
		vmm_saved=$VMM
		VMM=$VMM_ASAN
		run "$c" 0 -- --cpus 2 --timeout 60 "$KUT_DIR/smptest.flat" &&
			has "$c" out "PASS: IPI to each CPU" && ok "$c"
		VMM=$vmm_saved
	fi
fi

# --qemu-exit: QEMU's isa-debug-exit convention, which kvm-unit-tests' runner reads.
c="--qemu-exit: a passing guest exits 1, (0 << 1) | 1"
run "$c" 1 -- --qemu-exit "$ELF" -- smoke && has "$c" out "PASS" && ok "$c"
c="--qemu-exit: rejected records turn a pass into 3, (1 << 1) | 1"
run "$c" 3 -- --qemu-exit "$ELF" -- flood 20 &&
	has "$c" err "20 result record(s) were rejected; exiting 3" && ok "$c"

# kvm-unit-tests' own runner (its standalone scripts) with minivmm-qemu as its QEMU.
kut_front=$kut_top/minivmm-qemu
# Asked through bash, as the runner runs: busybox's sh prefers its own
# timeout applet, which has no --foreground, to a coreutils one in PATH.
kut_runner_ok() {	# the tools the runner's scripts need, as coreutils has them
	command -v bash >/dev/null && bash -c 'timeout -k 1s --foreground 5 true' 2>/dev/null
}
# kut_standalone CASE ENTRY WANT-STATUS LINE: the runner's verdict line for ENTRY,
# within its TIMEOUT (KUT_ENTRY_TIMEOUT seconds, 60 by default).
kut_standalone() {
	local c=$1 s=$KUT_DIR/standalone/$2 t=${KUT_ENTRY_TIMEOUT:-60} limit=$RUN_LIMIT
	if [ ! -x "$kut_front" ]; then
		skip "$c" "no $kut_front (make builds it)"
	elif [ ! -r "$s" ]; then
		skip "$c" "no $s (the fixtures' README says how to make them)"
	elif ! kut_runner_ok; then
		skip "$c" "no bash or coreutils timeout here (kvm-unit-tests' runner needs them)"
	else
		vmm_abs=$(readlink -f "$VMM")
		[ "$RUN_LIMIT" -lt $((t + 70)) ] && RUN_LIMIT=$((t + 70))	# the runner's probe run, then the entry
		(cd "$T" && MINIVMM=$vmm_abs QEMU=$kut_front TIMEOUT=${t}s timeout "$RUN_LIMIT" bash "$s") \
			>"$T/out" 2>"$T/err" </dev/null
		got=$?
		RUN_LIMIT=$limit
		sed -i "s/$(printf '\033')\[[0-9;]*m//g" "$T/out"	# busybox's sed has no \x1b
		if [ "$got" -ne "$3" ]; then
			bad "$c" "the runner exited $got, expected $3"
		elif grep -qE "^$4" "$T/out"; then
			ok "$c"
		else
			bad "$c" "no line '$4' from the runner"
		fi
	fi
}
kut_standalone "kvm-unit-tests' runner via minivmm-qemu: smptest passes" smptest 0 "PASS smptest \(1 tests\)"
kut_standalone "kvm-unit-tests' runner via minivmm-qemu: vmexit_cpuid passes" vmexit_cpuid 0 "PASS vmexit_cpuid"
# More of the entries that pass under QEMU and minivmm alike and take seconds (docs/kut.md).
for e in idt_test setjmp rmap_chain smptest3; do
	kut_standalone "kvm-unit-tests' runner via minivmm-qemu: $e passes" "$e" 0 "PASS $e"
done
KUT_ENTRY_TIMEOUT=$(kut_vmexit_bound 1 "$kut_mhz")
kut_standalone "kvm-unit-tests' runner via minivmm-qemu: vmexit_ipi passes" vmexit_ipi 0 "PASS vmexit_ipi"
unset KUT_ENTRY_TIMEOUT
# ACPI S3: the PM1a blocks, the RTC's update-in-progress edge, the resume in real mode at the
# FACS waking vector, whose code exits with what the guest left at address 0 (0: resumed at once).
c="kvm-unit-tests s3.flat: suspend through PM1a_CNT, resume at the FACS waking vector"
if [ ! -r "$KUT_DIR/s3.flat" ]; then
	skip "$c" "s3.flat not found in $KUT_DIR"
else
	run "$c" 1 -- --qemu-exit --timeout 60 "$KUT_DIR/s3.flat" &&
		has "$c" out "PM1a event registers at 600" && ok "$c"
fi
kut_standalone "kvm-unit-tests' runner via minivmm-qemu: s3 passes" s3 0 "PASS s3"
c="kvm-unit-tests realmode.flat at 0x8000, woken from sti; hlt by the firmware's PIT"
if [ ! -r "$KUT_DIR/realmode.flat" ]; then
	skip "$c" "realmode.flat not found in $KUT_DIR"
else
	run "$c" 1 -- --qemu-exit --pc-testdev --timeout 100 "$KUT_DIR/realmode.flat" &&
		has "$c" out "PASS: sti inhibit" && has "$c" out "PASS: xadd" && ok "$c"
fi
# Loaded at 0x8000 (the Multiboot block moves past it), woken from sti; hlt by the PIT
# through the PIC and IVT as firmware leaves them, pc-testdev's ports read back.
kut_standalone "kvm-unit-tests' runner via minivmm-qemu: realmode passes" realmode 0 "PASS realmode"
# A QEMU machine minivmm is not: refused by name, which the runner's probe turns into a SKIP.
kut_standalone "kvm-unit-tests' runner via minivmm-qemu: intel_iommu is a SKIP that names -machine q35" \
	intel_iommu 77 "SKIP intel_iommu \(minivmm-qemu: -machine 'q35'"
c="minivmm-qemu: a kernel that does not open is QEMU's 'could not load kernel' (the runner's probe)"
if [ -x "$kut_front" ]; then
	MINIVMM=$VMM "$kut_front" -nodefaults -machine accel=kvm -kernel _NO_FILE_4Uhere_ -smp 2 \
		>"$T/out" 2>"$T/err" </dev/null
	got=$?
	if [ "$got" -ne 2 ]; then bad "$c" "exit status $got, expected 2"
	elif has "$c" err "minivmm-qemu: could not load kernel '_NO_FILE_4Uhere_'"; then ok "$c"; fi
else
	skip "$c" "no $kut_front"
fi

c="--pc-testdev, --no-pit and --initrd are refused for minivmm's own payload, by name"
run "$c" 2 -- --pc-testdev "$ELF" && has "$c" err "--pc-testdev: $ELF is not a Multiboot kernel" &&
	run "$c" 2 -- --no-pit "$ELF" && has "$c" err "--no-pit: $ELF is not a Multiboot kernel" &&
	run "$c" 2 -- --initrd /dev/null "$ELF" &&
	has "$c" err "is minivmm's payload, which takes no initrd" && ok "$c"

# kvm-unit-tests' msr, msr64 and syscall entries ask QEMU for vendor=.
c="--cpu-vendor: the guest reads the vendor given from CPUID leaf 0; a malformed one is refused"
run "$c" 0 -- --cpu-vendor GenuineIntel --timeout 60 "$ELF" -- smoke &&
	has "$c" out "minivmm: CPUID vendor GenuineIntel (--cpu-vendor" &&
	has "$c" out "cpu vendor GenuineIntel" &&
	run "$c" 0 -- --cpu-vendor AuthenticAMD --timeout 60 "$ELF" -- smoke &&
	has "$c" out "cpu vendor AuthenticAMD" &&
	run "$c" 2 -- --cpu-vendor Intel "$ELF" &&
	has "$c" err "--cpu-vendor 'Intel': need exactly 12 characters" && ok "$c"

c="an ELF32 file without a Multiboot header is refused by name"
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000' >"$T/elf32"
head -c 200 /dev/zero >>"$T/elf32"
run "$c" 2 -- "$T/elf32" && has "$c" err "without a Multiboot header" && ok "$c"
