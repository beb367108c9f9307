# Linux guests: Debian's own kernel (scripts/linux-kernel.sh) booted by
# minivmm with the test initramfs (tests/linux/: /init checks the CPU count,
# writes MVM_LINUX_TX bytes through ttyS0 from user space, prints the dmesg
# lines of interest and ends as its command line says). Every case checks
# minivmm's exit status for that ending, the CPU count, that every byte
# arrived, what the kernel said about the paravirtual personality, and that
# nothing went wrong (no unchecked MSR access, WARNING, Oops).
#
# The files come from cases.d/linux.needs (run.sh runs it on the host and
# passes them, into the nested VM too, as MVM_LINUX_*); without them, or
# when the kernel cannot be fetched, the area prints one SKIP and passes.
# Bounded: each boot has minivmm's --timeout (MVM_LINUX_CASE_TIMEOUT, 90 s);
# when the first boot fails the others are not tried, and none starts once
# MVM_LINUX_BUDGET seconds (540) are used: both count as failures.
# MVM_LINUX_QUICK=1: the first boot only (make check-vmx sets it).
# MVM_LINUX_FULL=1: the whole matrix, 13 boots (make check-linux); without
# it, 8 boots that still cover every vCPU count, personality and ending
# (the two on a terminal in both).

lx_top=$(cd "$(dirname "$0")/../.." && pwd)
lx_needs=$lx_top/tests/integration/cases.d/linux.needs
if [ -z "${MVM_LINUX_INITRD:-}" ] && [ -z "${MVM_LINUX_SKIP:-}" ]; then
	# Run straight from cases.sh: ask for the files here.
	if [ -x "$lx_needs" ] && command -v bash >/dev/null 2>&1 &&
		lx_list=$("$lx_needs" 2>"$T/needs.err"); then
		while read -r lx_kind lx_rest; do
			[ "$lx_kind" = env ] && export "${lx_rest?}"
		done <<EOF
$lx_list
EOF
	else
		MVM_LINUX_SKIP="no kernel given: MVM_LINUX_* unset and $lx_needs failed: $(tail -n 1 "$T/needs.err" 2>/dev/null)"
	fi
fi

LX_TOOLS=${MVM_LINUX_TOOLS:-$lx_top/tests/linux}
LX_TX=${MVM_LINUX_TX:-65536}
LX_TIMEOUT=${MVM_LINUX_CASE_TIMEOUT:-90}
LX_BUDGET=${MVM_LINUX_BUDGET:-540}
LX_MEM=256M
lx_now() { cut -d' ' -f1 /proc/uptime; }
lx_secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
lx_start=$(lx_now)
LX_GUEST_ARGS=""	# more of the kernel command line for lx_boot (linux_work.inc)
LX_PV_CHECK=""		# lx_pv_ok's PV for lx_boot, when not its --pv (linux_work.inc)
lx_canary=""	# set when the first boot failed: the others are not tried

# lx_clean NAME: the kernel reported no trouble (dmesg lines /init printed).
# LX_CLEAN_EXPECT: one fixed string a boot's case expects instead (it checks
# that line itself); every other line of trouble still fails.
LX_CLEAN_EXPECT=""
lx_clean() {
	lx_trouble=$(tr -d '\r' <"$T/out" | grep -E '^mvm-dmesg: .*(unchecked MSR access|WARNING: CPU:|Oops|BUG: unable|general protection fault|Disabling IBT)' |
		{ if [ -n "$LX_CLEAN_EXPECT" ]; then grep -vF -- "$LX_CLEAN_EXPECT"; else cat; fi; } | head -n 3)
	[ -z "$lx_trouble" ] && return 0
	bad "$1" "the kernel reported trouble: $lx_trouble"
	return 1
}

# lx_dmesg_has NAME TEXT / lx_dmesg_lacks NAME TEXT: a dmesg line /init printed.
lx_dmesg_has() {
	tr -d '\r' <"$T/out" | grep '^mvm-dmesg: ' | grep -qF -- "$2" && return 0
	bad "$1" "dmesg lacks '$2'"
	return 1
}
lx_dmesg_lacks() {
	tr -d '\r' <"$T/out" | grep '^mvm-dmesg: ' | grep -qF -- "$2" || return 0
	bad "$1" "dmesg has '$2'"
	return 1
}

