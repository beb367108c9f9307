# The VMX area `make check` runs on every submission, inside Bochs with an
# emulated Intel CPU (tests/integration/bochs.sh vmx ci). Few cases, each chosen for
# a place where VMX differs from kvm_pvm and SVM: VM entry of minivmm's
# 64-bit state and of a Multiboot kernel's 32-bit one, fast PIO leaving RIP
# on the OUT (#UD must land on the trapping instruction), IPIs, Hyper-V.
# Sourced by cases.sh (run, has, ok, bad, skip). The full set: bochs.sh vmx full.

c="VMX: smoke with 2 vCPUs"
run "$c" 0 -- --cpus 2 --timeout 120 "$ELF" && on_backend "$c" vmx &&
	has "$c" out "minivmm: 2 vCPU" && has "$c" out "PASS: smoke: ud2 at CPL3 caught as #UD" &&
	has "$c" out "PASS: smoke: cli at CPL3 runs on vmx/svm" &&
	has "$c" out "PASS: smoke: barrier whose wake-up IPI is lost: the backstop timer ends the wait" &&
	has "$c" out "PASS: smoke: smp_call whose wake-up IPI is lost: the caller sends it again" &&
	has "$c" out "19 passed, 0 failed" &&
	if grep -qF "guest spill 0.00 us" "$T/out"; then bad "$c" "an unresolved spill cost shown as 0.00 us"
	else ok "$c"; fi

# Refused hypercalls through the trap OUT itself: the #UD must land on it
# (the guest's exception table only knows that address).
c="VMX: hv-features with 2 vCPUs, #UD on the trapping OUT"
run "$c" 0 -- --cpus 2 --timeout 120 "$ELF" -- hv-features && on_backend "$c" vmx &&
	has "$c" out "PASS: hv-features: hypercall with the page disabled raises #UD" &&
	has "$c" out " passed, 0 failed" &&
	if grep -q "^FAIL" "$T/out"; then bad "$c" "a FAIL line"; else ok "$c"; fi

c="VMX: --no-hv-xmm: XMM-fast call without XMM input raises #UD on the OUT"
run "$c" 0 -- --cpus 2 --no-hv-xmm --timeout 120 "$ELF" -- hv-features &&
	has "$c" out "PASS: hv-features: XMM-fast call 0x2 without XMM input: #UD" &&
	has "$c" out " passed, 0 failed" && ok "$c"

# At CPL3 the OUT to the hypercall port (imm8, DX, rep outsb) must fault on
# itself: VMX's fast PIO exit leaves RIP on it, kvm_pvm's emulation past it.
c="VMX: hostile guest (2 vCPUs): CPL3 trap OUTs raise #UD on themselves"
run "$c" 0 -- --cpus 2 --mem 64M --timeout 240 "$ELF" -- hostile &&
	has "$c" out "PASS: hostile: CPL3: out %al, %dx (1 byte) raises #UD on itself" &&
	has "$c" out "PASS: hostile: CPL3: rep outsb to the port raises #UD on itself" &&
	has "$c" out "PASS: hostile: VMM still serves hypercalls" &&
	has "$c" out " passed, 0 failed" && ok "$c"

# KVM's own Hyper-V on VMX (--hv-impl kvm; docs/hyperv.md, "minivmm against
# KVM"): its page holds VMCALL, and with kvm_intel's APIC-access page the
# LAPIC page is memory to KVM (seen here, not on nested SVM without AVIC).
c="VMX: hv-features and hostile under KVM's own Hyper-V (--hv-impl kvm)"
run "$c" 0 -- --cpus 2 --mem 64M --hv-impl kvm --timeout 240 "$ELF" -- hv-features hostile &&
	on_backend "$c" vmx && has "$c" out "served by KVM's in-kernel Hyper-V" &&
	has "$c" out "PASS: hv-features: KVM's page: vmcall; ret, the rest left zero" &&
	has "$c" out "hv-features: under KVM's Hyper-V, 28 cases differ from minivmm's" &&
	has "$c" out "hostile: under KVM's Hyper-V, " &&
	has "$c" out "PASS: hostile: GPA of the LAPIC page" &&
	if grep -q "^FAIL" "$T/out"; then bad "$c" "a FAIL line"; else ok "$c"; fi

# The emulator's own bug (IF=0 in L2 masked host interrupts) made this hang
# for good with Debian's Bochs: this proves the test bed is the fixed one.
c="VMX: --timeout ends a guest spinning with IF=0"
run "$c" 3 -- --cpus 2 --timeout 2 "$ELF" -- spin &&
	has "$c" err "timeout" && has "$c" err "vCPU 1: RIP=" && ok "$c"

vmx_top=$(cd "$(dirname "$0")/../.." && pwd)
KUT_DIR=${KUT_DIR:-$vmx_top/../shared/fixtures/kvm-unit-tests}
c="VMX: kvm-unit-tests smptest.flat with 2 vCPUs (Multiboot 32-bit entry)"
if [ ! -r "$KUT_DIR/smptest.flat" ]; then
	skip "$c" "fixture not found in $KUT_DIR (set KUT_DIR)"
else
	run "$c" 0 -- --cpus 2 --timeout 120 "$KUT_DIR/smptest.flat" &&
		has "$c" out "found 2 cpus" && has "$c" out "PASS: IPI to each CPU" &&
		has "$c" out "SUMMARY: 1 tests" && ok "$c"
fi
