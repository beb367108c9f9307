#!/usr/bin/env bash
# Install the Debian packages a minivmm target needs, if any are missing.
# Usage: scripts/deps.sh build|check|bench|fuzz|peer|deb|vmx|linux
set -euo pipefail

build_pkgs="gcc make pkg-config libjansson-dev libseccomp-dev liblzma-dev libzstd-dev zlib1g-dev"
# Linux guests: the test initramfs (busybox-static, cpio) and the kernel
# unpack of scripts/linux-kernel.sh (xz-utils, zstd).
linux_pkgs="busybox-static cpio xz-utils zstd"
case "${1:-build}" in
build) pkgs="$build_pkgs" ;;
check) pkgs="$build_pkgs check acl mandoc python3 gnuplot-nox acpica-tools $linux_pkgs" ;;
linux) pkgs="$build_pkgs $linux_pkgs" ;;
bench) pkgs="$build_pkgs gnuplot-nox python3" ;;
fuzz) pkgs="$build_pkgs clang libclang-rt-14-dev" ;;
peer) pkgs="$build_pkgs qemu-system-x86 gnuplot-nox python3" ;;
deb) pkgs="$build_pkgs dpkg-dev lintian man-db" ;;
vmx) pkgs="$build_pkgs check g++ patch xz-utils xorriso isolinux syslinux-common busybox-static cpio" ;;
*) echo "deps.sh: unknown target '$1' (build, check, bench, fuzz, peer, deb, vmx, linux)" >&2; exit 2 ;;
esac

missing=()
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
	echo "deps.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
	echo "deps.sh: missing packages; run: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
