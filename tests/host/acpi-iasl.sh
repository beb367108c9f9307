#!/usr/bin/env bash
# Every ACPI table minivmm builds (Multiboot and Linux sets; 1, 2 and 256
# vCPUs), disassembled by ACPICA's iasl: any error, warning or remark it
# prints fails the test, and the Linux tables must say what Linux needs
# (PM1a blocks, SCI 9, SMI_CMD 0, \_S5 = 5). iasl 20200925 cannot decode an
# RSDP from a file (it refuses even a valid revision-2 one), so the RSDPs
# are checked here instead: signature, checksum, revision 0, RSDT pointer.
# The Multiboot FADT is kept as it was (no PM1a blocks, which ACPICA calls
# required: two "Firmware Error" lines); those two lines, and only those,
# are let through for it and counted as known.
# Usage: acpi-iasl.sh [ACPI-DUMP]   (default: build/acpi-dump)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dumper=${1:-$top/build/acpi-dump}
pass=0 fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

ok() { pass=$((pass + 1)); echo "PASS: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

if ! command -v iasl >/dev/null; then
	echo "FAIL: iasl not found (apt-get install acpica-tools; scripts/deps.sh check)"
	exit 1
fi
if ! "$dumper" "$t"; then
	echo "FAIL: $dumper could not write the tables"
	exit 1
fi

for f in "$t"/*.dat; do
	name=$(basename "$f" .dat)
	case $name in *-rsdp) continue ;; esac
	( cd "$t" && iasl -d "$(basename "$f")" ) >"$t/$name.raw" 2>&1
	rc=$?
	case $name in
	multiboot-*-FACP)
		known='Required FADT field Pm1a(Event|Control)Block has zero address'
		[ "$(grep -cE "$known" "$t/$name.raw")" -eq 2 ] &&
			echo "KNOWN: $name: no PM1a blocks"
		grep -vE "$known" "$t/$name.raw" >"$t/$name.log" ;;
	*) mv "$t/$name.raw" "$t/$name.log" ;;
	esac
	# The banner and progress lines are all iasl prints for a clean table.
	complaints='error|warning|remark|invalid|does not contain'
	if [ $rc -ne 0 ] || grep -qiE "$complaints" "$t/$name.log" || [ ! -s "$t/$name.dsl" ] ||
	   grep -qiE 'error|warning|invalid|unknown' "$t/$name.dsl"; then
		why=$(grep -iE "$complaints" "$t/$name.log" "$t/$name.dsl" | head -3)
		bad "iasl -d $name (status $rc): $why"
	else
		ok "iasl -d $name"
	fi
done

# What the disassembly must say for Linux: field by field, as iasl decoded it.
want() {	# want FILE.dsl REGEX WHAT
	if grep -qE -- "$2" "$t/$1.dsl" 2>/dev/null; then
		ok "$1: $3"
	else
		bad "$1: $3 (no /$2/)"
	fi
}
for n in 1 2 256; do
	want "linux-$n-DSDT" 'Name \(\\_S5, Package \(0x04\)' "DSDT names \\_S5"
	want "linux-$n-FACP" 'PM1A Event Block Address : 00000600' "PM1a event block 0x600"
	want "linux-$n-FACP" 'PM1 Event Block Length : 04' "PM1 event block length 4"
	want "linux-$n-FACP" 'PM1A Control Block Address : 00000604' "PM1a control block 0x604"
	want "linux-$n-FACP" 'PM1 Control Block Length : 02' "PM1 control block length 2"
	want "linux-$n-FACP" 'SCI Interrupt : 0009' "SCI on IRQ 9"
	want "linux-$n-FACP" 'SMI Command Port : 00000000' "no SMI command port (always ACPI mode)"
	# Multiboot kernels get the same PM1a blocks (kvm-unit-tests' s3 sleeps through them).
	want "multiboot-$n-FACP" 'PM1A Event Block Address : 00000600' "Multiboot FADT: PM1a event block 0x600"
	want "multiboot-$n-FACP" 'PM1A Control Block Address : 00000604' "Multiboot FADT: PM1a control block 0x604"
done
if tr -d ' \n' <"$t/linux-1-DSDT.dsl" | grep -qF '0x05,0x05,Zero,Zero'; then
	ok "linux DSDT: \\_S5 is {5, 5, 0, 0}"
else
	bad "linux DSDT: \\_S5 is not {5, 5, 0, 0}"
fi
want "linux-256-APIC" 'Subtable Type : 09 \[Processor Local x2APIC\]' "256 vCPUs: x2APIC entries"

# The RSDPs: iasl cannot, so python3 does.
for f in "$t"/*-rsdp.dat; do
	name=$(basename "$f" .dat)
	if python3 - "$f" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
assert len(b) == 20, len(b)
assert b[:8] == b'RSD PTR ', b[:8]
assert sum(b) % 256 == 0, 'checksum'
assert b[15] == 0, 'revision'
assert struct.unpack_from('<I', b, 16)[0] == 0xe0040, 'RSDT pointer'
PY
	then ok "$name: signature, checksum, revision 0, RSDT at 0xe0040"; else bad "$name"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
