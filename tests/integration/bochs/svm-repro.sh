# The cases that hung or failed on AMD SVM under Bochs before
# svm-intr-mask.patch (../shared/vmx-bochs/README.md) and the project's own
# tests/nested/bochs-svm-shutdown.patch, bochs-svm-sstep.patch,
# bochs-lm-tr.patch, bochs-svm-cr2.patch and bochs-dr7-flush.patch, first in
# `make check-svm-bochs` (tests/integration/bochs.sh svm full): they prove
# the test bed is the fixed build. Sourced by cases.sh (run, has, ok, bad,
# skip). With the unpatched build (MINIVMM_BOCHS_DIR=an older build):
#   (1) VMRUN computed the interrupt mask before it entered guest mode, so a
#       pending V_IRQ never reached it: the CPL3 self-IPI with IF=1 was never
#       taken ("0 interrupts, interrupted CS 0x0");
#   (2) with V_INTR_MASKING and guest IF=0 the host's interrupts stayed
#       masked for good: a vCPU spinning with IF=0 kept its emulated CPU, so
#       `--timeout` could not end `spin`, the second vCPU came online late
#       (the smoke boot check), and an smp_call from a caller spinning with
#       IF=0 (hv-features' VP_INDEX check) never completed;
#   (3) a triple fault in the guest never became the SHUTDOWN intercept's
#       #VMEXIT: Bochs panicked ("3rd (13) exception with no resolution")
#       and the whole test VM was gone;
#   (4) a #VMEXIT kept the single-step trap scheduled for the intercepted
#       instruction, so the host took it: vmexit's path lengths (it
#       single-steps each hypercall row) triple-faulted the L1;
#   (5) turning on long mode was refused (#GP) while TR held a 16-bit TSS,
#       which KVM's SVM reset state gives every AP: kvm-unit-tests' second
#       vCPU triple-faulted right after its INIT/SIPI start;
#   (6) VMRUN did not load the guest's CR2 from the VMCB, so a guest ran with
#       the host's last faulting address in CR2 (seen in a Linux guest's dump:
#       an address of the L1's user space);
#   (7) every MOV to DR7 flushed Bochs' whole TLB: with KVM's DR intercepts
#       off after the first write ("won't exit" mode) vmexit.flat's mov_dr
#       loop crawled at some 30 times the wall time per emulated second, so
#       the L1 looked wedged for half an hour. The guest sees no difference
#       (its clock is Bochs' instruction count): the check is the group's
#       wall-time bound on silence (bochs.sh runs this group with --idle).

c="SVM-Bochs: smoke with 2 vCPUs: both online in time, CPL3 self-IPI with IF=1 taken (fix 1)"
run "$c" 0 -- --cpus 2 --timeout 120 "$ELF" && on_backend "$c" svm &&
	has "$c" out "minivmm: 2 vCPU" && has "$c" out "PASS: smoke: every vCPU came online" &&
	has "$c" out "PASS: smoke: self-IPI taken at CPL3 with IF=1" &&
	has "$c" out "PASS: smoke: cli at CPL3 runs on vmx/svm" &&
	has "$c" out "PASS: smoke: smp_call whose wake-up IPI is lost: the caller sends it again" &&
	has "$c" out "19 passed, 0 failed" && ok "$c"

# smp_call() waits with IF=0: the VP_INDEX check posts to vCPU 1 from vCPU 0.
c="SVM-Bochs: hv-features with 2 vCPUs: an smp_call from a caller spinning with IF=0 completes (fix 2)"
run "$c" 0 -- --cpus 2 --timeout 120 "$ELF" -- hv-features && on_backend "$c" svm &&
	has "$c" out "PASS: hv-features: VP_INDEX reads each vCPU's own index (2 vCPUs)" &&
	has "$c" out " passed, 0 failed" &&
	if grep -q "^FAIL" "$T/out"; then bad "$c" "a FAIL line"; else ok "$c"; fi

# One vCPU per emulated CPU spinning with IF=0 (cli; jmp .): --timeout must
# still get it out of guest mode.
for n in 1 2; do
	c="SVM-Bochs: --timeout ends a guest spinning with IF=0 ($n vCPUs, fix 2)"
	run "$c" 3 -- --cpus "$n" --timeout 2 "$ELF" -- spin &&
		has "$c" err "timeout" && has "$c" err "vCPU 0: RIP=" && ok "$c"
done

c="SVM-Bochs: a guest triple fault is KVM's SHUTDOWN exit, not the emulator's end (fix 3)"
run "$c" 3 -- --timeout 30 "$ELF" -- triple-fault && on_backend "$c" svm &&
	has "$c" err "triple fault" && has "$c" err "registers below are the x86 reset state" && ok "$c"

c="SVM-Bochs: vmexit single-steps hypercall paths across #VMEXITs, the host untouched (fix 4)"
run "$c" 0 -- --cpus 1 --iters 5 --timeout 120 "$ELF" -- vmexit && on_backend "$c" svm &&
	has "$c" out "PASS: vmexit: hypercall path lengths single-stepped, CPL0 instruction cost measured" &&
	has "$c" out " passed, 0 failed" && ok "$c"

# kvm-unit-tests' AP start turns on long mode before its LTR, with the busy
# 16-bit TSS of KVM's SVM reset state in TR.
c="SVM-Bochs: kvm-unit-tests smptest.flat with 2 vCPUs: the AP turns on long mode (fix 5)"
if [ ! -r "${KUT_DIR:-}/smptest.flat" ]; then
	skip "$c" "fixture not found in ${KUT_DIR:-KUT_DIR unset} (set KUT_DIR)"
else
	run "$c" 0 -- --cpus 2 --timeout 120 "$KUT_DIR/smptest.flat" && on_backend "$c" svm &&
		has "$c" out "found 2 cpus" && has "$c" out "PASS: IPI to each CPU" &&
		has "$c" out "SUMMARY: 1 tests" && ok "$c"
fi

# guest.elf's spin takes no page fault, so its CR2 is still the reset value
# when the timeout dumps it (KVM reads it back from the VMCB at each exit).
c="SVM-Bochs: a guest that never faulted dumps CR2=0, not the host's (fix 6)"
run "$c" 3 -- --cpus 1 --timeout 2 "$ELF" -- spin && on_backend "$c" svm &&
	has "$c" err "vCPU 0: RIP=" && has "$c" err " CR2=0 CR3=" && ok "$c"

# DR7 = 0x400 (no breakpoint) in a loop without exits on both vCPUs (the test
# runs on every CPU), 2^31-odd cycles of the guest's 50 MHz TSC: 37 s of wall
# time with the fix, 1406 s without (with one vCPU the old build's whole group
# took 221 s: too little for the bound to tell). Said before it runs, so an
# --idle kill names the case.
c="SVM-Bochs: kvm-unit-tests vmexit.flat mov_dr: DR7 writes without exits, in wall time (fix 7)"
if [ ! -r "${KUT_DIR:-}/vmexit.flat" ]; then
	skip "$c" "fixture not found in ${KUT_DIR:-KUT_DIR unset} (set KUT_DIR)"
else
	echo "RUNNING: $c (the group is killed after ${MVM_REPRO_IDLE:-its --idle} s of silence)"
	run "$c" 0 -- --cpus 2 --timeout 300 "$KUT_DIR/vmexit.flat" -- mov_dr && on_backend "$c" svm &&
		has "$c" out "mov_dr " && ok "$c"
fi
