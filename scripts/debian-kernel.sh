# shellcheck shell=bash
# debian-kernel.sh - shell functions for Debian's kernel packages, sourced by
# scripts/linux-kernel.sh (Linux guests for minivmm) and tests/nested/run-nested.sh
# (the nested test VM's own kernel). Bash; no side effects when sourced.
#
#   dk_vmlinux_from_bzimage BZIMAGE OUT   the ELF vmlinux inside a bzImage
#   dk_is_elf FILE                        0 when FILE starts with \177ELF
#
# Functions return non-zero with one line on stderr saying why.

dk_is_elf() { [[ -f $1 && $(head -c4 "$1" 2>/dev/null | od -An -c | tr -d ' ') == 177ELF ]]; }

# dk_hex FILE OFFSET COUNT: COUNT bytes at OFFSET as lower-case hex, in file order.
dk_hex() { od -An -v -tx1 -j "$2" -N "$3" "$1" | tr -d ' \n'; }

# dk_le FILE OFFSET COUNT: an unsigned little-endian integer of COUNT (<= 4) bytes.
dk_le() {
	local h v=0 i
	h=$(dk_hex "$1" "$2" "$3")
	((${#h} == 2 * $3)) || return 1
	for ((i = $3 - 1; i >= 0; i--)); do v=$((v * 256 + 16#${h:2*i:2})); done
	echo "$v"
}

# dk_vmlinux_from_bzimage BZIMAGE OUT: cut the compressed kernel out of the
# bzImage by its boot-protocol header (protocol >= 2.08: payload_offset at
# 0x248 and payload_length at 0x24c, both counted from the protected-mode
# code, which starts (setup_sects + 1) * 512 bytes in, setup_sects 0 meaning
# 4), decompress it by its magic (xz on Debian's 6.1, zstd on 6.12, gzip) and
# check that the result is an ELF file. The build appends the uncompressed
# size as 4 bytes after the stream (scripts/Makefile.lib size_append): those
# are left out. OUT is only written when everything succeeded.
dk_vmlinux_from_bzimage() {
	local bz=$1 out=$2 size setup proto poff plen off magic
	local -a dec
	[[ -f $bz && -r $bz ]] || { echo "$bz: cannot read" >&2; return 1; }
	size=$(stat -c %s "$bz")
	((size >= 0x250)) || { echo "$bz: $size bytes, too short for a bzImage header" >&2; return 1; }
	[[ $(dk_hex "$bz" $((0x202)) 4) == 48647253 ]] || { echo "$bz: no bzImage header ('HdrS' at 0x202)" >&2; return 1; }
	proto=$(dk_le "$bz" $((0x206)) 2)
	((proto >= 0x208)) || { printf '%s: boot protocol %#x, payload fields need 2.08\n' "$bz" "$proto" >&2; return 1; }
	setup=$(dk_le "$bz" $((0x1f1)) 1)
	((setup)) || setup=4
	poff=$(dk_le "$bz" $((0x248)) 4)
	plen=$(dk_le "$bz" $((0x24c)) 4)
	off=$(((setup + 1) * 512 + poff))
	if ((plen <= 4 || off + plen > size)); then
		echo "$bz: payload at $off, $plen bytes, outside the file ($size bytes)" >&2
		return 1
	fi
	magic=$(dk_hex "$bz" "$off" 6)
	case $magic in
	fd377a585a00) dec=(xz -dcq --single-stream) ;;
	28b52ffd*) dec=(zstd -dcq) ;;
	1f8b*) dec=(gzip -dcq) ;;
	*) echo "$bz: payload compression not supported (magic $magic; xz, zstd and gzip are)" >&2; return 1 ;;
	esac
	command -v "${dec[0]}" >/dev/null || { echo "$bz: ${dec[0]} is not installed" >&2; return 1; }
	# dd, not tail | head: head's early exit would fail the pipe under pipefail.
	if ! dd if="$bz" bs=64K iflag=skip_bytes,count_bytes skip="$off" count=$((plen - 4)) status=none |
		"${dec[@]}" >"$out.part"; then
		rm -f "$out.part"
		echo "$bz: ${dec[0]} could not decompress the payload" >&2
		return 1
	fi
	if ! dk_is_elf "$out.part"; then
		rm -f "$out.part"
		echo "$bz: the payload is not an ELF vmlinux" >&2
		return 1
	fi
	mv "$out.part" "$out"
}
