#!/usr/bin/env bash
# linux-kernel.sh - Debian's own Linux kernel as a minivmm guest: fetched with
# `apt-get download` (never installed, no other download), cached, and
# printed as two paths: the bzImage (vmlinuz) and the ELF vmlinux cut out of
# its payload (the PVH path; scripts/debian-kernel.sh).
#
# Usage: scripts/linux-kernel.sh [--vmlinuz|--vmlinux|--dir] 6.1|6.12|PACKAGE
#   6.1      the kernel linux-image-amd64 depends on (Debian 12's)
#   6.12     the newest linux-image-6.12.*+deb12-amd64 apt-cache knows
#   PACKAGE  a linux-image-* package by name
#   --vmlinuz, --vmlinux, --dir   print only that path (default: vmlinuz, then vmlinux)
#
# Cache: ${MINIVMM_LINUX_CACHE:-${XDG_CACHE_HOME:-~/.cache}/minivmm-linux}/<pkg>_<ver>/
# holding vmlinuz, vmlinux, package, version, kver and .ready; filled once
# under a lock, then read-only. A kernel the nested test runner already
# fetched (its cache, tests/nested/run-nested.sh) is copied, not downloaded.
# Exit status: 0; 125 with the reason on stderr when the kernel cannot be had
# (no apt, package unknown, download or unpack failed); 2 for bad usage.
set -euo pipefail
prog=linux-kernel
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/debian-kernel.sh
. "$here/debian-kernel.sh"

die() { echo "$prog: cannot provide the kernel: $*" >&2; exit 125; }
usage() { sed -n '/^# Usage:/,/^# Cache:/{/^# Cache:/d;s/^# \{0,1\}//;p}' "$0" >&2; exit "${1:-2}"; }

what=both
while (($#)); do
	case $1 in
	--vmlinuz | --vmlinux | --dir) what=${1#--}; shift ;;
	-h | --help) usage 0 ;;
	-*) echo "$prog: unknown option '$1'" >&2; usage 2 ;;
	*) break ;;
	esac
done
(($# == 1)) || usage 2
want=$1
cache=${MINIVMM_LINUX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/minivmm-linux}
nested_cache=${MINIVMM_NESTED_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/minivmm-nested}
apt_timeout=900

if ! command -v apt-cache >/dev/null || ! command -v apt-get >/dev/null; then
	die "no apt-get here (a Debian system is needed)"
fi
log=$(mktemp "${TMPDIR:-/tmp}/$prog.XXXXXX")
tmp=
# shellcheck disable=SC2317  # invoked by trap
cleanup() { rm -f "$log"; if [[ -n $tmp ]]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT

apt_run() {	# apt_run ARGS...: apt-get, bounded, output shown only on failure
	if ! DEBIAN_FRONTEND=noninteractive timeout "$apt_timeout" apt-get -q -y \
		-o DPkg::Lock::Timeout=300 "$@" >"$log" 2>&1; then
		sed "s/^/$prog: apt-get: /" "$log" | tail -n 5 >&2
		return 1
	fi
}
updated=0
apt_update_once() {	# only root may; otherwise the lists stay as they are
	((updated)) && return 1
	updated=1
	[[ $(id -u) == 0 ]] || return 1
	echo "$prog: apt-get update" >&2
	apt_run update
}

resolve_pkg() {	# resolve_pkg 6.1|6.12|PACKAGE -> package name (empty if unknown)
	case $1 in
	6.1) apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-6\.1\./ { print $2; exit }' ;;
	6.12) apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' 2>/dev/null |
		awk '{ print $1 }' | sort -V | tail -n 1 ;;
	linux-image-*) echo "$1" ;;
	*) echo "$prog: '$1': want 6.1, 6.12 or a linux-image-* package" >&2; exit 2 ;;
	esac
}
candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }'; }

pkg=$(resolve_pkg "$want")
ver=
[[ -n $pkg ]] && ver=$(candidate "$pkg")
if [[ -z $pkg || -z $ver || $ver == "(none)" ]] && apt_update_once; then
	pkg=$(resolve_pkg "$want")
	[[ -n $pkg ]] && ver=$(candidate "$pkg")
fi
[[ -n $pkg ]] || die "no Debian package for Linux $want in apt's lists (apt-get update as root?)"
[[ -n $ver && $ver != "(none)" ]] || die "Debian package $pkg has no candidate version (apt-get update as root?)"
dir=$cache/${pkg}_${ver//:/%}

print() {
	case $what in
	both) printf '%s\n%s\n' "$dir/vmlinuz" "$dir/vmlinux" ;;
	dir) printf '%s\n' "$dir" ;;
	*) printf '%s\n' "$dir/$what" ;;
	esac
	exit 0
}
ready() { [[ -f $dir/.ready && -f $dir/vmlinuz && -f $dir/vmlinux ]]; }
ready && print

mkdir -p "$cache" || die "cannot create the cache directory $cache"
exec 9>"$cache/.lock"
flock -w 900 9 || die "cannot lock $cache/.lock"
ready && print	# filled while we waited
rm -rf "$cache"/.tmp.*	# left by an interrupted fill (we hold the lock)
tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
mkdir "$tmp/out"
seed=$nested_cache/${pkg}_${ver//:/%}
if [[ -f $seed/.ready && -f $seed/vmlinuz ]]; then
	echo "$prog: $pkg $ver: copying the bzImage from $seed" >&2
	cp "$seed/vmlinuz" "$tmp/out/vmlinuz"
	[[ -f $seed/kver ]] && cp "$seed/kver" "$tmp/out/kver"
else
	echo "$prog: $pkg $ver: apt-get download (one-time, cached in $cache)" >&2
	sandbox=()
	[[ $(id -u) == 0 ]] && sandbox=(-o APT::Sandbox::User=root)	# _apt cannot enter $HOME
	(cd "$tmp" && apt_run ${sandbox[@]+"${sandbox[@]}"} download "$pkg=$ver") ||
		die "apt-get download $pkg=$ver failed"
	deb=$(echo "$tmp"/*.deb)
	[[ -f $deb ]] || die "apt-get download $pkg=$ver left no .deb"
	mkdir "$tmp/x"
	# Only the kernel image: the modules are not needed (a 6.1 package unpacks to ~400 MB).
	dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$tmp/x" --wildcards './boot/vmlinuz-*' 2>"$log" ||
		die "$deb holds no /boot/vmlinuz-*: $(head -n 1 "$log")"
	f=$(echo "$tmp"/x/boot/vmlinuz-*)
	[[ -f $f ]] || die "$deb holds no /boot/vmlinuz-*"
	cp "$f" "$tmp/out/vmlinuz"
	echo "${f##*/vmlinuz-}" >"$tmp/out/kver"
fi
dk_vmlinux_from_bzimage "$tmp/out/vmlinuz" "$tmp/out/vmlinux" 2>"$log" ||
	die "no vmlinux from $pkg's bzImage: $(cat "$log")"
echo "$pkg" >"$tmp/out/package"
echo "$ver" >"$tmp/out/version"
touch "$tmp/out/.ready"
rm -rf "$dir"
mv "$tmp/out" "$dir"
print