# lx_hint_ok NAME HINTS HINT TEXT: dmesg has TEXT when HINTS (a --hv-hints
# list, "-" for the default: all) holds HINT, and lacks it otherwise.
lx_hint_ok() {
	case ",$2," in
	,-, | *,"$3",*) lx_dmesg_has "$1" "$4" ;;
	*) lx_dmesg_lacks "$1" "$4" ;;
	esac
}

# lx_hv_clock_ok NAME: Linux under Hyper-V without TSC_INVARIANT keeps time
# with what the banner said: the reference TSC page where it was offered,
# never where the host's clocksource kept it back (docs/linux.md).
lx_hv_clock_ok() {
	if grep -qF "the reference TSC page is not offered" "$T/out"; then
		lx_dmesg_lacks "$1" "Switched to clocksource hyperv_clocksource_tsc_page"
	elif grep -qF "keeps time with the reference TSC page" "$T/out"; then
		lx_dmesg_has "$1" "Switched to clocksource hyperv_clocksource_tsc_page"
	fi
}

# lx_pv_ok NAME PV: what the kernel said about the personality. PV
# "hyperv:HINTS": Hyper-V shown with those --hv-hints (linux_work.inc).
lx_pv_ok() {
	case $2 in
	hyperv:*) lx_dmesg_has "$1" "Hypervisor detected: Microsoft Hyper-V" && lx_dmesg_lacks "$1" "kvm-clock" &&
		lx_hint_ok "$1" "${2#hyperv:}" flush "Hyper-V: Using hypercall for remote TLB flush" &&
		lx_hint_ok "$1" "${2#hyperv:}" ipi "Using IPI hypercalls" && lx_hv_clock_ok "$1" ;;
	hyperv) lx_dmesg_has "$1" "Hypervisor detected: Microsoft Hyper-V" &&
		lx_dmesg_has "$1" "Hyper-V: Using hypercall for remote TLB flush" &&
		lx_dmesg_has "$1" "Using IPI hypercalls" && lx_dmesg_lacks "$1" "kvm-clock" &&
		lx_hv_clock_ok "$1" ;;
	kvm) lx_dmesg_has "$1" "Hypervisor detected: KVM" && lx_dmesg_has "$1" "kvm-clock: Using msrs" &&
		lx_dmesg_lacks "$1" "Hyper-V: Using" ;;
	none) lx_dmesg_lacks "$1" "Hyper-V: Using" && lx_dmesg_lacks "$1" "kvm-clock" ;;
	esac
}

# lx_end_ok NAME END: /init reached its ending, and minivmm said what it saw.
lx_end_ok() {
	has "$1" out "mvm-init: end: $2" || return 1
	case $2 in
	exit:*) has "$1" out "mvm-init: exit status ${2#exit:} through port 0xf4" ;;
	panic) has "$1" err "Kernel panic - not syncing: sysrq triggered crash" ;;
	esac
}

# lx_status END: minivmm's documented exit status for that ending.
lx_status() {
	case $1 in
	poweroff) echo 0 ;;
	reboot) echo 4 ;;
	panic) echo 3 ;;
	exit:*) echo "${1#exit:}" ;;
	esac
}

# lx_tty_boot NAME STATUS SCRIPT: the 6.1 bzImage, 1 vCPU, ending in /init's
# shell, with minivmm's stdin, stdout and stderr a pseudo-terminal that
# build/ptydrive types SCRIPT at (tests/linux/ptydrive.c says the steps):
# minivmm must end with STATUS and leave the terminal's modes as it found
# them (ptydrive says 126 otherwise).
lx_tty_boot() {
	lt_name=$1 lt_want=$2 lt_script=$3
	: >"$T/out"
	: >"$T/err"
	if [ -n "$lx_canary" ]; then
		bad "$lt_name" "not run: the first boot failed ($lx_canary)"
		return 1
	fi
	if [ -z "${MVM_LINUX_PTYDRIVE:-}" ]; then
		skip "$lt_name" "build/ptydrive not built (make integration builds it)"
		return 0
	fi
	lt_t0=$(lx_now)
	timeout $((LX_TIMEOUT + 30)) "$MVM_LINUX_PTYDRIVE" $((LX_TIMEOUT + 20)) "$lt_script" -- \
		"$VMM" --cpus 1 --timeout "$LX_TIMEOUT" --initrd "$MVM_LINUX_INITRD" --pv hyperv \
		--mem "$LX_MEM" "$MVM_LINUX_BZIMAGE" -- mvm.cpus=1 mvm.tx=0 mvm.end=shell \
		>"$T/out" 2>"$T/err" </dev/null
	lt_rc=$?
	lt_wall=$(lx_secs "$lt_t0" "$(lx_now)")
	case $lt_rc in
	"$lt_want") ok "$lt_name ($lt_wall s wall)" ;;
	126) bad "$lt_name" "exit $lt_want as expected? no: minivmm left the terminal's modes changed" ;;
	*) bad "$lt_name" "ptydrive exit status $lt_rc, expected $lt_want (124 timeout, 125 a step failed)" ;;
	esac
}

