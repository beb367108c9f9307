// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the hypercall path of hv/:
 *
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -I. \
 *	hv/[a-z]*.c tests/fuzz/fuzz_hv.c -o build/fuzz_hv
 *   build/fuzz_hv -max_total_time=20 tests/fuzz/corpus/hv
 *
 * Input bytes (missing ones read as zero):
 *   0      config: bit 0 XMM input, bit 1 XMM spill, bits 3:2 vCPU count
 *          (1, 4, 64, 130), bit 4/5/6 withhold the flush/IPI/Ex hints,
 *          bit 7 rewrite the HYPERCALL MSR with R8 first
 *   1      bits 1:0 where the regular input block lies (bias of RDX, see
 *          gpa_bias); bit 2 turns every Linux switch on (endbr_page,
 *          vp_assist, freq_msrs, tsc_invariant, crash_msrs) and writes, then
 *          reads, MSR 0x40000000 + R8 bits 56:48 (of the claimed range)
 *          with RDX before the hypercall
 *   2..9   RCX, 10..17 RDX, 18..25 R8, 26..121 XMM0..XMM5
 *   122..  guest memory, copied to RAM at the (biased) RDX
 *
 * The fake host aborts whenever the layer breaks its side of the contract
 * (a read that is misaligned, crosses a page or is empty; a flush or IPI
 * naming a VP that does not exist; XMM fetched for a call that is not fast),
 * and returns -1 for reads outside its RAM as the VMM would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"

#define RAM_SIZE	(64u * 1024)
#define PAGE		4096u
#define CALLER		0
#define RESULT_MASK	(0xffffull | (0xfffull << 32))

#define CFG_XMM_INPUT	0x01
#define CFG_XMM_SPILL	0x02
#define CFG_NO_FLUSH	0x10
#define CFG_NO_IPI	0x20
#define CFG_NO_EX	0x40
#define CFG_MSR_FIRST	0x80
#define BIAS_LINUX	0x04

#define OFF_RCX		2
#define OFF_RDX		10
#define OFF_R8		18
#define OFF_XMM		26
#define OFF_MEM		(OFF_XMM + 96)

struct fuzz_host {
	uint8_t ram[RAM_SIZE];
	uint8_t xmm[HV_HCALL_XMM_COUNT][16];
	struct hv_config cfg;
	uint64_t rcx, r8;
	unsigned int flushes, ipis, xmm_reads, crashes;
};

#define check(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz_hv: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		abort();						\
	}								\
} while (0)

static bool in_ram(uint64_t gpa, size_t len)
{
	return len <= RAM_SIZE && gpa <= RAM_SIZE - len;
}

static int host_read_gpa(void *opaque, uint64_t gpa, void *dst, size_t len)
{
	struct fuzz_host *h = opaque;

	/* hv/ promises aligned blocks that stay inside one page. */
	check(len > 0 && len <= PAGE);
	check(gpa % 8 == 0);
	check((gpa % PAGE) + len <= PAGE);
	if (!in_ram(gpa, len))
		return -1;
	memcpy(dst, h->ram + gpa, len);
	return 0;
}

static int host_write_gpa(void *opaque, uint64_t gpa, const void *src, size_t len)
{
	struct fuzz_host *h = opaque;

	/* Only the hypercall page is ever written: one whole page. */
	check(len == PAGE && gpa % PAGE == 0);
	if (!in_ram(gpa, len))
		return -1;
	memcpy(h->ram + gpa, src, len);
	return 0;
}

static int host_read_xmm(void *opaque, unsigned int vcpu, uint8_t xmm[HV_HCALL_XMM_COUNT][16])
{
	struct fuzz_host *h = opaque;

	check(vcpu == CALLER);
	check(h->cfg.xmm_input && (h->rcx & HV_HCALL_FAST_BIT));
	check(h->xmm_reads++ == 0);
	memcpy(xmm, h->xmm, sizeof(h->xmm));
	return 0;
}

