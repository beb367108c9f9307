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

# KVM's own Hyper-V (--hv-impl kvm) has an area of its own, hvkvm, which
# stays in the nested VM on kvm_pvm. Here, on this host's KVM: where it has
# no in-kernel Hyper-V (kvm_pvm), minivmm must refuse the option by name.
c="hv: --hv-synic without --hv-impl kvm: exit 2 (minivmm's own layer has no SynIC)"
run "$c" 2 -- --hv-synic --timeout 60 "$ELF" -- smoke &&
	has "$c" err "--hv-synic: minivmm's own Hyper-V layer has no SynIC or synthetic timers; they are KVM's (add --hv-impl kvm)" &&
	ok "$c"

c="hv: --hv-impl kvm on a KVM without KVM_CAP_HYPERV: exit 2, naming it"
timeout "$RUN_LIMIT" "$VMM" --hv-impl kvm --timeout 60 "$ELF" -- hv-features \
	>"$T/out" 2>"$T/err" </dev/null
hk_st=$?
if [ "$hk_st" -eq 2 ]; then
	has "$c" err "lacks KVM_CAP_HYPERV (KVM's in-kernel Hyper-V); use --hv-impl minivmm" && ok "$c"
elif [ "$hk_st" -eq 0 ] && grep -qF "served by KVM's in-kernel Hyper-V" "$T/out"; then
	skip "$c" "this KVM has KVM_CAP_HYPERV: the hvkvm area runs the suites under it"
else
	bad "$c" "exit status $hk_st: neither the refusal nor a run under KVM's Hyper-V"
fi
