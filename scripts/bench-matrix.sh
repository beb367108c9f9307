#!/bin/sh
# bench-matrix.sh - run the standard measurement matrix once, one minivmm
# process per row, each with --json. POSIX sh: it also runs under busybox
# inside the nested VM (scripts/bench.sh decides where it runs).
#
# Usage: bench-matrix.sh [--emit] MINIVMM GUEST_ELF OUTDIR [MINIVMM-OPTIONS...]
#   OUTDIR/NAME.json, NAME.log (stdout+stderr), NAME.status per row.
#   --emit   also print each file on stdout between "@@bench-file NAME" and
#            "@@bench-end" lines (how results leave the nested VM).
#   MINIVMM-OPTIONS go to every run (e.g. --iters 200).
# BENCH_QUICK=1 runs the reduced matrix (vmexit-1, ipi-2, flush-2: about
# 30 s on a 2-CPU kvm_pvm host), enough for every headline ratio.
# BENCH_SET=hv-impl runs instead minivmm's Hyper-V layer against KVM's own
# (--hv-impl kvm): ipi, flush and the correctness suites hv-ipi + hv-flush
# under each (make bench-hv-impl; docs/results/hv-impl.md; see hv_impl_rows).
# BENCH_SET=linux boots a Linux kernel (GUEST_ELF) with the test initramfs
# (in MINIVMM-OPTIONS: --initrd) and runs its workloads under each
# paravirtual path (make bench-linux; docs/results/linux.md; linux_rows).
# Progress: one line per row on stderr. Exit status: 0 even when a row
# failed (its .status says so; the report shows it).
set -u
emit=0
if [ "${1:-}" = --emit ]; then emit=1; shift; fi
VMM=${1:?usage: bench-matrix.sh [--emit] MINIVMM GUEST_ELF OUTDIR [OPTIONS...]}
ELF=${2:?guest.elf}
OUT=${3:?output directory}
shift 3
EXTRA="$*"
RUN_TIMEOUT=${BENCH_RUN_TIMEOUT:-1800}
mkdir -p "$OUT"

# NAME | minivmm options | suite. ipi and flush need 2+ vCPUs; 8 vCPUs is
# overcommitted on a 2-CPU host (the JSON and the report say so). The
# bare/normal null-port comparison is inside vmexit (interleaved rows).
QUICK="
vmexit-1|--cpus 1|vmexit
ipi-2|--cpus 2|ipi
flush-2|--cpus 2|flush
"
MATRIX="
vmexit-1|--cpus 1|vmexit
vmexit-2|--cpus 2|vmexit
vmexit-4|--cpus 4|vmexit
vmexit-8|--cpus 8|vmexit
ipi-2|--cpus 2|ipi
ipi-4|--cpus 4|ipi
ipi-8|--cpus 8|ipi
flush-2|--cpus 2|flush
flush-4|--cpus 4|flush
flush-8|--cpus 8|flush
xmm-ioctl-vmexit-1|--cpus 1 --hv-xmm-path ioctl|vmexit
xmm-spill-vmexit-1|--cpus 1 --hv-xmm-path spill|vmexit
xmm-ioctl-ipi-2|--cpus 2 --hv-xmm-path ioctl|ipi
xmm-spill-ipi-2|--cpus 2 --hv-xmm-path spill|ipi
xmm-ioctl-flush-2|--cpus 2 --hv-xmm-path ioctl|flush
xmm-spill-flush-2|--cpus 2 --hv-xmm-path spill|flush
kvmhv-ipi-2|--cpus 2 --hv-impl kvm|ipi
kvmhv-flush-2|--cpus 2 --hv-impl kvm|flush
preempt-call-2|--cpus 2|preempt-call
preempt-call-4|--cpus 4|preempt-call
locks-2|--cpus 2|locks
locks-4|--cpus 4|locks
locks-8|--cpus 8|locks
"
# The same rows under each implementation: NAME under minivmm's layer,
# kvmhv-NAME under KVM's (scripts/hv-impl-report.py pairs them by name).
# The timed suites at each count of BENCH_HV_IMPL_CPUS (default 2 4; under
# TCG ipi at 4 vCPUs ran past 14 minutes, so the nested run asks for 2),
# the correctness suites at 2 and 4 always.
hv_impl_rows() {
	for n in ${BENCH_HV_IMPL_CPUS:-2 4}; do
		for s in ipi flush; do
			echo "$s-$n|--cpus $n|$s"
			echo "kvmhv-$s-$n|--cpus $n --hv-impl kvm|$s"
		done
	done
	for n in 2 4; do
		echo "check-$n|--cpus $n|hv-ipi hv-flush"
		echo "kvmhv-check-$n|--cpus $n --hv-impl kvm|hv-ipi hv-flush"
	done
}