static void check_set(const struct fuzz_host *h, const struct hv_vpmask *set)
{
	bool any = false;
	unsigned int vp;

	for (vp = 0; vp < HV_MAX_VP_INDEX; vp++) {
		if (!hv_vpmask_test(set, vp))
			continue;
		check(vp < h->cfg.nr_vcpus);
		any = true;
	}
	check(any);	/* an empty set is handled without the host */
}

static int host_flush_vcpus(void *opaque, unsigned int caller, const struct hv_vpmask *set)
{
	struct fuzz_host *h = opaque;

	check(caller == CALLER);
	check_set(h, set);
	h->flushes++;
	return 0;
}

static int host_send_ipi(void *opaque, const struct hv_vpmask *set, uint32_t vector)
{
	struct fuzz_host *h = opaque;

	check(vector >= HV_IPI_VECTOR_MIN && vector <= HV_IPI_VECTOR_MAX);
	check_set(h, set);
	h->ipis++;
	return 0;
}

static void host_guest_crash(void *opaque, unsigned int vcpu, const uint64_t p[HV_CRASH_PARAMS])
{
	struct fuzz_host *h = opaque;

	(void)p;
	check(h->cfg.crash_msrs && vcpu == CALLER);
	check(h->crashes++ == 0);
}

/*
 * Any clock will do: the TSC is the input's RCX and the host time its R8,
 * so the fuzzer picks both; the TSC is stable when RCX's top bit is clear.
 */
static int host_read_clock(void *opaque, unsigned int vcpu, uint64_t *tsc, uint64_t *ns)
{
	struct fuzz_host *h = opaque;

	check(h->cfg.ref_time && vcpu == CALLER);
	*tsc = h->rcx;
	*ns = h->r8;
	return 0;
}

static bool host_tsc_stable(void *opaque)
{
	const struct fuzz_host *h = opaque;

	check(h->cfg.ref_time);
	return !(h->rcx >> 63);
}

static const struct hv_host_ops host_ops = {
	.read_gpa = host_read_gpa,
	.write_gpa = host_write_gpa,
	.read_xmm = host_read_xmm,
	.flush_vcpus = host_flush_vcpus,
	.send_ipi = host_send_ipi,
	.guest_crash = host_guest_crash,
	.read_clock = host_read_clock,
	.tsc_stable = host_tsc_stable,
};

