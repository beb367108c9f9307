# minivmm needs no root: an ordinary user with read-write access to /dev/kvm
# through a group (as the 'kvm' group gives it on a stock Debian) runs smoke,
# hv, kvm-unit-tests, --json, and `make run` in a copy of the tree it owns.
# As root, this area creates a throw-away group and a system user in it,
# grants the group /dev/kvm with an ACL entry (setfacl, the least invasive
# way: the node's owner, group and mode stay as they were; here /dev/kvm is
# root-only, so the real 'kvm' group is not used and not created),
# and afterwards restores the node's ACL exactly as it was and deletes the
# user. Without the ACL the same user must get the
# clear permission error.

nr_user=mvmtest$$
nr_group=mvmkvm$$
nr_top=$(cd "$(dirname "$0")/../.." && pwd)
nr_kut=${KUT_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/fixtures/kvm-unit-tests}

nr_cleanup() {
	[ -s "$T/nonroot.acl" ] && setfacl --set-file="$T/nonroot.acl" /dev/kvm
	userdel "$nr_user" 2>/dev/null
	groupdel "$nr_group" 2>/dev/null
	rm -rf "$T/nonroot" "$T/nonroot-vmm"
}

# nr_run NAME STATUS -- ARGS...: like run, as the test user (output files
# are opened by this shell, so the user needs no access to $T).
nr_run() {
	vmm_saved=$VMM
	VMM=$T/nonroot-vmm
	run "$@"
	r=$?
	VMM=$vmm_saved
	return $r
}

if [ "$(id -u)" -ne 0 ]; then
	skip "non-root runs" "not root, so no test user can be made; uid $(id -u) ran every case above already"
elif ! command -v useradd >/dev/null || ! command -v setfacl >/dev/null ||
	! command -v setpriv >/dev/null; then
	skip "non-root runs" "needs useradd, setfacl (package acl) and setpriv"
elif [ ! -c /dev/kvm ]; then
	skip "non-root runs" "no /dev/kvm here"
elif ! groupadd --system "$nr_group" || ! useradd --system --no-create-home --user-group \
	--groups "$nr_group" --shell /usr/sbin/nologin "$nr_user"; then
	bad "non-root runs" "groupadd $nr_group / useradd $nr_user failed"
	groupdel "$nr_group" 2>/dev/null
else
	trap 'nr_cleanup' EXIT INT TERM
	nr_uid=$(id -u "$nr_user") nr_gid=$(id -g "$nr_user")
	nr_mode=$(stat -c %A /dev/kvm)
	getfacl -p /dev/kvm >"$T/nonroot.acl" 2>/dev/null
	mkdir -p "$T/nonroot" && chown "$nr_uid:$nr_gid" "$T/nonroot"
	printf '#!/bin/sh\nexec setpriv --reuid=%s --regid=%s --init-groups %s "$@"\n' \
		"$nr_uid" "$nr_gid" "$VMM" >"$T/nonroot-vmm"
	chmod 755 "$T/nonroot-vmm"

	c="non-root: without access to /dev/kvm, the clear error and exit 2"
	if setpriv --reuid="$nr_uid" --regid="$nr_gid" --init-groups test -r /dev/kvm; then
		skip "$c" "$nr_user can already read /dev/kvm"
	else
		nr_run "$c" 2 -- --timeout 30 "$ELF" &&
			has "$c" err "/dev/kvm: permission denied" && ok "$c"
	fi

	if ! setfacl -m "g:$nr_group:rw" /dev/kvm; then
		bad "non-root runs" "setfacl on /dev/kvm failed (no ACL support on /dev?)"
	else
		c="non-root: smoke with 2 vCPUs, sandboxed, --json in the user's own directory"
		nr_run "$c" 0 -- --cpus 2 --timeout 60 --json "$T/nonroot/r.json" "$ELF" &&
			has "$c" out " passed, 0 failed" && has "$c" out "minivmm: sandbox on" &&
			if [ "$(stat -c %U "$T/nonroot/r.json")" != "$nr_user" ]; then
				bad "$c" "r.json not written by $nr_user"
			elif ! grep -q '"results"' "$T/nonroot/r.json"; then
				bad "$c" "r.json lacks results"
			else ok "$c"; fi

		c="non-root: hv with 4 vCPUs"
		nr_run "$c" 0 -- --cpus 4 --timeout 120 "$ELF" -- hv &&
			has "$c" out " passed, 0 failed" && ok "$c"

		# What `make run` does as that user, in a copy of the sources it owns.
		c="non-root: make run in the user's own copy of the tree (deps, build, boot)"
		mkdir -p "$T/nonroot/src" &&
			tar -C "$nr_top" -cf - Makefile vmm hv guest include scripts tests/nested |
			tar -C "$T/nonroot/src" -xf - && chown -R "$nr_uid:$nr_gid" "$T/nonroot/src"
		if (cd "$T/nonroot/src" && timeout 600 setpriv --reuid="$nr_uid" --regid="$nr_gid" \
			--init-groups env HOME="$T/nonroot" make -j2 run >"$T/out" 2>"$T/err"); then
			has "$c" out " passed, 0 failed" && has "$c" out "minivmm: sandbox on" && ok "$c"
		else
			bad "$c" "make run failed"
		fi

		c="non-root: kvm-unit-tests smptest.flat with 2 vCPUs"
		if [ ! -r "$nr_kut/smptest.flat" ]; then
			skip "$c" "fixtures not found in $nr_kut (set KUT_DIR)"
		else
			nr_run "$c" 0 -- --cpus 2 --timeout 60 "$nr_kut/smptest.flat" &&
				has "$c" out "PASS: IPI to each CPU" && ok "$c"
		fi
	fi
	nr_cleanup
	trap - EXIT INT TERM
	c="non-root: /dev/kvm as it was, and the test user gone again"
	if getfacl -p /dev/kvm 2>/dev/null | grep -q "$nr_group\|$nr_user"; then
		bad "$c" "/dev/kvm still has an entry for $nr_group or $nr_user"
	elif [ "$(stat -c %A /dev/kvm)" != "$nr_mode" ]; then
		bad "$c" "/dev/kvm is $(stat -c %A /dev/kvm), was $nr_mode"
	elif id "$nr_user" >/dev/null 2>&1 || getent group "$nr_group" >/dev/null; then
		bad "$c" "user $nr_user or group $nr_group still exists"
	else ok "$c"; fi
fi
