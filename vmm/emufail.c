// SPDX-License-Identifier: MIT
#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmm/emufail.h"

static bool is_legacy_prefix(unsigned char b)
{
	switch (b) {
	case 0xf0: case 0xf2: case 0xf3:		/* lock, repne, rep */
	case 0x26: case 0x2e: case 0x36: case 0x3e:	/* segment overrides */
	case 0x64: case 0x65: case 0x66: case 0x67:
		return true;
	}
	return false;
}

static unsigned int modrm_reg(unsigned char modrm)
{
	return (modrm >> 3) & 7;
}

/* Two-byte opcodes (0f xx): the few KVM's emulator is known to refuse. */
static const char *name_0f(const unsigned char *p, size_t n, bool rex_w, bool opsize)
{
	if (n < 2)
		return NULL;
	/* 0f ae /6 and /7 on memory: clwb and clflushopt with 66, clflush without. */
	if (p[0] == 0xae && (p[1] >> 6) != 3 && modrm_reg(p[1]) == 6 && opsize)
		return "clwb";
	if (p[0] == 0xae && (p[1] >> 6) != 3 && modrm_reg(p[1]) == 7)
		return opsize ? "clflushopt" : "clflush";
	if (p[0] == 0xc7 && modrm_reg(p[1]) == 1 && (p[1] >> 6) != 3)
		return rex_w ? "cmpxchg16b" : "cmpxchg8b";
	if (p[0] == 0xae && (p[1] >> 6) != 3 && modrm_reg(p[1]) == 4)
		return "xsave";
	if (p[0] == 0xae && (p[1] >> 6) != 3 && modrm_reg(p[1]) == 5)
		return "xrstor";
	if (p[0] == 0x01 && p[1] == 0xd0)
		return "xgetbv";
	if (p[0] == 0x01 && p[1] == 0xd1)
		return "xsetbv";
	return NULL;
}

const char *emufail_insn_name(const unsigned char *insn, size_t n)
{
	size_t i = 0;
	bool rex_w = false, opsize = false;

	for (; i < n && is_legacy_prefix(insn[i]); i++)
		opsize |= insn[i] == 0x66;
	if (i < n && (insn[i] & 0xf0) == 0x40) {
		rex_w = insn[i] & 0x08;
		i++;
	}
	if (i >= n)
		return NULL;
	if (insn[i] == 0xcc)
		return "int3";
	if (insn[i] == 0xcd)
		return "int N";
	if (insn[i] == 0x0f)
		return name_0f(insn + i + 1, n - i - 1, rex_w, opsize);
	return NULL;
}

size_t emufail_describe(const struct kvm_run *run, enum mvm_backend backend,
			char *buf, size_t len)
{
	size_t n, used = 0;
	const char *name;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (run->emulation_failure.suberror != KVM_INTERNAL_ERROR_EMULATION ||
	    run->emulation_failure.ndata < 3 ||
	    !(run->emulation_failure.flags & KVM_INTERNAL_ERROR_EMULATION_FLAG_INSTRUCTION_BYTES))
		return 0;
	n = run->emulation_failure.insn_size;
	if (n > sizeof(run->emulation_failure.insn_bytes))
		n = sizeof(run->emulation_failure.insn_bytes);
	if (!n)
		return 0;
	used += snprintf(buf + used, len - used, ", instruction bytes");
	for (size_t i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, " %02x", run->emulation_failure.insn_bytes[i]);
	name = emufail_insn_name(run->emulation_failure.insn_bytes, n);
	if (name && used < len)
		used += snprintf(buf + used, len - used, " (%s)", name);
	if (backend == MVM_BACKEND_PVM && used < len)
		used += snprintf(buf + used, len - used,
				 "; kvm_pvm runs guest CPL0 code in KVM's instruction emulator, "
				 "which cannot run this instruction (docs/backends.md)");
	return used < len ? used : len - 1;
}
