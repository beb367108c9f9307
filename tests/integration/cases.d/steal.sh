# Steal time, published preempted flags and the pv-lock variants (guest
# suites steal and locks; docs/pvtime.md). Behaviour only: which checks
# passed, the exit status, and --stats counting a preempted episode for the
# vCPU the VMM held out. No timing is judged.

# Twice the host CPUs is overcommitted (the guest takes at most 64 vCPUs).
st_host=$(grep -c '^processor' /proc/cpuinfo 2>/dev/null || echo 1)
st_cpus=$((st_host * 2))
[ "$st_cpus" -gt 64 ] && st_cpus=4
[ "$st_cpus" -lt 4 ] && st_cpus=4

c="steal: $st_cpus vCPUs on $st_host host CPUs, preempted flag during a VMM hold"
if run "$c" 0 -- --cpus "$st_cpus" --stats --timeout 120 "$ELF" -- steal; then
	if grep -qF "SKIP: steal: steal time and preempted flags" "$T/out"; then
		skip "$c" "$(grep -F 'SKIP: steal: steal time' "$T/out")"
	elif has "$c" out "PASS: steal: MSR_KVM_STEAL_TIME enabled on every vCPU" &&
		has "$c" out "PASS: steal: target's preempted flag set while the VMM holds it out" &&
		has "$c" out "PASS: steal: vCPU 0 sees the target's preempted flag cleared after it ran" &&
		has "$c" out "PASS: steal: two vCPUs pausing each other: both requests answered" &&
		has "$c" out "PASS: steal: bad control requests return MVM_CTRL_EINVAL" &&
		has "$c" out " 0 failed"; then
		if [ "$st_host" -lt "$st_cpus" ] &&
			! grep -qF "PASS: steal: overcommitted: steal grew on at least one vCPU" "$T/out"; then
			bad "$c" "overcommitted, but no PASS for growing steal"
		elif grep -qE '^  vCPU 1: .* preempted-episodes=[1-9]' "$T/out"; then
			ok "$c"
		else
			bad "$c" "--stats shows no preempted episode for vCPU 1"
		fi
	fi
fi

c="steal: one vCPU, not overcommitted: steal stays small"
run "$c" 0 -- --cpus 1 --timeout 60 "$ELF" -- steal &&
	if grep -qF "SKIP: steal: steal time and preempted flags" "$T/out"; then
		skip "$c" "no steal time offered"
	elif has "$c" out "PASS: steal: not overcommitted: mean steal below half the elapsed time" &&
		has "$c" out "SKIP: steal: preempted flag during a VMM hold (needs 2 vCPUs)"; then
		ok "$c"
	fi

# Async page faults: KVM serves the MSRs; minivmm only offers the bits (vmm/cpuid.c).
c="steal: async page faults offered with --pv kvm: KVM's wake-all event arrives on the vector"
run "$c" 0 -- --pv kvm --timeout 60 "$ELF" -- steal &&
	if grep -qF "SKIP: steal: async page faults (KVM's leaves do not offer" "$T/out"; then
		skip "$c" "$(grep -F 'SKIP: steal: async page faults' "$T/out")"
	elif has "$c" out "PASS: steal: async page faults: the MSRs take a vector and a record" &&
		has "$c" out "PASS: steal: async page faults: the wake-all event arrives on the vector"; then
		ok "$c"
	fi

c="steal: --pv none offers no KVM leaves, so no async page faults"
run "$c" 0 -- --pv none --timeout 60 "$ELF" -- steal &&
	has "$c" out "SKIP: steal: async page faults (KVM's leaves do not offer ASYNC_PF and ASYNC_PF_INT (features 0x0))" &&
	ok "$c"

c="locks check: mutual exclusion for spin, pv-spin+hlt, hlt+ipi (4 vCPUs, --iters 200)"
run "$c" 0 -- --cpus 4 --iters 200 --timeout 120 "$ELF" -- locks check &&
	has "$c" out "PASS: locks: mutual exclusion, spin: counter 800, 800 acquisitions" &&
	has "$c" out "PASS: locks: mutual exclusion, pv-spin+hlt: counter 800, 800 acquisitions" &&
	has "$c" out "PASS: locks: mutual exclusion, hlt+ipi: counter 800, 800 acquisitions" &&
	has "$c" out " 0 failed" &&
	if grep -qF "SKIP: locks: pv waiter halts while the holder is held out (no steal" "$T/out" ||
		has "$c" out "PASS: locks: pv waiter saw the holder preempted, halted, and was kicked awake"; then
		ok "$c"
	fi
