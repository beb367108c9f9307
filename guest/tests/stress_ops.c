// SPDX-License-Identifier: MIT
/*
 * stress: one call of each operation, in each encoding. IPIs go to the
 * targets the worker chose; flushes pick a random set (sometimes empty,
 * sometimes ALL_PROCESSORS), random flags and a random GVA list, so the
 * run covers many shapes. Every call has exactly one right result.
 */
#include <hv/tlfs.h>

#include "lib/bootmem.h"
#include "lib/hv.h"
#include "lib/string.h"
#include "tests/stress.h"

#define BLOCK_QWORDS	64	/* 512 bytes: a block never crosses a page */
#define XMM_QWORDS	14	/* RDX, R8, XMM0-5 */
#define MAX_REPS	8
#define XMM_LIST_REPS	11	/* FlushList: 3 header qwords + 11 fill the registers */

static u64 (*stress_in)[BLOCK_QWORDS];

void stress_ops_init(u32 nr)
{
	if (!stress_in)
		stress_in = bootmem_must_alloc((u64)nr * sizeof(*stress_in), 4096,
					       "stress input blocks");
}

static const char *const op_names[NR_STRESS_OPS] = {
	"SendIpi/regular", "SendIpi/fast", "SendIpiEx/regular", "SendIpiEx/xmm-fast",
	"FlushSpace/regular", "FlushSpace/xmm-fast", "FlushList/regular", "FlushList/xmm-fast",
	"FlushSpaceEx/regular", "FlushSpaceEx/xmm-fast", "FlushListEx/regular",
	"FlushListEx/xmm-fast",
};

static const u16 flush_codes[] = {
	HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST,
	HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX,
};

const char *stress_op_name(enum stress_op op)
{
	return op < NR_STRESS_OPS ? op_names[op] : "?";
}

/* Odd ops are the register forms; all but fast SendIpi need XMM input. */
static bool op_is_xmm(enum stress_op op)
{
	return (op & 1) && op != OP_IPI_FAST;
}

bool stress_op_available(enum stress_op op)
{
	return !op_is_xmm(op) || stress_ctl.xmm;
}

static u64 ctl(u16 code, u32 var, u32 reps, u32 start)
{
	return code | ((u64)var << HV_HCALL_VARHEAD_SHIFT) |
	       ((u64)reps << HV_HCALL_REP_COUNT_SHIFT) | ((u64)start << HV_HCALL_REP_START_SHIFT);
}

static u64 all_vps(void)
{
	return stress_ctl.nr >= 64 ? ~0ull : (1ull << stress_ctl.nr) - 1;
}

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * HV_VP_SET at b: SET_ALL, or sparse bank 0 with, when `extra`, an empty
 * bank 1 riding along (valid: VPs 64..127 are simply not named). Returns
 * the qwords written; *var is the variable header size (the banks).
 */
static size_t put_vpset(u64 *b, u64 targets, bool all, bool extra, u32 *var)
{
	if (all) {
		b[0] = HV_GENERIC_SET_ALL;
		b[1] = 0;
		*var = 0;
		return 2;
	}
	b[0] = HV_GENERIC_SET_SPARSE_4K;
	b[1] = extra ? 3 : 1;
	b[2] = targets;
	b[3] = 0;
	*var = extra ? 2 : 1;
	return 2 + *var;
}

/* The block in memory, or in RDX, R8 and XMM0-5. */
static u64 issue(u32 me, enum stress_op op, u64 control, const u64 *blk, size_t qwords)
{
	u64 *mem = stress_in[me], x[XMM_QWORDS] = { 0 };

	if (op_is_xmm(op)) {
		memcpy(x, blk, qwords * 8);
		return hv_hcall_xmm(control, x);
	}
	memcpy(mem, blk, qwords * 8);
	return hv_hcall(control, (uintptr_t)mem, 0);
}

u64 stress_ipi(u32 me, enum stress_op op, u64 targets, u64 *want)
{
	struct stress_cpu *c = &stress_cpus[me];
	u64 vec = STRESS_VEC_BASE + me, blk[8] = { vec, targets };
	u32 var = 0;
	size_t n = 2;

	*want = HV_STATUS_SUCCESS;
	if (op == OP_IPI_FAST)
		return hv_hcall_fast(HVCALL_SEND_IPI, vec, targets);
	if (op == OP_IPI)
		return issue(me, op, HVCALL_SEND_IPI, blk, n);
	n = 1 + put_vpset(&blk[1], targets, targets == all_vps(), c->ipi_turn & 4, &var);
	return issue(me, op, ctl(HVCALL_SEND_IPI_EX, var, 0, 0), blk, n);
}

static u64 read_cr3(void)
{
	u64 v;

	asm volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

/* ALL_PROCESSORS a quarter of the time; NON_GLOBAL only where valid. */
static u64 flush_flags(u64 r, bool list)
{
	u64 f = 0;

	if ((r & 3) == 0)
		f |= HV_FLUSH_ALL_PROCESSORS;
	if (r & 4)
		f |= HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
	if ((r & 8) && !list)
		f |= HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY;
	return f;
}

u64 stress_flush(u32 me, enum stress_op op, u64 *want)
{
	struct stress_cpu *c = &stress_cpus[me];
	u16 code = flush_codes[(op - OP_SPACE) / 2];
	bool list = code == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST ||
		    code == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX;
	bool ex = code >= HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX;
	u64 r = xorshift(&c->rng), blk[BLOCK_QWORDS] = { read_cr3(), flush_flags(r, list) };
	u32 max = op == OP_LIST_XMM ? XMM_LIST_REPS : MAX_REPS;
	u32 reps = list ? 1 + (u32)(r >> 40) % max : 0, start = reps ? (u32)(r >> 52) % reps : 0;
	u32 var = 0;
	size_t n = 2;

	if (ex)
		n += put_vpset(&blk[2], (r >> 8) & all_vps(), (r & 0x30) == 0, r & 0x40, &var);
	else
		blk[n++] = (r >> 8) & all_vps();
	for (u32 i = 0; i < reps; i++)
		blk[n++] = ((uintptr_t)stress_in[me] & HV_GVA_PAGE_MASK) | (i & 3);
	*want = (u64)reps << HV_HCALL_RESULT_REPS_SHIFT;
	return issue(me, op, ctl(code, var, reps, start), blk, n);
}