static uint64_t get_u64(const uint8_t *data, size_t size, size_t off)
{
	uint8_t b[8] = { 0 };
	size_t i;

	for (i = 0; i < 8 && off + i < size; i++)
		b[i] = data[off + i];
	return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
	       (uint64_t)b[3] << 24 | (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 |
	       (uint64_t)b[6] << 48 | (uint64_t)b[7] << 56;
}

/* Steer regular-call GPAs to where the interesting edges are. */
static uint64_t gpa_bias(uint8_t sel, uint64_t raw)
{
	switch (sel & 3) {
	case 0:
		return raw;
	case 1:		/* the last pages of RAM and the first ones past it */
		return RAM_SIZE - 2 * PAGE + (raw & (4 * PAGE - 1));
	case 2:		/* anywhere in RAM */
		return raw % RAM_SIZE;
	default:	/* the top of the 64-bit space, where sums wrap */
		return ~0ull - (raw & (2 * PAGE - 1));
	}
}

static struct hv_config fuzz_config(uint8_t b)
{
	static const unsigned int nr[] = { 1, 4, 64, 130 };

	return (struct hv_config){
		.nr_vcpus = nr[(b >> 2) & 3],
		.xmm_input = b & CFG_XMM_INPUT,
		.xmm_spill = b & CFG_XMM_SPILL,
		.flush_hint = !(b & CFG_NO_FLUSH),
		.ipi_hint = !(b & CFG_NO_IPI),
		.ex_hint = !(b & CFG_NO_EX),
	};
}

static void linux_switches(struct hv_config *cfg)
{
	cfg->endbr_page = cfg->vp_assist = cfg->freq_msrs = true;
	cfg->tsc_invariant = cfg->crash_msrs = cfg->ref_time = true;
	cfg->tsc_hz = 2100000000ull;
	cfg->apic_hz = 1000000000ull;
}

/* Whether `msr` exists with every Linux switch on. */
static bool msr_offered(uint32_t msr)
{
	return msr <= HV_X64_MSR_VP_INDEX || msr == HV_X64_MSR_TSC_FREQUENCY ||
	       msr == HV_X64_MSR_APIC_FREQUENCY || msr == HV_X64_MSR_VP_ASSIST_PAGE ||
	       (msr >= HV_X64_MSR_CRASH_P0 && msr <= HV_X64_MSR_CRASH_CTL) ||
	       msr == HV_X64_MSR_TSC_INVARIANT_CONTROL || msr == HV_X64_MSR_TIME_REF_COUNT ||
	       msr == HV_X64_MSR_REFERENCE_TSC;
}

/*
 * REFERENCE_TSC keeps what it took. An enabled page: with a stable TSC, a
 * new non-zero sequence, the scale for tsc_hz and the offset that makes the
 * page read the host time at the sample; without, sequence 0. TIME_REF_COUNT:
 * the page's formula while it is valid, else the host time in 100 ns.
 */
static void check_ref_time(const struct fuzz_host *h, uint32_t msr, uint64_t val,
			   enum hv_msr_result w, uint64_t back)
{
	uint64_t scale = (uint64_t)(((unsigned __int128)10000000 << 64) / h->cfg.tsc_hz);
	uint64_t gpa = val & ~(uint64_t)(PAGE - 1), at_tsc;
	bool stable = !(h->rcx >> 63);
	struct hv_ref_tsc_page pg;

	at_tsc = (uint64_t)(((unsigned __int128)h->rcx * scale) >> 64);
	if (msr == HV_X64_MSR_TIME_REF_COUNT) {
		check(w == HV_MSR_GP && back == h->r8 / 100);
		return;
	}
	if (!(val & HV_REFERENCE_TSC_ENABLE) || gpa < RAM_SIZE)
		check(w == HV_MSR_OK && back == val);
	else
		check(w == HV_MSR_GP);
	if (w != HV_MSR_OK || !(val & HV_REFERENCE_TSC_ENABLE))
		return;
	memcpy(&pg, h->ram + gpa, sizeof(pg));
	if (!stable) {
		check(pg.sequence == 0 && pg.scale == 0 && pg.offset == 0);
		return;
	}
	check(pg.sequence != 0 && pg.sequence != UINT32_MAX && pg.scale == scale);
	check(at_tsc + (uint64_t)pg.offset == h->r8 / 100);
}

/* One write and one read of an MSR of the claimed range, before the call. */
static void msr_phase(const struct fuzz_host *h, struct hv *hv, uint32_t msr, uint64_t val)
{
	enum hv_msr_result w, r;
	uint64_t back = 0;

	w = hv_msr_write(hv, CALLER, msr, val);
	r = hv_msr_read(hv, CALLER, msr, &back);
	check(w == HV_MSR_OK || w == HV_MSR_GP);
	check(r == (msr_offered(msr) ? HV_MSR_OK : HV_MSR_GP));
	if (!msr_offered(msr))
		check(w == HV_MSR_GP);
	if (msr == HV_X64_MSR_CRASH_CTL)
		check(h->crashes == !!(val & HV_CRASH_CTL_CRASH_NOTIFY));
	else
		check(h->crashes == 0);
	/* P0..P4 and VP_ASSIST_PAGE keep any value; the frequencies are fixed. */
	if ((msr >= HV_X64_MSR_CRASH_P0 && msr <= HV_X64_MSR_CRASH_P4) ||
	    msr == HV_X64_MSR_VP_ASSIST_PAGE)
		check(w == HV_MSR_OK && back == val);
	if (msr == HV_X64_MSR_TSC_FREQUENCY || msr == HV_X64_MSR_APIC_FREQUENCY)
		check(w == HV_MSR_GP && back == (msr == HV_X64_MSR_TSC_FREQUENCY ?
						 h->cfg.tsc_hz : h->cfg.apic_hz));
	if (msr_offered(msr) &&
	    (msr == HV_X64_MSR_TIME_REF_COUNT || msr == HV_X64_MSR_REFERENCE_TSC))
		check_ref_time(h, msr, val, w, back);
}

static bool is_rep_call(uint16_t code)
{
	return code == 0x3 || code == 0x14;
}

static bool is_known_call(uint16_t code)
{
	return hv_call_name(code) != NULL;
}

static void check_result(const struct fuzz_host *h, const struct hv_hcall_out *out)
{
	uint16_t code = h->rcx & 0xffff;
	uint16_t status = out->rax & 0xffff;
	unsigned int reps = (out->rax >> 32) & 0xfff;

	check(out->code == code);
	check(out->enc < HV_ENC_COUNT);
	check((out->enc == HV_ENC_REGULAR) == !(h->rcx & HV_HCALL_FAST_BIT));
	if (out->inject_ud) {
		check(out->rax == 0);
		check(h->flushes + h->ipis + h->xmm_reads == 0);
		return;
	}
	check((out->rax & ~RESULT_MASK) == 0);
	check(status == HV_STATUS_SUCCESS || status == HV_STATUS_INVALID_HYPERCALL_CODE ||
	      status == HV_STATUS_INVALID_HYPERCALL_INPUT ||
	      status == HV_STATUS_INVALID_ALIGNMENT || status == HV_STATUS_INVALID_PARAMETER ||
	      status == HV_STATUS_ACCESS_DENIED || status == HV_STATUS_INVALID_VP_INDEX);
	check(is_known_call(code) || status == HV_STATUS_INVALID_HYPERCALL_CODE);
	if (status == HV_STATUS_SUCCESS && is_rep_call(code))
		check(reps == ((h->rcx >> 32) & 0xfff) && reps > 0);
	else
		check(reps == 0);
	/* Everything is validated before anything is done. */
	if (status != HV_STATUS_SUCCESS)
		check(h->flushes + h->ipis == 0);
	check(h->flushes + h->ipis <= 1);
}

static struct fuzz_host host;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t cfg_byte = size > 0 ? data[0] : 0;
	uint8_t bias = size > 1 ? data[1] : 0;
	struct hv_hcall_in in;
	struct hv_hcall_out out;
	struct hv *hv;
	size_t i;

	memset(&host, 0, sizeof(host));
	host.cfg = fuzz_config(cfg_byte);
	if (bias & BIAS_LINUX)
		linux_switches(&host.cfg);
	/* --hv-vp-base 64 for half the Linux-shaped runs (4 or 130 vCPUs): sets stay in vCPU space. */
	if ((bias & BIAS_LINUX) && (cfg_byte & 0x04))
		host.cfg.vp_base = 64;
	hv = hv_create(&host.cfg, &host_ops, &host);
	check(hv != NULL);
	check(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, 1) == HV_MSR_OK);
	check(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL, HV_HYPERCALL_ENABLE) == HV_MSR_OK);

	in.rcx = get_u64(data, size, OFF_RCX);
	in.rdx = get_u64(data, size, OFF_RDX);
	in.r8 = get_u64(data, size, OFF_R8);
	if (!(in.rcx & HV_HCALL_FAST_BIT))
		in.rdx = gpa_bias(bias, in.rdx);
	host.rcx = in.rcx;
	host.r8 = in.r8;
	for (i = 0; i < sizeof(host.xmm) && OFF_XMM + i < size; i++)
		host.xmm[i / 16][i % 16] = data[OFF_XMM + i];
	for (i = 0; OFF_MEM + i < size && in.rdx + i < RAM_SIZE && in.rdx + i >= in.rdx; i++)
		host.ram[in.rdx + i] = data[OFF_MEM + i];

	if (bias & BIAS_LINUX)
		msr_phase(&host, hv, HV_X64_MSR_CLAIM_FIRST + ((in.r8 >> 48) & 0x1ff), in.rdx);
	if (cfg_byte & CFG_MSR_FIRST) {
		enum hv_msr_result r = hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL, in.r8);

		check(r == HV_MSR_OK || r == HV_MSR_GP);
	}

	hv_hypercall(hv, CALLER, &in, &out);
	check_result(&host, &out);
	hv_destroy(hv);
	return 0;
}
