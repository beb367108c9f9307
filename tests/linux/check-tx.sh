#!/bin/sh
# check-tx.sh - did every byte /init wrote through ttyS0 arrive? Regenerates
# the text with tx.awk and compares it, byte for byte, with the "mvm-tx "
# lines of a run's output (carriage returns dropped), and checks /init's
# summary line (count and MD5 of what it wrote). POSIX sh: runs under busybox.
# Usage: check-tx.sh OUTPUT BYTES
# Prints one line: what arrived, or what is wrong; exit 0 when all of it did.
set -u
out=${1:?usage: check-tx.sh OUTPUT BYTES}
bytes=${2:?usage: check-tx.sh OUTPUT BYTES}
here=$(dirname "$0")
lines=$(((bytes + 63) / 64))
t=$(mktemp -d "${TMPDIR:-/tmp}/check-tx.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
tr -d '\r' <"$out" >"$t/all"
grep '^mvm-tx ' "$t/all" >"$t/got"
awk -v lines="$lines" -f "$here/tx.awk" >"$t/want"
sum=$(md5sum <"$t/want")
sum=${sum%% *}
summary="mvm-init: tx: $lines lines, $((lines * 64)) bytes, md5 $sum"
if ! grep -qxF "$summary" "$t/all"; then
	seen=$(grep -F 'mvm-init: tx: ' "$t/all" | head -n 1)
	echo "no summary line '$summary' (found: '${seen:-none}')"
	exit 1
fi
got=$(wc -l <"$t/got")
if ! cmp -s "$t/got" "$t/want"; then
	first=$(awk 'NR == FNR { w[FNR] = $0; n = FNR; next }
		$0 != w[FNR] { print FNR ": \"" $0 "\""; d = 1; exit }
		END { if (!d) print FNR + 1 " (the output ends at line " FNR ")" }' "$t/want" "$t/got")
	echo "$got of $lines lines arrived; the first wrong or missing one is at line ${first:-?}"
	exit 1
fi
echo "$lines lines, $((lines * 64)) bytes, all arrived"
