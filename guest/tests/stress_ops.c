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
#include "lib/layout.h"
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

#define NR_BANKS	(GUEST_MAX_VCPUS / 64)
#define EXTRA_BANK	63	/* listed empty now and then: past every guest.elf VP */
#define XMM_IPI_BANKS	(XMM_QWORDS - 3 - 1)	/* vector, set header; room for EXTRA_BANK */

static u32 nr_banks(void)
{
	return (stress_ctl.nr + 63) / 64;
}

/* The bits of bank b that are VPs. */
static u64 bank_vps(u32 b)
{
	u32 first = b * 64;

	if (first >= stress_ctl.nr)
		return 0;
	return stress_ctl.nr - first >= 64 ? ~0ull : (1ull << (stress_ctl.nr - first)) - 1;
}

static u64 all_peers(u32 me)
{
	u32 n = stress_cpus[me].nr_peers;

	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * HV_VP_SET at b: SET_ALL, or the sparse non-empty banks of `banks` with,
 * when `extra`, an empty bank 63 riding along (valid: it names no VP).
 * Returns the qwords written; *var is the variable header size (the banks).
 */
static size_t put_vpset(u64 *b, const u64 *banks, bool all, bool extra, u32 *var)
{
	size_t n = 2;

	b[0] = all ? HV_GENERIC_SET_ALL : HV_GENERIC_SET_SPARSE_4K;
	b[1] = 0;
	*var = 0;
	if (all)
		return n;
	for (u32 bank = 0; bank < NR_BANKS; bank++)
		if (banks[bank]) {
			b[1] |= 1ull << bank;
			b[n++] = banks[bank];
		}
	if (extra) {
		b[1] |= 1ull << EXTRA_BANK;
		b[n++] = 0;
	}
	*var = (u32)(n - 2);
	return n;
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

u64 stress_ipi_peers(u32 me, enum stress_op op, u64 ready)
{
	const struct stress_cpu *c = &stress_cpus[me];
	u64 peers = 0, banks_used = 0;
	u32 nr_used = 0;

	if (op == OP_IPI_EX)
		return ready;
	for (u32 k = 0; k < c->nr_peers; k++) {
		u32 t = c->peer[k];

		if (!(ready & (1ull << k)))
			continue;
		if (op == OP_IPI || op == OP_IPI_FAST) {
			if (t < 64)
				peers |= 1ull << k;
			continue;
		}
		if (!(banks_used & (1ull << (t / 64)))) {
			if (nr_used == XMM_IPI_BANKS)
				continue;
			banks_used |= 1ull << (t / 64);
			nr_used++;
		}
		peers |= 1ull << k;
	}
	return peers;
}

u64 stress_ipi(u32 me, enum stress_op op, u64 peers, u64 *want)
{
	struct stress_cpu *c = &stress_cpus[me];
	u64 banks[NR_BANKS] = { 0 }, blk[4 + NR_BANKS] = { 0 }, vec = STRESS_VEC_BASE + me % 64;
	u32 var = 0;
	size_t n = 2;

	for (u32 k = 0; k < c->nr_peers; k++)
		if (peers & (1ull << k)) {
			u32 t = c->peer[k];

			banks[t / 64] |= 1ull << (t % 64);
		}
	*want = HV_STATUS_SUCCESS;
	if (op == OP_IPI_FAST)
		return hv_hcall_fast(HVCALL_SEND_IPI, vec, banks[0]);
	blk[0] = vec;
	if (op == OP_IPI) {
		blk[1] = banks[0];
		return issue(me, op, HVCALL_SEND_IPI, blk, n);
	}
	n = 1 + put_vpset(&blk[1], banks,
			  c->nr_peers == stress_ctl.nr && peers == all_peers(me),
			  c->ipi_turn & 4, &var);
	return issue(me, op, ctl(HVCALL_SEND_IPI_EX, var, 0, 0), blk, n);
}

static u64 read_cr3(void)
{
	u64 v;

	asm volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

/*
 * Past 64 vCPUs a flush of everyone makes the VMM kick hundreds of halted
 * vCPUs: "all" comes 1 time in 64 there, against a quarter of the time in
 * a small VM, and the sparse sets are thinner.
 */
static bool big_vm(void)
{
	return stress_ctl.nr > 64;
}

static bool one_in(u64 r, u64 small_mask, u64 big_mask)
{
	return (r & (big_vm() ? big_mask : small_mask)) == 0;
}

/* ALL_PROCESSORS a quarter of the time (1 in 64 past 64 vCPUs); NON_GLOBAL only where valid. */
static u64 flush_flags(u64 r, bool list)
{
	u64 f = 0;

	if (one_in(r, 3, 0x3f))
		f |= HV_FLUSH_ALL_PROCESSORS;
	if (r & 4)
		f |= HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
	if ((r & 8) && !list)
		f |= HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY;
	return f;
}

/*
 * A random set: bank 0 at half density up to 64 vCPUs (as it always was);
 * past that 1 to 3 random banks (at most `room`; room 1 is a non-Ex mask:
 * bank 0) at an eighth.
 */
static void flush_targets(struct stress_cpu *c, u32 room, u64 *banks)
{
	u64 x = xorshift(&c->rng);
	u32 pick;

	if (!big_vm()) {
		banks[0] = (x >> 8) & bank_vps(0);
		return;
	}
	pick = MIN(1 + (u32)(x >> 58) % 3, room);
	for (u32 i = 0; i < pick; i++) {
		u32 b = room == 1 ? 0 : (u32)(x >> (8 * i)) % nr_banks();

		banks[b] |= xorshift(&c->rng) & xorshift(&c->rng) & xorshift(&c->rng) & bank_vps(b);
	}
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
	u32 room = !ex ? 1 : op_is_xmm(op) ? XMM_QWORDS - 4 - reps - 1 : NR_BANKS;
	u64 banks[NR_BANKS] = { 0 };
	u32 var = 0;
	size_t n = 2;

	flush_targets(c, room, banks);
	if (ex)
		n += put_vpset(&blk[2], banks, one_in(r >> 4, 3, 0x3f), r & 0x40, &var);
	else
		blk[n++] = banks[0];
	for (u32 i = 0; i < reps; i++)
		blk[n++] = ((uintptr_t)stress_in[me] & HV_GVA_PAGE_MASK) | (i & 3);
	*want = (u64)reps << HV_HCALL_RESULT_REPS_SHIFT;
	return issue(me, op, ctl(code, var, reps, start), blk, n);
}
