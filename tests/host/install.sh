#!/usr/bin/env bash
# make install / make uninstall, with PREFIX and with DESTDIR, and which
# payload a run without KERNEL boots: the build tree's guest.elf, the
# installed one, $MINIVMM_PAYLOAD. Works on a copy of the built tree, so
# the tree's own minivmm keeps its PREFIX. The boots need /dev/kvm.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

ok() { pass=$((pass + 1)); echo "PASS: install: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: install: $1"; }
expect() {	# expect NAME COMMAND...: the command must succeed
	local name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}

mkdir "$t/src"
(cd "$top" && tar --exclude=./.git -cf - .) | (cd "$t/src" && tar -xf -)
prefix=$t/usr
files=(bin/minivmm lib/minivmm/guest.elf share/doc/minivmm/README.md
	share/doc/minivmm/abi.md share/doc/minivmm/results/results.md)
[ -f "$top/minivmm.1" ] && files+=(share/man/man1/minivmm.1)
[ -f "$top/scripts/minivmm-compare" ] && files+=(bin/minivmm-compare share/man/man1/minivmm-compare.1
	lib/minivmm/minivmm_json.py)
[ -f "$top/minivmm-qemu.1" ] && files+=(bin/minivmm-qemu share/man/man1/minivmm-qemu.1)

if make -s -C "$t/src" install PREFIX="$prefix" >"$t/log" 2>&1; then
	ok "make install PREFIX=$prefix"
else
	bad "make install PREFIX=... failed: $(tail -n 5 "$t/log")"
fi
missing=""
for f in "${files[@]}"; do [ -f "$prefix/$f" ] || missing+=" $f"; done
expect "installed files present${missing:+ (missing:$missing)}" test -z "$missing"
expect "minivmm installed executable" test -x "$prefix/bin/minivmm"
expect "--help names the installed payload" \
	grep -qF "$prefix/lib/minivmm/guest.elf" <("$prefix/bin/minivmm" --help)
[ -f "$top/minivmm.1" ] && expect "the installed man page names the installed payload" \
	grep -qF "$prefix/lib/minivmm/guest.elf" "$prefix/share/man/man1/minivmm.1"
[ -f "$top/scripts/minivmm-compare" ] && expect "minivmm-compare runs installed" \
	grep -q '^usage: minivmm-compare' <("$prefix/bin/minivmm-compare" --help)
expect "--version runs installed" grep -q '^minivmm ' <("$prefix/bin/minivmm" --version)
[ -f "$top/minivmm-qemu.1" ] && expect "minivmm-qemu runs installed (its -h says QEMU, as kvm-unit-tests looks for)" \
	grep -q '^QEMU emulator version 0.0.0 (minivmm-qemu ' <("$prefix/bin/minivmm-qemu" -h)

if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	(cd "$t" && "$prefix/bin/minivmm" -- smoke >"$t/out" 2>"$t/err")
	st=$?
	expect "installed 'minivmm -- smoke' boots the installed payload (status $st)" \
		grep -qF "booting $prefix/lib/minivmm/guest.elf" "$t/out"
	expect "installed 'minivmm -- smoke' passes" test "$st" -eq 0
	(cd / && "$top/minivmm" -- smoke >"$t/out" 2>"$t/err")
	st=$?
	expect "build tree's minivmm boots its own guest.elf from any directory (status $st)" \
		grep -qF "booting $top/guest.elf" "$t/out"
	MINIVMM_PAYLOAD=$top/guest.elf "$prefix/bin/minivmm" >"$t/out" 2>&1
	st=$?
	expect "MINIVMM_PAYLOAD is booted when set (status $st)" \
		grep -qF "booting $top/guest.elf" "$t/out"
else
	echo "SKIP: install: booting the default payload (no usable /dev/kvm)"
fi
MINIVMM_PAYLOAD=$t/nonexistent.elf "$prefix/bin/minivmm" >"$t/out" 2>"$t/err"
st=$?
expect "a missing MINIVMM_PAYLOAD is a clear error, status 2 (got $st)" \
	bash -c "[ $st -eq 2 ] && grep -qF '$t/nonexistent.elf' '$t/err'"

mkdir "$t/lone"
cp "$prefix/bin/minivmm" "$t/lone/minivmm"
make -s -C "$t/src" uninstall PREFIX="$prefix" >"$t/log" 2>&1
left=$(find "$prefix" -type f 2>/dev/null | sed "s|^$prefix/||" | tr '\n' ' ')
expect "make uninstall removes every installed file${left:+ (left: $left)}" test -z "$left"
"$t/lone/minivmm" -- smoke >"$t/out" 2>"$t/err"
st=$?
expect "no payload anywhere: status 2 and both places named (got $st)" \
	bash -c "[ $st -eq 2 ] && grep -qF '$prefix/lib/minivmm/guest.elf (installed)' '$t/err'"

make -s -C "$t/src" install PREFIX=/usr DESTDIR="$t/dest" >"$t/log" 2>&1
missing=""
for f in "${files[@]}"; do [ -f "$t/dest/usr/$f" ] || missing+=" $f"; done
expect "make install DESTDIR=... PREFIX=/usr stages every file${missing:+ (missing:$missing)}" \
	test -z "$missing"
expect "the staged minivmm looks for /usr/lib/minivmm/guest.elf" \
	grep -qF "/usr/lib/minivmm/guest.elf." <("$t/dest/usr/bin/minivmm" --help)
make -s -C "$t/src" uninstall PREFIX=/usr DESTDIR="$t/dest" >"$t/log" 2>&1
left=$(find "$t/dest" -type f | sed "s|^$t/dest/||" | tr '\n' ' ')
expect "make uninstall DESTDIR=... leaves no file${left:+ (left: $left)}" test -z "$left"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
