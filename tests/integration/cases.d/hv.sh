# Hyper-V layer: the `hv` suite (hv-features, hv-ipi, hv-flush) with 4 vCPUs
# in each configuration of the layer. Sourced by cases.sh (run, has, ok, bad).
# The flush cases PASS only when their negative control saw a stale
# translation; where it cannot (a loaded nested TCG host), they SKIP instead.

# hv_run NAME MINIVMM-OPTIONS...: run `hv`, require exit 0 and no FAIL line.
hv_run() {
	c=$1
	shift
	run "$c" 0 -- --cpus 4 --timeout 120 "$@" "$ELF" -- hv || return 1
	has "$c" out " passed, 0 failed" || return 1
	if grep -q "^FAIL" "$T/out"; then
		bad "$c" "a FAIL line"
		return 1
	fi
}

# The flush part either ran (control saw stale reads) or skipped saying why.
hv_flush_ran_or_skipped() {
	grep -qF "PASS: hv: negative control: without a flush" "$T/out" ||
		grep -qF "SKIP: hv: flush cases (stale translations not observable here" "$T/out" ||
		{ bad "$1" "neither the flush control's PASS nor its SKIP"; return 1; }
}

c="hv: 4 vCPUs, XMM input through KVM_GET_FPU"
hv_run "$c" --hv-xmm-path ioctl && has "$c" out "path ioctl" &&
	has "$c" out "PASS: hv: VP_INDEX reads each vCPU's own index (4 vCPUs)" &&
	has "$c" out "PASS: hv: SendIpiEx XMM-fast: set only in XMM0" &&
	has "$c" out "SKIP: hv: XMM-fast call without XMM input -> #UD" &&
	hv_flush_ran_or_skipped "$c" && ok "$c"

c="hv: 4 vCPUs, XMM input spilled by the hypercall page"
hv_run "$c" --hv-xmm-path spill && has "$c" out "path spill" &&
	has "$c" out "PASS: hv: spill page holds the trap" &&
	has "$c" out "PASS: hv: SendIpiEx XMM-fast: set only in XMM0" &&
	hv_flush_ran_or_skipped "$c" && ok "$c"

c="hv: 4 vCPUs, --no-hv-xmm"
hv_run "$c" --no-hv-xmm &&
	has "$c" out "PASS: hv: CPUID 0x40000003.EDX XMM input bit (off)" &&
	has "$c" out "PASS: hv: XMM-fast call 0x2 without XMM input: #UD" &&
	has "$c" out "SKIP: hv: SendSyntheticClusterIpiEx XMM-fast cases" &&
	hv_flush_ran_or_skipped "$c" && ok "$c"

c="hv: 4 vCPUs, --no-hyperv"
hv_run "$c" --no-hyperv &&
	has "$c" out "SKIP: hv: Hyper-V (Hyper-V not offered" &&
	has "$c" out "PASS: hv: without Hyper-V, MSR 0x40000001: rdmsr and wrmsr #GP" &&
	has "$c" out "PASS: hv: KVM leaves (\"KVMKVMKVM\") at 0x40000000" && ok "$c"

# KVM's own Hyper-V (--hv-impl kvm; docs/hyperv.md, "minivmm against KVM"):
# the same suites against KVM's in-kernel implementation. Each case KVM
# answers otherwise is checked against KVM's answer and named with its
# verdict; the counts below are KVM 6.1's (the nested VMs' L1). A KVM with
# no Hyper-V (kvm_pvm) must be refused by name.

# hv_kvm_refused NAME: exit 2 naming KVM_CAP_HYPERV on kvm_pvm; else false.
hv_kvm_refused() {
	grep -qF "KVM on this host (pvm backend) lacks KVM_CAP_HYPERV " "$T/err" || return 1
	ok "$1 (refused on kvm_pvm, which has no KVM_CAP_HYPERV)"
}

# hv_kvm_run NAME VCPUS SUITE: run SUITE under KVM's Hyper-V with --stats.
hv_kvm_run() {
	timeout "$RUN_LIMIT" "$VMM" --hv-impl kvm --cpus "$2" --stats --timeout 120 "$ELF" -- "$3" \
		>"$T/out" 2>"$T/err" </dev/null
	hk_st=$?
	[ "$hk_st" -eq 2 ] && hv_kvm_refused "$1" && return 1
	if [ "$hk_st" -ne 0 ]; then
		bad "$1" "exit status $hk_st, expected 0"
		return 1
	fi
	has "$1" out "served by KVM's in-kernel Hyper-V" && has "$1" out " passed, 0 failed" &&
		has "$1" out "Hyper-V hypercalls: served inside KVM (--hv-impl kvm), not timed or counted here; 0 reached minivmm" ||
		return 1
	if grep -q "^FAIL" "$T/out" || grep -q "^  hv " "$T/out"; then
		bad "$1" "a FAIL line, or a hypercall minivmm's layer served"
		return 1
	fi
}

c="hv: 4 vCPUs, KVM's own Hyper-V (--hv-impl kvm)"
hv_kvm_run "$c" 4 hv &&
	has "$c" out "hv-features: under KVM's Hyper-V, 28 cases differ from minivmm's: 18 KVM deviations, 9 where the TLFS names no answer, 1 where minivmm is stricter" &&
	has "$c" out "PASS: hv: KVM delivered SendIpiEx to VP 0 (the valid member) alone, once" &&
	has "$c" out "PASS: hv: SendSyntheticClusterIpiEx XMM-fast to SET_ALL (4 VPs, sender included): exactly the targets, once" &&
	hv_flush_ran_or_skipped "$c" && ok "$c"

c="hostile: 3 vCPUs, KVM's own Hyper-V (--hv-impl kvm)"
hv_kvm_run "$c" 3 hostile &&
	has "$c" out "hostile: under KVM's Hyper-V, 43 cases differ from minivmm's" &&
	has "$c" out "PASS: hostile: VMM still serves hypercalls: a self-IPI arrives exactly once" &&
	ok "$c"
