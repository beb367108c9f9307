# Robustness (docs/robustness.md): a hostile guest, malformed result records
# and an overcommitted IPI + flush storm. Each must end the way the docs say,
# with exactly the messages they promise on stderr and nothing else.

# Addresses the hostile suite hammers (guest/tests/hostile_io.c), with a
# 64 MiB guest: 0x4000000 is the first byte past RAM.
HOSTILE_PORTS="0x80 0xfa 0xfb 0xcf8 0xcfc 0xfffc 0xffff 0xf3 0xf7"
HOSTILE_MMIO="0xc0001000 0xe0000000 0xfed00000 0xfffff000 0x4000000"

# once NAME PATTERN: PATTERN is on exactly one line of stderr.
once() {
	once_n=$(grep -cF -- "$2" "$T/err")
	[ "$once_n" -eq 1 ] && return 0
	bad "$1" "stderr has '$2' $once_n times, expected once"
	return 1
}

hostile_stderr_ok() {
	for p in $HOSTILE_PORTS; do once "$1" "unclaimed port $p (" || return 1; done
	for a in $HOSTILE_MMIO; do once "$1" "unclaimed MMIO address $a (" || return 1; done
	for g in 0x3fffff8 0x4000000 0xfffffff8; do
		once "$1" "control request at GPA $g is outside RAM" || return 1
	done
	if grep -v -e 'unclaimed port' -e 'unclaimed MMIO address' \
		-e 'control request at GPA' "$T/err" | grep -q .; then
		bad "$1" "stderr has lines it should not"
		return 1
	fi
	return 0
}

# hostile_run NAME OPTIONS...: the hostile suite with minivmm OPTIONS.
hostile_run() {
	hr=$1
	shift
	run "$hr" 0 -- --cpus 2 --mem 64M --timeout 180 "$@" "$ELF" -- hostile &&
		has "$hr" out "PASS: hostile: CPL3: rep outsb to the port raises #UD on itself" &&
		has "$hr" out "PASS: hostile: VMM still serves hypercalls" &&
		has "$hr" out " passed, 0 failed" && hostile_stderr_ok "$hr" && ok "$hr"
}

hostile_run "hostile guest: every abuse refused as documented, VMM keeps running"
hostile_run "hostile guest, XMM inputs through KVM_GET_FPU" --hv-xmm-path ioctl
hostile_run "hostile guest, no XMM input offered" --no-hv-xmm

# Each rejection reason the VMM has, as many times as hostile_records.c
# provokes it.
HOSTILE_REASONS="2 ABI version differs from the VMM's
2 record size differs from the VMM's
2 suite name empty or not NUL-terminated
2 case name empty or not NUL-terminated
1 variant not NUL-terminated
2 unknown unit
2 CPL above 3
1 zero iterations
4 statistics out of order
2 mean outside [min, max]
2 record does not lie inside guest RAM
2 the GPA must be written with a 32-bit out"

hostile_reasons_ok() {
	echo "$HOSTILE_REASONS" | while read -r rn why; do
		rgot=$(grep -F -- "rejected: $why" "$T/err" | wc -l)
		if [ "$rgot" -ne "$rn" ]; then
			echo "'$why' $rgot times, expected $rn"
			break
		fi
	done
}

c="hostile-records: each malformed record rejected and named, exit 1"
if run "$c" 1 -- --timeout 60 "$ELF" -- hostile-records &&
	has "$c" out " passed, 0 failed" && has "$c" out "accepted"; then
	want=$(sed -n 's/^hostile-records: \([0-9]*\) malformed.*/\1/p' "$T/out")
	got=$(grep -c 'rejected: ' "$T/err")
	why=$(hostile_reasons_ok)
	if [ -z "$want" ] || [ "$got" -ne "$want" ]; then
		bad "$c" "$got records rejected, the guest handed over '${want:-?}'"
	elif [ -n "$why" ]; then
		bad "$c" "$why"
	else
		has "$c" err "$want result record(s) were rejected; exiting 1" && ok "$c"
	fi
fi

# stress_run NAME OPTIONS...: 8 vCPUs (overcommitted on small hosts), 1 s.
stress_run() {
	sr=$1
	shift
	run "$sr" 0 -- --cpus 8 --timeout 180 "$@" "$ELF" -- stress 1 &&
		has "$sr" out "PASS: stress: every (sender, target) pair: deliveries == sends" &&
		has "$sr" out "ipi+flush calls per vCPU" && has "$sr" out " passed, 0 failed" &&
		if grep -q 'rejected' "$T/err"; then bad "$sr" "a record was rejected"
		else ok "$sr"; fi
}

stress_run "stress: 8 vCPUs, IPI + flush storm for 1 s, exact counts"
stress_run "stress, XMM inputs through KVM_GET_FPU" --hv-xmm-path ioctl

# The same abuse against minivmm built with ASan+UBSan+LSan: any overrun,
# undefined behaviour or leak prints a report (stderr must stay clean) and
# changes the exit status.
if [ -n "$VMM_ASAN" ] && [ -x "$VMM_ASAN" ]; then
	export ASAN_OPTIONS=detect_leaks=1:exitcode=66
	export UBSAN_OPTIONS=halt_on_error=1:exitcode=67
	HOSTILE_VMM=$VMM
	VMM=$VMM_ASAN
	hostile_run "hostile guest against minivmm under ASan+UBSan+LSan"
	stress_run "stress against minivmm under ASan+UBSan+LSan"
	VMM=$HOSTILE_VMM
	unset ASAN_OPTIONS UBSAN_OPTIONS
else
	skip "hostile and stress under sanitizers" "no sanitizer build of minivmm given"
fi