# Linux's own paravirtual code (tests/linux/work/, docs/linux-work.md), one
# boot a row, named linux-VARIANT-CPUS-rROUND: shootdown and membarrier on
# Hyper-V's hypercalls (hv), on the native path with every hint taken away
# (native) and as a KVM guest (kvm, PV flush); mmaplock with vCPUs held out
# on a schedule, 'preempted' published (told) or not (hidden). Each round
# runs the variants in the opposite order to the one before. Environment:
# BENCH_LINUX_CPUS (default 1 2 4), BENCH_LINUX_ROUNDS (3), BENCH_LINUX_OPS
# (mvm.work.ops, 1000: operations per timed case; mmaplock runs OPS/100 s).
linux_variants() {	# linux_variants CPUS
	local w="mvm.cpus=$1 mvm.tx=0 mvm.end=poweroff mvm.work.ops=${BENCH_LINUX_OPS:-1000}"
	echo "hv|--cpus $1 --pv hyperv|$w mvm.work=shootdown,membarrier"
	echo "native|--cpus $1 --pv hyperv --hv-hints none|$w mvm.work=shootdown,membarrier"
	echo "kvm|--cpus $1 --pv kvm|$w mvm.work=shootdown,membarrier"
	[ "$1" -gt 1 ] || return 0
	echo "told|--cpus $1 --pv kvm --preempt 1-$(($1 - 1)):2ms:10ms|$w mvm.work=mmaplock"
	echo "hidden|--cpus $1 --pv kvm --preempt 1-$(($1 - 1)):2ms:10ms:hidden|$w mvm.work=mmaplock"
}

linux_rows() {
	local r n order
	for r in $(seq 1 "${BENCH_LINUX_ROUNDS:-3}"); do
		for n in ${BENCH_LINUX_CPUS:-1 2 4}; do
			order=cat
			[ $((r % 2)) -eq 0 ] && order='sed -n 1!G;h;$p'
			linux_variants "$n" | $order | sed "s/^\([a-z]*\)|/linux-\1-$n-r$r|/"
		done
	done
}

emit_file() {
	[ "$emit" = 1 ] && [ -f "$OUT/$1" ] || return 0
	echo "@@bench-file $1"
	cat "$OUT/$1"
	echo
	echo "@@bench-end"
}

[ "${BENCH_QUICK:-0}" = 1 ] && MATRIX=$QUICK
case ${BENCH_SET:-full} in
full) ;;
hv-impl) MATRIX=$(hv_impl_rows) ;;
linux) MATRIX=$(linux_rows) ;;
*) echo "bench-matrix.sh: BENCH_SET '$BENCH_SET': full, hv-impl or linux" >&2; exit 2 ;;
esac
total=$(echo "$MATRIX" | grep -c '|')
i=0
echo "$MATRIX" | while IFS='|' read -r name opts suite; do
	[ -n "$name" ] || continue
	i=$((i + 1))
	echo "bench: [$i/$total] $name: minivmm $opts${EXTRA:+ $EXTRA} -- $suite" >&2
	t0=$(date +%s)
	# shellcheck disable=SC2086 # options are words on purpose
	"$VMM" $opts $EXTRA --timeout "$RUN_TIMEOUT" --json "$OUT/$name.json" "$ELF" -- $suite \
		>"$OUT/$name.log" 2>&1 </dev/null
	st=$?
	echo "$st" >"$OUT/$name.status"
	echo "bench: [$i/$total] $name: exit $st after $(($(date +%s) - t0)) s" >&2
	[ "$st" = 0 ] || tail -n 5 "$OUT/$name.log" | sed 's/^/bench:   /' >&2
	emit_file "$name.json"
	emit_file "$name.log"
	emit_file "$name.status"
done
exit 0
