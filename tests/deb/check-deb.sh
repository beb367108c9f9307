#!/usr/bin/env bash
# make deb-check: build the package, lint it, install it, run it, remove it.
# Needs root (dpkg -i) and installs into this system's /usr for the moment
# of the test; the package is purged at the end whatever happens.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS: deb: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: deb: $1"; }
t=$(mktemp -d)
trap 'dpkg -P minivmm >/dev/null 2>&1; rm -rf "$t"' EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: deb: dpkg -i needs root"
	echo "0 passed, 0 failed"
	exit 0
fi
if dpkg-query -W -f='${Status}' minivmm 2>/dev/null | grep -q 'install ok installed'; then
	echo "FAIL: deb: a minivmm package is already installed; not touching it"
	echo "0 passed, 1 failed"
	exit 1
fi
deb=$("$top/scripts/make-deb.sh" | tail -n 1)
if [ -f "$deb" ]; then ok "built $(basename "$deb")"; else bad "make-deb.sh built nothing"; echo "$pass passed, $fail failed"; exit 1; fi
dpkg-deb -f "$deb" Depends >"$t/dep"
for d in libc6 libjansson4 liblzma5 libzstd1 zlib1g python3; do
	grep -qE "(^|, )$d( |,|$)" "$t/dep" && ok "Depends names $d" || bad "Depends lacks $d: $(cat "$t/dep")"
done
# minivmm reads ELF itself (vmm/elfview.c): no libelf at run time.
grep -qE "(^|, )libelf1( |,|$)" "$t/dep" && bad "Depends names libelf1: $(cat "$t/dep")" ||
	ok "Depends names no libelf1"

if command -v lintian >/dev/null; then
	lintian --fail-on error --tag-display-limit 0 "$deb" >"$t/lint" 2>&1
	st=$?
	errors=$(grep -c '^E:' "$t/lint")
	if [ $st -eq 0 ] && [ "$errors" -eq 0 ]; then
		ok "lintian: no errors ($(grep -c '^W:' "$t/lint") warnings)"
	else
		bad "lintian: $errors errors"
	fi
	cat "$t/lint"
else
	bad "lintian is not installed (scripts/deps.sh deb installs it)"
fi

if dpkg -i "$deb" >"$t/log" 2>&1; then ok "dpkg -i"; else bad "dpkg -i: $(tail -n 5 "$t/log")"; fi
v=$(/usr/bin/minivmm --version 2>&1)
[[ $v == "minivmm "* ]] && ok "minivmm --version: $v" || bad "minivmm --version: $v"
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	(cd "$t" && /usr/bin/minivmm -- smoke >"$t/out" 2>&1)
	st=$?
	if [ $st -eq 0 ] && grep -qF "booting /usr/lib/minivmm/guest.elf" "$t/out"; then
		ok "minivmm -- smoke: status 0, the installed payload"
	else
		bad "minivmm -- smoke: status $st: $(tail -n 5 "$t/out")"
	fi
else
	echo "SKIP: deb: minivmm -- smoke (no usable /dev/kvm)"
fi
/usr/bin/minivmm-compare --help >/dev/null 2>&1 && ok "minivmm-compare --help" || bad "minivmm-compare --help"
/usr/bin/minivmm-qemu -h 2>/dev/null | grep -q '^QEMU emulator version 0.0.0 (minivmm-qemu' &&
	ok "minivmm-qemu -h" || bad "minivmm-qemu -h"
man -w minivmm >/dev/null 2>&1 && ok "man -w minivmm finds the page" || bad "man -w minivmm"
dpkg -L minivmm | while read -r f; do [ -f "$f" ] && echo "$f"; done >"$t/files"
if dpkg -r minivmm >"$t/log" 2>&1; then ok "dpkg -r"; else bad "dpkg -r: $(tail -n 5 "$t/log")"; fi
left=$(while read -r f; do [ -e "$f" ] && echo "$f"; done <"$t/files")
[ -z "$left" ] && ok "dpkg -r removed all $(wc -l <"$t/files") files" || bad "left behind: $left"
dpkg -P minivmm >/dev/null 2>&1
dpkg-query -W minivmm >/dev/null 2>&1 && bad "still known to dpkg after purge" || ok "purged"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
