# Cases the per-host areas do not hold, run on VMX by `make check-vmx`
# (tests/integration/vmx.sh full). Behaviour only, no timing judged.

c="VMX: preempt-call with 2 vCPUs (--iters 20, 100 ms windows): mutual exclusion per hook"
run "$c" 0 -- --cpus 2 --iters 20 --timeout 240 "$ELF" -- preempt-call &&
	has "$c" out "kvm backend vmx" &&
	has "$c" out "PASS: preempt-call: lock slow path with hook: mutual exclusion" &&
	has "$c" out " 0 failed" &&
	if grep -q "^FAIL" "$T/out"; then bad "$c" "a FAIL line"; else ok "$c"; fi
