# The sandbox (vmm/sandbox.c, docs/robustness.md): every thread really runs
# under its seccomp filter with no_new_privs; a forbidden call ends the run
# the documented way (exit 159, one line naming the call); and nothing
# minivmm legitimately does was left out of the filters: every suite,
# kvm-unit-tests, --json, --stats, --timeout, SIGINT and SIGTERM under them.
# (Every other area runs under the filters too: it is the default.)

SBX_TEST=$(dirname "$VMM")/build/minivmm-sandbox-test
sbx_line() {	# sbx_line CALL NR THREAD: the documented line
	echo "minivmm: sandbox: forbidden system call $1 ($2) in $3; exiting 159 (--no-sandbox turns the filters off)"
}

# sbx_threads PID WANT_SECCOMP WANT_NNP: poll (10 s at most) until minivmm
# has 3 user threads (main + 2 vCPUs) and each shows the wanted Seccomp mode
# (2 = filter, 0 = none) and NoNewPrivs in /proc.
sbx_threads() {
	tries=0
	while [ $tries -lt 100 ]; do
		n=0 good=0
		for s in /proc/"$1"/task/*/status; do
			[ -r "$s" ] || continue
			# KVM's own kernel task (kvm-nx-lpage-recovery) runs no user code.
			case $(cat "${s%status}comm" 2>/dev/null) in kvm-*) continue ;; esac
			n=$((n + 1))
			grep -q "^Seccomp:[[:space:]]*$2\$" "$s" && grep -q "^NoNewPrivs:[[:space:]]*$3\$" "$s" &&
				good=$((good + 1))
		done
		[ "$n" -eq 3 ] && [ "$good" -eq 3 ] && return 0
		sleep 0.1
		tries=$((tries + 1))
	done
	sbx_seen="$n threads, $good as wanted"
	return 1
}

# sbx_signal NAME SIGNAL STATUS SECCOMP NNP WORD [MINIVMM-OPTIONS...]: spin on
# 2 vCPUs, check every thread's filter state, stop it with SIGNAL.
sbx_signal() {
	c=$1 sig=$2 want=$3 mode=$4 nnp=$5 word=$6
	shift 6
	"$VMM" "$@" --cpus 2 "$ELF" -- spin >"$T/out" 2>"$T/err" </dev/null &
	pid=$!
	if sbx_threads "$pid" "$mode" "$nnp"; then threads=ok; else threads=$sbx_seen; fi
	kill "-$sig" "$pid"
	wait "$pid"
	got=$?
	if [ "$threads" != ok ]; then
		bad "$c" "threads' Seccomp/NoNewPrivs: $threads"
	elif [ "$got" -ne "$want" ]; then
		bad "$c" "exit status $got after SIG$sig, expected $want"
	elif grep -qF "forbidden system call" "$T/err"; then
		bad "$c" "the sandbox refused a call"
	else
		has "$c" err "$word" && ok "$c"
	fi
}

sbx_signal "sandbox: main and both vCPU threads filtered with no_new_privs; SIGINT stops them" \
	INT 130 2 1 "interrupted"
has "sandbox banner" out "minivmm: sandbox on (seccomp filter per thread, no_new_privs)" &&
	ok "sandbox banner says on"
sbx_signal "sandbox: SIGTERM under the filters" TERM 143 2 1 "terminated"
# Job control (^Z, fg) or a debugger: stopped and continued mid-sleep, the
# kernel resumes a vCPU's clock_nanosleep with restart_syscall.
c="sandbox: SIGSTOP and SIGCONT five times during stress: the run still passes"
"$VMM" --cpus 4 --timeout 120 "$ELF" -- stress 4 >"$T/out" 2>"$T/err" </dev/null &
pid=$!
sleep 1.5
for i in 1 2 3 4 5; do
	kill -STOP "$pid" 2>/dev/null
	sleep 0.1
	kill -CONT "$pid" 2>/dev/null
	sleep 0.3
done
wait "$pid"
got=$?
if grep -qF "forbidden system call" "$T/err"; then
	bad "$c" "the sandbox refused a call: $(grep -F forbidden "$T/err" | head -1)"
elif [ "$got" -ne 0 ]; then
	bad "$c" "exit status $got"
else
	ok "$c"
fi
sbx_signal "--no-sandbox: no filter, no no_new_privs on any thread" TERM 143 0 0 "terminated" \
	--no-sandbox
has "--no-sandbox banner" out "minivmm: sandbox OFF (--no-sandbox" && ok "--no-sandbox banner says OFF"

if [ ! -x "$SBX_TEST" ]; then
	skip "sandbox: forbidden calls" "no test build $SBX_TEST (make build/minivmm-sandbox-test)"
else
	# sbx_selftest NAME WHAT STATUS [OPTIONS...]: the test build tries WHAT.
	sbx_selftest() {
		c=$1 what=$2 want=$3
		shift 3
		vmm_saved=$VMM
		VMM=$SBX_TEST
		MINIVMM_SANDBOX_SELFTEST=$what
		export MINIVMM_SANDBOX_SELFTEST
		run "$c" "$want" -- --cpus 2 --timeout 60 "$@" "$ELF"
		r=$?
		unset MINIVMM_SANDBOX_SELFTEST
		VMM=$vmm_saved
		return $r
	}
	# sbx_forbidden WHAT CALL NR THREAD...: WHAT dies with the line naming CALL.
	sbx_forbidden() {
		what=$1 call=$2 nr=$3
		shift 3
		c="sandbox: $what after the filter: exit 159 and the line naming it"
		line=$(sbx_line "$call" "$nr" "$*")
		sbx_selftest "$c" "$what" 159 && has "$c" err "$line" || return
		if grep -qF "returned" "$T/err"; then bad "$c" "the call came back"
		elif [ "$(grep -c "forbidden system call" "$T/err")" -ne 1 ]; then
			bad "$c" "not exactly one sandbox line"
		else ok "$c"; fi
	}
	sbx_forbidden vcpu-openat openat 257 a vCPU thread
	sbx_forbidden vcpu-socket socket 41 a vCPU thread
	sbx_forbidden main-openat openat 257 the main thread
	# The control: the same build, the same call, no filter: it succeeds.
	c="sandbox: the same openat with --no-sandbox succeeds and the run passes"
	sbx_selftest "$c" vcpu-openat 0 --no-sandbox &&
		has "$c" err "sandbox selftest: vcpu thread: openat returned a descriptor" &&
		has "$c" out " passed, 0 failed" && ok "$c"
fi

# Every suite the payload lists, under the filters. STATUS is the suite's
# own (hostile-records and flood exit 1 by design); steal needs a quiet host
# (cases.d/steal.sh runs it), spin ends by --timeout or a signal (above).
sbx_suites="smoke:0:2 hv:0:4 vmexit:0:1 ipi:0:2 flush:0:3 preempt-call_1:0:2 locks_1:0:2
hostile:0:2 hostile-records:1:1 stress_1:0:4 flood_50:1:1 unclaimed:0:1 exit_7:7:1 triple-fault:3:1"
for s in $sbx_suites; do
	suite=$(echo "$s" | cut -d: -f1 | tr _ ' ')
	want=$(echo "$s" | cut -d: -f2)
	cpus=$(echo "$s" | cut -d: -f3)
	c="sandbox: suite '$suite' ($cpus vCPUs) under the filters"
	# shellcheck disable=SC2086
	run "$c" "$want" -- --cpus "$cpus" --iters 2 --timeout 120 "$ELF" -- $suite &&
		if grep -qF "forbidden system call" "$T/err"; then bad "$c" "the sandbox refused a call"
		else ok "$c"; fi
done

c="sandbox: --json, --stats and a --timeout stop under the filters"
run "$c" 3 -- --cpus 2 --stats --json "$T/sbx.json" --timeout 2 "$ELF" -- spin &&
	has "$c" err "timeout" && has "$c" out "exits per vCPU:" &&
	if grep -qF '"exit_status": 3' "$T/sbx.json"; then ok "$c"
	else bad "$c" "the JSON lacks exit_status 3"; fi

kut_dir=${KUT_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/fixtures/kvm-unit-tests}
# The exits kut.sh's vmexit case does not reach (scripts/sandbox-trace.sh runs all 29).
c="sandbox: kvm-unit-tests vmexit.flat: DR, WBINVD, self-IPI+HLT, IPI+HLT, MSR, PCI under the filters"
sbx_kut="mov_dr wbinvd self_ipi_sti_hlt ipi_halt wr_tsc_adjust_msr pci-io"
if [ ! -r "$kut_dir/vmexit.flat" ]; then
	skip "$c" "fixtures not found in $kut_dir (set KUT_DIR)"
else
	# Its bound follows the guest's TSC rate (cases.sh: kut_vmexit_bound).
	sbx_mhz=$(guest_tsc_mhz)
	sbx_bound=$(kut_vmexit_bound "$(echo $sbx_kut | wc -w)" "$sbx_mhz")
	sbx_limit=$RUN_LIMIT
	RUN_LIMIT=$((sbx_bound + 30))
	# shellcheck disable=SC2086
	run "$c" 0 -- --cpus 2 --timeout "$sbx_bound" "$kut_dir/vmexit.flat" -- $sbx_kut &&
		has "$c" out "wr_tsc_adjust_msr " && has "$c" out "pci-io (skipped)" &&
		ok "$c (bound ${sbx_bound} s: guest TSC ${sbx_mhz:-?} MHz)"
	RUN_LIMIT=$sbx_limit
fi

# The --json file is opened before the sandbox (the main thread may write it, not open it):
# a path that cannot be written is refused up front, before the guest runs.
c="--json to an unwritable path: exit 2 before the guest runs"
run "$c" 2 -- --json /nonexistent/dir/r.json --timeout 30 "$ELF" &&
	has "$c" err "cannot write /nonexistent/dir/r.json: No such file or directory" &&
	if grep -qF "suite smoke" "$T/out"; then bad "$c" "the guest ran"; else ok "$c"; fi
