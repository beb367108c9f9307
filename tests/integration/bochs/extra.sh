# Cases the per-host areas do not hold, run under Bochs by `make check-vmx`
# and `make check-svm-bochs` (tests/integration/bochs.sh ARCH full): MVM_BED
# names the test bed in each case, MVM_BED_BACKEND is what minivmm's banner
# must say (vmx or svm; on_backend). Behaviour only, no timing judged.
bed=${MVM_BED:-VMX}
bed_backend=${MVM_BED_BACKEND:-vmx}

c="$bed: preempt-call with 2 vCPUs (--iters 20, 100 ms windows): mutual exclusion per hook"
run "$c" 0 -- --cpus 2 --iters 20 --timeout 240 "$ELF" -- preempt-call &&
	on_backend "$c" "$bed_backend" &&
	has "$c" out "PASS: preempt-call: lock slow path with hook: mutual exclusion" &&
	has "$c" out " 0 failed" &&
	if grep -q "^FAIL" "$T/out"; then bad "$c" "a FAIL line"; else ok "$c"; fi

# hv.sh accepts a SKIP of the flush cases where no stale translation shows;
# under Bochs the negative control must really run, or this says it did not.
c="$bed: hv-flush with 2 vCPUs: the negative control sees a stale read, every flush works"
if run "$c" 0 -- --cpus 2 --timeout 240 "$ELF" -- hv-flush && has "$c" out " passed, 0 failed"; then
	if grep -qF "PASS: hv-flush: negative control: without a flush" "$T/out"; then ok "$c"
	else skip "$c" "$(grep -m1 -F 'SKIP: hv-flush: flush cases' "$T/out")"; fi
fi
