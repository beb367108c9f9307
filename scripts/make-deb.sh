#!/usr/bin/env bash
# `make deb`: build/minivmm_VERSION_amd64.deb with dpkg-deb, from
# `make install PREFIX=/usr DESTDIR=...`. Depends come from dpkg-shlibdeps
# on the staged binary (libc6, libjansson4, liblzma5, libzstd1,
# zlib1g) plus python3 for minivmm-compare. Prints the package's path on the last line.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
work=$(mktemp -d)	# outside build/: make includes every *.d found there
trap 'rm -rf "$work"' EXIT
pkg=minivmm
root=$work/debian/$pkg
rev=$(git describe --always --dirty 2>/dev/null || echo unknown)
date=$(git log -1 --format=%cd --date=format:%Y%m%d 2>/dev/null || date -u +%Y%m%d)
# Debian versions must start with a digit; "~git" sorts below any release.
version=0.0~git$date.$(echo "$rev" | tr -c 'a-zA-Z0-9.+~\n' '+')
arch=$(dpkg --print-architecture)
maint=$(git log -1 --format='%an <%ae>' 2>/dev/null || echo "minivmm developers <minivmm@invalid.example>")

mkdir -p "$root" "$work/src"
# Built in a copy (objects reused), so the tree's own minivmm keeps its PREFIX.
tar --exclude=./.git -cf - . | tar -C "$work/src" -xf -
make -s -C "$work/src" install PREFIX=/usr DESTDIR="$root" GIT_REV="$rev" >/dev/null
# Debian policy: stripped executables, compressed man pages and changelog.
for f in "$root/usr/bin/minivmm" "$root/usr/lib/minivmm/guest.elf"; do
	strip --remove-section=.comment --remove-section=.note --strip-unneeded "$f"
done
# The payload is a guest kernel, freestanding by design: no libc to link to.
mkdir -p "$root/usr/share/lintian/overrides"
cat >"$root/usr/share/lintian/overrides/$pkg" <<'OVERRIDES'
# guest.elf is the payload minivmm boots inside the VM, not a host program:
# it has no libc or dynamic loader to link against.
minivmm: statically-linked-binary [usr/lib/minivmm/guest.elf]
OVERRIDES
gzip -9n "$root"/usr/share/man/man1/*.1
doc=$root/usr/share/doc/$pkg
find "$doc" -name '*.md' -size +4k -exec gzip -9n {} +
cat >"$doc/copyright" <<'COPYRIGHT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: minivmm

Files: *
Copyright: 2026 the minivmm authors
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a
 copy of this software and associated documentation files (the "Software"),
 to deal in the Software without restriction, including without limitation
 the rights to use, copy, modify, merge, publish, distribute, sublicense,
 and/or sell copies of the Software, and to permit persons to whom the
 Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included
 in all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS
 OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
 MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
 IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY
 CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
 TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
 SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
COPYRIGHT
{
	echo "$pkg ($version) unstable; urgency=medium"
	echo
	echo "  * Built from git revision $rev."
	echo
	echo " -- $maint  $(date -u -R)"
} | gzip -9n >"$doc/changelog.gz"

# dpkg-shlibdeps wants a debian/control naming the package, next to debian/$pkg.
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$pkg" "$pkg" >"$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O -e "debian/$pkg/usr/bin/minivmm" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

mkdir -p "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $shlibs, python3
Suggests: gnuplot-nox
Section: utils
Priority: optional
Description: small user-space KVM hypervisor that measures VM-exit costs
 minivmm drives /dev/kvm directly and boots a small freestanding payload
 that measures what VM exits, IPIs and remote TLB flushes cost, per exit
 kind, CPL, send path and hypercall encoding, and checks its user-space
 Hyper-V enlightenment layer. It also boots kvm-unit-tests' Multiboot
 kernels, and minivmm-qemu lets kvm-unit-tests' own runner drive it in
 QEMU's place. minivmm-compare compares runs (old against new) with the
 noise taken into account.
CONTROL
find "$root" -type d -exec chmod 755 {} +
mkdir -p build
rm -f build/${pkg}_*.deb
deb=$top/build/${pkg}_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
