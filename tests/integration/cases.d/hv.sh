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
