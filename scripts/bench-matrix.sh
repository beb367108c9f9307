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

emit_file() {
	[ "$emit" = 1 ] && [ -f "$OUT/$1" ] || return 0
	echo "@@bench-file $1"
	cat "$OUT/$1"
	echo
	echo "@@bench-end"
}

[ "${BENCH_QUICK:-0}" = 1 ] && MATRIX=$QUICK
total=$(echo "$MATRIX" | grep -c '|')
i=0
echo "$MATRIX" | while IFS='|' read -r name opts suite; do
	[ -n "$name" ] || continue
	i=$((i + 1))
	echo "bench: [$i/$total] $name: minivmm $opts${EXTRA:+ $EXTRA} -- $suite" >&2
	t0=$(date +%s)
	# shellcheck disable=SC2086 # options are words on purpose
	"$VMM" $opts $EXTRA --timeout "$RUN_TIMEOUT" --json "$OUT/$name.json" "$ELF" -- "$suite" \
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
