# The foundation: boots with 1-8 vCPUs, every crash and error path, the
# watchdog, signals, --stats and --json, bad files, options and devices.

for n in 1 2 4; do
	c="smoke with $n vCPU(s)"
	run "$c" 0 -- --cpus "$n" --timeout 60 "$ELF" &&
		has "$c" out "minivmm: $n vCPU" && has "$c" out "PASS: " &&
		has "$c" out " passed, 0 failed" && ok "$c"
done

# KVM_GET_SUPPORTED_CPUID of older KVMs leaves the bit out; minivmm sets it
# from KVM_CAP_TSC_DEADLINE_TIMER (vmm/cpuid.c), and -tsc-deadline takes it away.
c="smoke: the TSC-deadline timer is offered and fires once"
run "$c" 0 -- --timeout 60 "$ELF" -- smoke &&
	has "$c" out "PASS: smoke: TSC-deadline timer: one interrupt for one deadline, the MSR 0 after it" &&
	ok "$c"
c="smoke: --cpu-features -tsc-deadline hides it"
run "$c" 0 -- --cpu-features -tsc-deadline --timeout 60 "$ELF" -- smoke &&
	has "$c" out "SKIP: smoke: TSC-deadline timer (CPUID.1:ECX[24] is clear)" && ok "$c"

c="overcommitted smoke (8 vCPUs)"
run "$c" 0 -- --cpus 8 --timeout 120 "$ELF" && has "$c" out "(overcommitted)" && ok "$c"

c="triple fault gives exit 3 and a register dump"
run "$c" 3 -- --timeout 30 "$ELF" -- triple-fault &&
	has "$c" err "triple fault" && has "$c" err "RIP=" && has "$c" err "CR0=" &&
	has "$c" err "CS=" && has "$c" err "EFER=" && ok "$c"

# KVM on SVM resets a vCPU that shut down: the dump must say it is not the
# faulting state there, and must not say so where KVM keeps that state.
c="triple fault: the dump says whether KVM reset the vCPU"
if run "$c" 3 -- --timeout 30 "$ELF" -- triple-fault; then
	if grep -q "kvm backend svm" "$T/out"; then
		has "$c" err "registers below are the x86 reset state" &&
			has "$c" err "stack: not shown (reset state" &&
			if grep -q "RSP+000:" "$T/err"; then bad "$c" "a stack dump of the reset state"
			else ok "$c"; fi
	elif grep -q "reset state" "$T/err"; then
		bad "$c" "reset state claimed off SVM: $(grep 'reset state' "$T/err" | head -1)"
	else
		ok "$c"
	fi
fi

c="--timeout ends a spinning guest, each of its 2 vCPUs dumped with the top of its stack"
if run "$c" 3 -- --cpus 2 --timeout 2 "$ELF" -- spin &&
	has "$c" err "timeout" && has "$c" err "vCPU 0: RIP=" && has "$c" err "vCPU 1: RIP=" &&
	has "$c" err "CR0="; then
	n=$(grep -c "^  RSP+000: [0-9a-f]\{16\}" "$T/err")
	if [ "$n" -eq 2 ]; then ok "$c"; else bad "$c" "$n stack dumps, expected 2"; fi
fi

# Past VCPU_DUMP_FULL_MAX (4) vCPUs a timeout prints one line a vCPU.
c="--timeout with 5 vCPUs: one RIP line each, no register or stack dump"
if run "$c" 3 -- --cpus 5 --timeout 2 "$ELF" -- spin && has "$c" err "vCPU 4: RIP="; then
	if grep -qE "CR0=|RSP\+000:" "$T/err"; then bad "$c" "a full dump past 4 vCPUs"; else ok "$c"; fi
fi

c="unclaimed port and MMIO read ones and are reported once"
run "$c" 0 -- --timeout 30 "$ELF" -- unclaimed &&
	has "$c" err "unclaimed port 0x2f8" && has "$c" err "unclaimed MMIO address 0xd0000000" &&
	if [ "$(grep -c 'unclaimed port 0x2f8' "$T/err")" -eq 1 ]; then ok "$c"
	else bad "$c" "port 0x2f8 reported more than once"; fi

c="vmcall raises #UD (quirk disabled)"
if "$VMM" --timeout 10 "$ELF" -- vmcall >"$T/out" 2>"$T/err" </dev/null; then
	ok "$c"
elif grep -qF "vmcall quirk NOT disabled" "$T/out"; then
	echo "SKIP: $c (KVM cannot disable KVM_X86_QUIRK_FIX_HYPERCALL_INSN here)"
else
	bad "$c" "guest reported failure"
fi

c="--stats prints exit counts"
run "$c" 0 -- --stats --timeout 60 "$ELF" && has "$c" out "exits per vCPU:" &&
	has "$c" out "vCPU 0:" && has "$c" out "IO=" && ok "$c"

c="--json writes a document"
run "$c" 0 -- --json "$T/r.json" --timeout 60 "$ELF" &&
	if grep -q '"environment"' "$T/r.json" && grep -q '"results"' "$T/r.json"; then ok "$c"
	else bad "$c" "JSON lacks environment or results"; fi

c="SIGTERM stops all vCPUs cleanly"
"$VMM" --cpus 2 "$ELF" -- spin >"$T/out" 2>"$T/err" </dev/null &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
got=$?
if [ "$got" -eq 143 ] && grep -qF "terminated" "$T/err"; then ok "$c"; else bad "$c" "status $got"; fi

c="missing payload file"
run "$c" 2 -- /nonexistent/guest.elf && has "$c" err "/nonexistent/guest.elf: No such file or directory" && ok "$c"

c="directory instead of a payload"
run "$c" 2 -- / && has "$c" err "/: is a directory" && ok "$c"

c="not an ELF payload"
run "$c" 2 -- "$0" && has "$c" err "not an ELF file" && ok "$c"

c="0 vCPUs"
run "$c" 2 -- --cpus 0 "$ELF" && has "$c" err "--cpus '0'" && ok "$c"

c="nonsense memory size"
run "$c" 2 -- --mem 12Q "$ELF" && has "$c" err "--mem '12Q': not a size" && ok "$c"

c="missing KVM device"
run "$c" 2 -- --kvm /nonexistent/kvm "$ELF" && has "$c" err "does not exist" && ok "$c"

c="KVM device that is not KVM"
run "$c" 2 -- --kvm /dev/null "$ELF" && has "$c" err "/dev/null" && ok "$c"