# lx_tty_cases: the shell through a terminal, left by typing exit and by Ctrl-A x.
lx_tty_cases() {
	step lx_tty_boot "linux shell on a terminal: a typed command answered, 'exit' -> poweroff -> 0, terminal restored" \
		0 '?a shell on ttyS0|!echo mvm-$((6*7))|?mvm-42|!exit'
	step lx_tty_boot "linux shell on a terminal: Ctrl-A x -> 130, terminal restored" \
		130 '?a shell on ttyS0|!echo mvm-$((6*7))|?mvm-42|^A|=x'
}

# lx_boot NAME KERNEL CPUS PV END [MINIVMM-OPTIONS...]: one boot and all its
# checks. PV "default" passes no --pv (Linux's default: hyperv).
lx_boot() {
	lb_name=$1 lb_kernel=$2 lb_cpus=$3 lb_pv=$4 lb_end=$5
	shift 5
	: >"$T/out"
	: >"$T/err"	# a case not run shows no other case's output
	if [ -n "$lx_canary" ]; then
		bad "$lb_name" "not run: the first boot failed ($lx_canary)"
		return 1
	fi
	lb_used=$(lx_secs "$lx_start" "$(lx_now)")
	if awk -v u="$lb_used" -v b="$LX_BUDGET" 'BEGIN { exit !(u > b) }'; then
		bad "$lb_name" "not run: ${lb_used} s of the area's ${LX_BUDGET} s budget used"
		return 1
	fi
	lb_check=$lb_pv
	if [ "$lb_pv" = default ]; then lb_check=hyperv; else set -- --pv "$lb_pv" "$@"; fi
	lb_check=${LX_PV_CHECK:-$lb_check}
	lb_t0=$(lx_now)
	# shellcheck disable=SC2154  # cases.sh counts the failures
	lb_fails=$fail
	lb_saved_limit=$RUN_LIMIT
	RUN_LIMIT=$((LX_TIMEOUT + 30))
	run "$lb_name" "$(lx_status "$lb_end")" -- --cpus "$lb_cpus" --timeout "$LX_TIMEOUT" \
		--initrd "$MVM_LINUX_INITRD" "$@" "$lb_kernel" -- \
		"mvm.cpus=$lb_cpus" "mvm.tx=$LX_TX" "mvm.end=$lb_end" $LX_GUEST_ARGS
	lb_rc=$?
	RUN_LIMIT=$lb_saved_limit
	lb_wall=$(lx_secs "$lb_t0" "$(lx_now)")
	lb_init=$(tr -d '\r' <"$T/out" | sed -n 's/^mvm-init: start (uptime \([0-9.]*\) s)$/\1/p' | head -n 1)
	if [ "$lb_rc" -eq 0 ] && has "$lb_name" out "mvm-init: cpus: $lb_cpus online, as expected"; then
		if lb_tx=$(sh "$LX_TOOLS/check-tx.sh" "$T/out" "$LX_TX"); then
			lx_pv_ok "$lb_name" "$lb_check" && lx_clean "$lb_name" && lx_end_ok "$lb_name" "$lb_end" &&
				ok "$lb_name ($lb_wall s wall, /init at ${lb_init:-?} s; tx: $lb_tx)"
		else
			bad "$lb_name" "ttyS0 transmit: $lb_tx"
		fi
	fi
	if [ "$fail" -eq "$lb_fails" ]; then
		lx_any_passed=1
		return 0
	fi
	echo "linux: the failed boot took $lb_wall s wall, /init at ${lb_init:-?} s"
	[ -n "$lx_any_passed" ] || lx_canary=$lb_name
	return 0
}
lx_any_passed=""
# Resumed in a fresh nested VM (cases.sh's step): the first boot was
# decided in an earlier one, so a failure here is no canary.
[ "${MINIVMM_RESUME_AFTER:-0}" -gt 0 ] && lx_any_passed=1
# shellcheck source=tests/integration/cases.d/linux_work.inc
. "$lx_top/tests/integration/cases.d/linux_work.inc"

