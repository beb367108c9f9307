#!/usr/bin/env bash
# What each thread kind really calls once it is inside its seccomp filter:
# runs minivmm under `strace -f` on every suite, kvm-unit-tests' binaries,
# --json, --stats, --timeout, SIGINT and SIGTERM, and counts, per thread kind
# (main = the process's first thread, vCPU = the others), every system call
# made after that thread's own seccomp(SECCOMP_SET_MODE_FILTER) (ioctls by
# request, futex by operation, write by fd). vmm/sandbox.c's lists come from
# this; rerun it after changing what a thread does.
# Not part of make check (strace makes every exit a ptrace stop: minutes).
# LeakSanitizer's tracer (the ASan build) is cloned CLONE_UNTRACED and is
# invisible here; vmm/sandbox.c says how its needs were measured.
# Usage: scripts/sandbox-trace.sh [MINIVMM [GUEST_ELF [KUT_DIR]]]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
vmm=${1:-$top/minivmm}
elf=${2:-$top/guest.elf}
kut=${3:-$top/../shared/fixtures/kvm-unit-tests}
command -v strace >/dev/null || { echo "sandbox-trace: needs strace (apt-get install strace)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0

# trace DESCRIPTION -- MINIVMM-ARGS...: one traced run, log kept as $work/N.log.
trace() {
	local what=$1
	shift 2
	n=$((n + 1))
	timeout 600 strace -f -qq -o "$work/$n.log" "$vmm" "$@" >"$work/$n.out" 2>"$work/$n.err" </dev/null
	echo "sandbox-trace: run $n: exit $? ($what)"
	grep -h "forbidden system call" "$work/$n.err" || true
}

# trace_signal SIGNAL: a spinning guest stopped by SIGNAL after 2 s.
trace_signal() {
	n=$((n + 1))
	strace -f -qq -o "$work/$n.log" "$vmm" --cpus 2 "$elf" -- spin >"$work/$n.out" 2>"$work/$n.err" </dev/null &
	local pid=$! child
	sleep 3
	# The signal goes to minivmm, not to strace (which would only detach).
	child=$(pgrep -P "$pid" | head -n 1)
	kill "-$1" "${child:-$pid}"
	wait "$pid"
	echo "sandbox-trace: run $n: exit $? (spin, SIG$1)"
}

for c in 1 2 4 8; do trace "smoke, $c vCPUs" -- --cpus "$c" --timeout 300 "$elf"; done
trace "hv, ioctl path" -- --cpus 4 --timeout 300 --hv-xmm-path ioctl "$elf" -- hv
trace "hv, spill path" -- --cpus 4 --timeout 300 --hv-xmm-path spill "$elf" -- hv
trace "hv, --no-hv-xmm" -- --cpus 4 --timeout 300 --no-hv-xmm "$elf" -- hv
trace "hv, --no-hyperv" -- --cpus 4 --timeout 300 --no-hyperv "$elf" -- hv
trace "benchmarks, --json, --stats" -- --cpus 2 --iters 5 --timeout 600 --stats --json "$work/r.json" \
	"$elf" -- vmexit ipi flush
trace "steal, preempt-call, locks" -- --cpus 4 --iters 5 --timeout 600 "$elf" -- steal preempt-call 1 locks 1
trace "stress" -- --cpus 4 --timeout 300 "$elf" -- stress 1
trace "hostile" -- --cpus 2 --timeout 300 "$elf" -- hostile
trace "hostile-records" -- --timeout 300 "$elf" -- hostile-records
trace "flood" -- --timeout 300 "$elf" -- flood 200
trace "unclaimed" -- --timeout 300 "$elf" -- unclaimed
trace "vmcall" -- --timeout 60 "$elf" -- vmcall
trace "exit 5" -- --timeout 60 "$elf" -- exit 5
trace "triple fault" -- --timeout 60 "$elf" -- triple-fault
trace "watchdog" -- --cpus 2 --timeout 3 "$elf" -- spin
trace_signal INT
trace_signal TERM
# vmexit.flat: the tests docs/kut.md lists as completing on kvm_pvm (vmcall and
# the TSC-deadline ones hang there, under QEMU too).
kut_vmexit="cpuid mov_from_cr8 mov_to_cr8 inl_from_pmtimer inl_from_qemu inl_from_kernel
outl_to_kernel mov_dr wbinvd self_ipi_sti_nop self_ipi_sti_hlt self_ipi_tpr self_ipi_tpr_sti_nop
self_ipi_tpr_sti_hlt x2apic_self_ipi_sti_nop x2apic_self_ipi_sti_hlt x2apic_self_ipi_tpr
x2apic_self_ipi_tpr_sti_nop x2apic_self_ipi_tpr_sti_hlt ipi ipi_halt ple_round_robin
wr_kernel_gs_base wr_ibpb_msr wr_tsc_adjust_msr rd_tsc_adjust_msr wr_ibrs_msr pci-mem pci-io"
for f in "$kut"/*.flat; do
	[ -r "$f" ] || continue
	args=()
	# shellcheck disable=SC2206
	[ "$(basename "$f")" = vmexit.flat ] && args=(-- $kut_vmexit)
	trace "kvm-unit-tests $(basename "$f")" -- --cpus 2 --timeout 600 "$f" "${args[@]}"
	trace "kvm-unit-tests $(basename "$f") --hyperv" -- --hyperv --cpus 2 --timeout 600 "$f" "${args[@]}"
done

# Every call after each thread's own filter load, by thread kind.
awk '
	FNR == 1 { main = $1; delete in_filter }
	/<\.\.\. .* resumed>/ { next }
	/^[0-9]+ +seccomp\(SECCOMP_SET_MODE_FILTER, 0,/ && !in_filter[$1] { in_filter[$1] = 1; next }
	!in_filter[$1] { next }
	{
		kind = $1 == main ? "main" : "vcpu"
		call = $2
		sub(/\(.*/, "", call)
		if (call !~ /^[a-z_0-9]+$/)
			next
		detail = ""
		if (call == "ioctl" && match($0, /KVM_[A-Z_0-9]+/))
			detail = substr($0, RSTART, RLENGTH)
		else if (call == "futex" && match($0, /FUTEX_[A-Z_|]+/))
			detail = substr($0, RSTART, RLENGTH)
		else if (call == "write" && match($0, /write\([0-9]+/))
			detail = "fd " substr($0, RSTART + 6, RLENGTH - 6)
		else if (call == "tgkill" && match($0, /SIG[A-Z0-9]+/))
			detail = substr($0, RSTART, RLENGTH)
		count[kind " " call (detail == "" ? "" : " " detail)]++
	}
	END { for (k in count) printf "%-7s %s\n", count[k], k }
' "$work"/*.log | sort -b -k2,2 -k3,3 -k4 | awk '{ printf "%-6s %-22s %s\n", $2, $3, $4 " " $5 " " $6 " (" $1 ")" }'
