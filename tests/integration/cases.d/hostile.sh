# Robustness (docs/robustness.md): a hostile guest, malformed result records
# and an overcommitted IPI + flush storm. Each must end the way the docs say,
# with exactly the messages they promise on stderr and nothing else.

# Addresses the hostile suite hammers (guest/tests/hostile_io.c), with a
# 64 MiB guest: 0x4000000 is the first byte past RAM.
HOSTILE_PORTS="0x80 0xfa 0xfb 0xcf8 0xcfc 0xfffc 0xffff 0xf3 0xf7"
HOSTILE_MMIO="0xc0001000 0xe0000000 0xfed00000 0xfffff000 0x4000000"

# Guest-provoked messages: the first 5 of each kind are printed (vmm/ratelimit.h).
GUEST_MSG_BURST=5
UNCLAIMED_MSG="'unclaimed port/MMIO address' messages"

# nlines NAME PATTERN N: PATTERN is on exactly N lines of stderr.
nlines() {
	nl_n=$(grep -cF -- "$2" "$T/err")
	[ "$nl_n" -eq "$3" ] && return 0
	bad "$1" "stderr has '$2' $nl_n times, expected $3"
	return 1
}

once() { nlines "$1" "$2" 1; }

# named NAME PATTERN: PATTERN is on at most one line; hu_named counts them.
named() {
	nl_n=$(grep -cF -- "$2" "$T/err")
	hu_named=$((hu_named + nl_n))
	[ "$nl_n" -le 1 ] && return 0
	bad "$1" "stderr has '$2' $nl_n times, expected at most once"
	return 1
}

# The 14 addresses are each reported once (the bus remembers them), but only
# the first GUEST_MSG_BURST reach stderr; the other 9 are counted at exit.
hostile_unclaimed_ok() {
	hu_named=0
	for p in $HOSTILE_PORTS; do named "$1" "unclaimed port $p (" || return 1; done
	for a in $HOSTILE_MMIO; do named "$1" "unclaimed MMIO address $a (" || return 1; done
	nlines "$1" "of unclaimed " "$GUEST_MSG_BURST" || return 1
	if [ "$hu_named" -ne "$GUEST_MSG_BURST" ]; then
		bad "$1" "$hu_named unclaimed lines name a hostile address, expected $GUEST_MSG_BURST"
		return 1
	fi
	once "$1" "further $UNCLAIMED_MSG are counted, not printed" &&
		once "$1" "minivmm: warning: $((14 - GUEST_MSG_BURST)) more $UNCLAIMED_MSG suppressed"
}

hostile_stderr_ok() {
	hostile_unclaimed_ok "$1" || return 1
	for g in 0x3fffff8 0x4000000 0xfffffff8; do
		once "$1" "control request at GPA $g is outside RAM" || return 1
	done
	if grep -v -e 'of unclaimed port' -e 'of unclaimed MMIO address' \
		-e "$UNCLAIMED_MSG" -e 'control request at GPA' "$T/err" | grep -q .; then
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

# The rejection reasons of the first GUEST_MSG_BURST records hostile_records.c
# hands over, in its order; the rest are counted only (every reason is
# checked by the unit test test_results_validate_reasons).
HOSTILE_REASONS="2 ABI version differs from the VMM's
2 record size differs from the VMM's
1 suite name empty or not NUL-terminated"

hostile_reasons_ok() {
	echo "$HOSTILE_REASONS" | while read -r rn why; do
		rgot=$(grep -F -- "rejected: $why" "$T/err" | wc -l)
		if [ "$rgot" -ne "$rn" ]; then
			echo "'$why' $rgot times, expected $rn"
			break
		fi
	done
}

# hr_ids_check FILE: in the JSON, "compared" names the "accepted" row's id
# as its baseline, and each id is its row's place (1, 2, ...), or why not.
hr_ids_check() {
	awk '
		function num(line) { sub(/.*": /, "", line); sub(/,$/, "", line); return line + 0 }
		/"baseline": / { b = num($0) }
		/"case": "/ { s = $0; sub(/.*"case": "/, "", s); sub(/".*/, "", s) }
		/"id": / { id = num($0) }
		/^ *},?$/ {
			if (s != "") {
				row++
				if (id != row) why = why " row " row " has id " id
				if (s == "accepted") acc = id
				if (s == "compared") cmp = b
			}
			s = ""
		}
		END {
			if (!acc || cmp != acc) why = why " compared vs " cmp ", accepted is " acc
			if (why != "") { print substr(why, 2); exit 1 }
		}' "$1"
}

c="hostile-records: every malformed record rejected, the first 5 named, exit 1"
if run "$c" 1 -- --timeout 60 --json "$T/hr.json" "$ELF" -- hostile-records &&
	has "$c" out " passed, 0 failed" && has "$c" out "accepted" &&
	has "$c" out "1.000x [1.000-1.000] accepted valid (1 rounds)"; then
	want=$(sed -n 's/^hostile-records: \([0-9]*\) malformed.*/\1/p' "$T/out")
	got=$(grep -c 'rejected: ' "$T/err")
	why=$(hostile_reasons_ok)
	if [ -z "$want" ] || [ "$got" -ne "$GUEST_MSG_BURST" ]; then
		bad "$c" "$got rejections named, expected $GUEST_MSG_BURST (guest handed over '${want:-?}')"
	elif [ -n "$why" ]; then
		bad "$c" "$why"
	elif ! why=$(hr_ids_check "$T/hr.json"); then
		bad "$c" "ids in the JSON: $why"
	else
		has "$c" err "$((want - GUEST_MSG_BURST)) more 'result record rejected' messages suppressed" &&
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