# The ELF vmlinux through its PVH note, and Debian's 6.12 (default
# personality and RAM; relocatable PVH entry, IBT).
lx_vmlinux_boot() {
	lx_boot "linux 6.1 vmlinux (ELF, PVH entry): 2 vCPUs, --pv none, poweroff -> 0" \
		"$MVM_LINUX_VMLINUX" 2 none poweroff --mem "$LX_MEM"
}
lx_612_boot() {
	if [ -n "${MVM_LINUX_612_SKIP:-}" ]; then
		skip "linux 6.12" "$MVM_LINUX_612_SKIP"
	else
		lx_boot "linux 6.12 bzImage: 2 vCPUs, default --pv and --mem, reboot -> 4" \
			"$MVM_LINUX_612" 2 default reboot
	fi
}

if [ -n "${MVM_LINUX_SKIP:-}" ]; then
	echo "SKIP: linux area ($MVM_LINUX_SKIP)"
else
	bz=$MVM_LINUX_BZIMAGE
	# The first is the simplest boot: if it fails, the others are not tried.
	step lx_boot "linux 6.1 bzImage: 1 vCPU, --pv hyperv, poweroff -> 0" "$bz" 1 hyperv poweroff --mem "$LX_MEM"
	if [ -n "${MVM_LINUX_QUICK:-}" ]; then
		# VMX under Bochs, where one boot takes minutes: that boot only.
		echo "linux: MVM_LINUX_QUICK set: the first boot only"
	elif [ -z "${MVM_LINUX_FULL:-}" ]; then
		# make check: every vCPU count, personality, ending and image kind
		# at least once, in six boots of the matrix below. Each boot is
		# another chance for the nested VM itself to wedge
		# (docs/linux-tests.md), so the whole matrix is make check-linux's.
		step lx_boot "linux 6.1 bzImage: 2 vCPUs, --pv hyperv, exit port 7 -> 7" "$bz" 2 hyperv exit:7 --mem "$LX_MEM"
		step lx_boot "linux 6.1 bzImage: 1 vCPU, --pv kvm, panic -> 3" "$bz" 1 kvm panic --mem "$LX_MEM"
		step lx_boot "linux 6.1 bzImage: 4 vCPUs, --pv none, exit port 7 -> 7" "$bz" 4 none exit:7 --mem "$LX_MEM"
		step lx_vmlinux_boot
		step lx_612_boot
		lx_tty_cases
		lx_work_cases
	else
		# make check-linux: the personality x vCPU matrix on the 6.1
		# bzImage, the four endings spread over it so that each
		# personality sees most of them.
		step lx_boot "linux 6.1 bzImage: 2 vCPUs, --pv hyperv, exit port 7 -> 7" "$bz" 2 hyperv exit:7 --mem "$LX_MEM"
		step lx_boot "linux 6.1 bzImage: 4 vCPUs, --pv hyperv, panic -> 3" "$bz" 4 hyperv panic --mem "$LX_MEM"
		step lx_boot "linux 6.1 bzImage: 1 vCPU, --pv kvm, panic -> 3" "$bz" 1 kvm panic --mem "$LX_MEM"
		step lx_boot "linux 6.1 bzImage: 2 vCPUs, --pv kvm, reboot -> 4" "$bz" 2 kvm reboot --mem "$LX_MEM"
		step lx_boot "linux 6.1 bzImage: 4 vCPUs, --pv kvm, poweroff -> 0" "$bz" 4 kvm poweroff --mem "$LX_MEM"
		step lx_boot "linux 6.1 bzImage: 1 vCPU, --pv none, reboot -> 4" "$bz" 1 none reboot --mem "$LX_MEM"
		step lx_boot "linux 6.1 bzImage: 2 vCPUs, --pv none, panic -> 3" "$bz" 2 none panic --mem "$LX_MEM"
		step lx_boot "linux 6.1 bzImage: 4 vCPUs, --pv none, exit port 7 -> 7" "$bz" 4 none exit:7 --mem "$LX_MEM"
		step lx_vmlinux_boot
		step lx_612_boot
		lx_tty_cases
		lx_work_cases
	fi
	echo "linux: area total $(lx_secs "$lx_start" "$(lx_now)") s"
fi
