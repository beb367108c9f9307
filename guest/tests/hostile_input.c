// SPDX-License-Identifier: MIT
/*
 * hostile: the input value and the parameters. Every reserved bit of RCX
 * on every call and encoding, unknown call codes, a variable header where
 * none belongs, IPI vectors 0..15 and 256 and up, target VTLs and the
 * ReservedZ bits of the IPI input, reserved flush flags, processor masks
 * naming VPs that do not exist. The decode
 * order of docs/hyperv.md decides which status wins when several apply.
 */
#include "lib/boot.h"
#include "lib/extable.h"
#include "lib/hv.h"
#include "lib/irq.h"
#include "lib/percpu.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/string.h"
#include "lib/timing.h"
#include "tests/hostile.h"

#define IPI_VECTOR	0x53	/* valid; every IPI here has an empty mask */
#define NR_CALLS	6

/*
 * Sweeps report one line: how many tries, and the first that went wrong.
 * Under KVM's Hyper-V each try expects KVM's answer; `differs` says some
 * answer was not minivmm's, so the line names the verdict.
 */
struct sweep {
	u32 tries, bad;
	bool differs;
	u64 first_ctl, first_arg, first_rax, first_want;
};

static void sweep_check_kvm(struct sweep *s, u64 ctl, u64 arg, u64 rax, u64 want, u64 kvm_want)
{
	s->differs |= kvm_want != want;
	if (hv_kvm_serves())
		want = kvm_want;
	s->tries++;
	if (rax == want)
		return;
	if (!s->bad++) {
		s->first_ctl = ctl;
		s->first_arg = arg;
		s->first_rax = rax;
		s->first_want = want;
	}
}

static void sweep_check(struct sweep *s, u64 ctl, u64 arg, u64 rax, u64 want)
{
	sweep_check_kvm(s, ctl, arg, rax, want, want);
}

static void sweep_report_kvm(const struct sweep *s, const char *name, enum hvd_verdict v,
			     const char *kvm_does)
{
	char why[160];

	snprintf(why, sizeof(why),
		 "%u of %u wrong; first: input 0x%lx, arg 0x%lx: result 0x%lx, expected 0x%lx",
		 s->bad, s->tries, s->first_ctl, s->first_arg, s->first_rax, s->first_want);
	hvd_report(!s->bad && s->tries, s->differs ? v : HVD_SAME, kvm_does, why, "%s", name);
}

static void sweep_report(const struct sweep *s, const char *name)
{
	sweep_report_kvm(s, name, HVD_SAME, "");
}

static const u16 calls[NR_CALLS] = {
	HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST,
	HVCALL_SEND_IPI, HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX,
	HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, HVCALL_SEND_IPI_EX,
};

static bool is_rep(u16 code)
{
	return code == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST ||
	       code == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX;
}

static bool is_ipi(u16 code)
{
	return code == HVCALL_SEND_IPI || code == HVCALL_SEND_IPI_EX;
}

/* The smallest valid input value: one GVA entry for the rep calls. */
static u64 valid_ctl(u16 code)
{
	return hcall_ctl(code, 0, is_rep(code) ? 1 : 0, 0);
}

static u64 valid_result(u16 code)
{
	return is_rep(code) ? 1ull << HV_HCALL_RESULT_REPS_SHIFT : HV_STATUS_SUCCESS;
}

/*
 * A block every call accepts: zeros (no flags, empty mask or empty sparse
 * set, a zero GVA entry), with a valid vector first for the IPIs.
 */
static void put_valid(u64 *b, u16 code)
{
	memset(b, 0, 64);
	if (is_ipi(code))
		b[0] = IPI_VECTOR;
}

static void valid_baseline(void)
{
	struct sweep s = { 0 };

	for (u32 i = 0; i < NR_CALLS; i++) {
		u64 ctl = valid_ctl(calls[i]);

		put_valid(hostile_in, calls[i]);
		sweep_check(&s, ctl, 0, hv_hcall(ctl, (uintptr_t)hostile_in, 0),
			    valid_result(calls[i]));
	}
	sweep_report(&s, "each call with a minimal valid input succeeds");
}

static void reserved_regular(void)
{
	struct sweep s = { 0 };

	for (u32 i = 0; i < NR_CALLS; i++) {
		put_valid(hostile_in, calls[i]);
		for (u32 bit = 0; bit < 64; bit++) {
			u64 ctl = valid_ctl(calls[i]) | (1ull << bit);

			if (!(HV_HCALL_RSVD_MASK & (1ull << bit)))
				continue;
			sweep_check(&s, ctl, bit, hv_hcall(ctl, (uintptr_t)hostile_in, 0),
				    HV_STATUS_INVALID_HYPERCALL_INPUT);
		}
		sweep_check(&s, valid_ctl(calls[i]) | HV_HCALL_RSVD_MASK, 64,
			    hv_hcall(valid_ctl(calls[i]) | HV_HCALL_RSVD_MASK,
				     (uintptr_t)hostile_in, 0),
			    HV_STATUS_INVALID_HYPERCALL_INPUT);
	}
	sweep_report(&s, "every reserved input bit (and all at once), six calls, regular");
}

static void reserved_fast(void)
{
	struct sweep s = { 0 }, x = { 0 };
	u64 xin[14] = { 0 };

	for (u32 bit = 0; bit < 64; bit++) {
		u64 b = 1ull << bit;

		if (!(HV_HCALL_RSVD_MASK & b))
			continue;
		sweep_check(&s, HVCALL_SEND_IPI | b, bit,
			    hv_hcall_fast(HVCALL_SEND_IPI | b, IPI_VECTOR, 0),
			    HV_STATUS_INVALID_HYPERCALL_INPUT);
		if (!hostile_xmm())
			continue;
		for (u32 i = 0; i < NR_CALLS; i++) {
			u64 ctl = valid_ctl(calls[i]) | b;

			if (calls[i] == HVCALL_SEND_IPI)
				continue;
			xin[0] = is_ipi(calls[i]) ? IPI_VECTOR : 0;
			sweep_check(&x, ctl, bit, hv_hcall_xmm(ctl, xin),
				    HV_STATUS_INVALID_HYPERCALL_INPUT);
		}
	}
	sweep_report(&s, "every reserved input bit, SendIpi fast");
	if (hostile_xmm())
		sweep_report(&x, "every reserved input bit, five calls, XMM-fast");
	else
		report_skip("every reserved input bit, XMM-fast", "XMM input not advertised");
}

/* Unknown codes outrank everything else, reserved bits included. */
static void unknown_codes(void)
{
	static const u16 codes[] = { 0x0000, 0x0001, 0x0004, 0x0008, 0x0012, 0x0016,
				     0x00ff, 0x8002, 0x800b, 0xfffe, 0xffff };
	struct sweep s = { 0 };
	u64 xin[14] = { 0 };

	memset(hostile_in, 0, 64);
	for (u32 i = 0; i < ARRAY_SIZE(codes); i++) {
		u64 ctl = codes[i], rsvd = codes[i] | HV_HCALL_RSVD_MASK;
		const u64 code = HV_STATUS_INVALID_HYPERCALL_CODE;
		/* KVM knows 0x0008 and, as 0x40000004.EBX says never, denies it. */
		bool spin = codes[i] == HVCALL_NOTIFY_LONG_SPIN_WAIT;
		u64 kvm = spin ? HV_STATUS_ACCESS_DENIED : code;

		sweep_check_kvm(&s, ctl, 0, hv_hcall(ctl, (uintptr_t)hostile_in, 0), code, kvm);
		sweep_check_kvm(&s, rsvd, 0, hv_hcall(rsvd, (uintptr_t)hostile_in, 0), code,
				spin ? kvm : HV_STATUS_INVALID_HYPERCALL_INPUT);
		sweep_check_kvm(&s, ctl, 1, hv_hcall_fast(ctl, 0, 0), code, kvm);
		if (hostile_xmm())
			sweep_check_kvm(&s, ctl, 2, hv_hcall_xmm(ctl, xin), code, kvm);
	}
	sweep_report_kvm(&s, "unknown call codes (with and without reserved bits, every encoding)",
			 HVD_TLFS_SILENT, "KVM checks reserved bits before the code, and denies "
			 "0x0008 (NotifyLongSpinWait, not recommended)");
}

/* Only the Ex calls have a variable header (their banks). */
static void varhead_on_plain_calls(void)
{
	struct sweep s = { 0 };

	for (u32 i = 0; i < NR_CALLS; i++) {
		if (calls[i] == HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX ||
		    calls[i] == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX ||
		    calls[i] == HVCALL_SEND_IPI_EX)
			continue;
		put_valid(hostile_in, calls[i]);
		for (u32 var = 1; var <= 0x3ff; var = var * 2 + 1) {
			u64 ctl = valid_ctl(calls[i]) | ((u64)var << HV_HCALL_VARHEAD_SHIFT);

			sweep_check(&s, ctl, var, hv_hcall(ctl, (uintptr_t)hostile_in, 0),
				    HV_STATUS_INVALID_HYPERCALL_INPUT);
		}
	}
	sweep_report(&s, "variable header on Space, List and SendIpi");
}

static const u32 bad_vectors[] = {
	0, 1, 2, 8, 14, 15, 0x100, 0x101, 0x153, 0x1000, 0x10000, 0x7fffffff, 0x80000000,
	0xffffffff,
};

/*
 * Vector first in every form; the set is empty, yet the vector is checked.
 * KVM (kvm_hv_send_ipi) says INVALID_HYPERCALL_INPUT, and for an empty Ex
 * set SUCCESS before it looks at the vector.
 */
static void bad_vector_forms(struct sweep *s, struct sweep *ex, u32 vec)
{
	const u64 param = HV_STATUS_INVALID_PARAMETER, inval = HV_STATUS_INVALID_HYPERCALL_INPUT;
	u64 xin[14] = { vec };

	hostile_in[0] = vec;
	hostile_in[1] = 0;
	sweep_check_kvm(s, HVCALL_SEND_IPI, vec,
			hv_hcall(HVCALL_SEND_IPI, (uintptr_t)hostile_in, 0), param, inval);
	sweep_check_kvm(s, HVCALL_SEND_IPI | HV_HCALL_FAST_BIT, vec,
			hv_hcall_fast(HVCALL_SEND_IPI, vec, 0), param, inval);
	hostile_in[2] = 0;	/* SendIpiEx: format sparse, no banks */
	hostile_in[3] = 0;
	sweep_check_kvm(ex, HVCALL_SEND_IPI_EX, vec,
			hv_hcall(HVCALL_SEND_IPI_EX, (uintptr_t)hostile_in, 0), param,
			HV_STATUS_SUCCESS);
	if (hostile_xmm())
		sweep_check_kvm(ex, HVCALL_SEND_IPI_EX | HV_HCALL_FAST_BIT, vec,
				hv_hcall_xmm(HVCALL_SEND_IPI_EX, xin), param, HV_STATUS_SUCCESS);
}

static void vectors(void)
{
	struct sweep s = { 0 }, ex = { 0 }, ok = { 0 };

	for (u32 i = 0; i < ARRAY_SIZE(bad_vectors); i++)
		bad_vector_forms(&s, &ex, bad_vectors[i]);
	sweep_report_kvm(&s, "IPI vectors 0..15 and 256 and up, SendIpi: INVALID_PARAMETER",
			 HVD_TLFS_SILENT, "INVALID_HYPERCALL_INPUT");
	sweep_report_kvm(&ex, "IPI vectors 0..15 and 256 and up, SendIpiEx with an empty set: "
			 "INVALID_PARAMETER", HVD_KVM_DEVIATES,
			 "SUCCESS: an empty set is not checked further");
	sweep_check(&ok, HVCALL_SEND_IPI, 0x10, hv_hcall_fast(HVCALL_SEND_IPI, 0x10, 0),
		    HV_STATUS_SUCCESS);
	sweep_check(&ok, HVCALL_SEND_IPI, 0xff, hv_hcall_fast(HVCALL_SEND_IPI, 0xff, 0),
		    HV_STATUS_SUCCESS);
	sweep_report(&ok, "IPI vectors 0x10 and 0xff accepted");
}

/*
 * RDX of fast SendIpi: vector, then HV_INPUT_VTL in byte 4 (ReservedZ
 * 7:5), then bytes 5..7, which must be zero too (docs/hyperv.md).
 */
static void target_vtl(void)
{
	const u64 v = IPI_VECTOR;
	const u16 ipi = HVCALL_SEND_IPI;
	struct sweep s = { 0 };

	for (u32 bit = 37; bit < 64; bit++)
		sweep_check(&s, ipi | HV_HCALL_FAST_BIT, bit,
			    hv_hcall_fast(ipi, v | 1ull << bit, 0),
			    HV_STATUS_INVALID_HYPERCALL_INPUT);
	sweep_report(&s, "SendIpi fast, RDX bits 63:37 (VTL ReservedZ, bytes 5..7): "
		     "INVALID_HYPERCALL_INPUT");
	/* KVM's fast form refuses anything in RDX 63:32, HV_INPUT_VTL included. */
	hcall_expect_kvm("UseTargetVtl with VTL 1", hv_hcall_fast(ipi, v | 0x11ull << 32, 0),
			 HV_STATUS_INVALID_PARAMETER, 0, HV_STATUS_INVALID_HYPERCALL_INPUT, 0,
			 HVD_TLFS_SILENT);
	hcall_expect_kvm("UseTargetVtl with VTL 0", hv_hcall_fast(ipi, v | 0x10ull << 32, 0),
			 HV_STATUS_SUCCESS, 0, HV_STATUS_INVALID_HYPERCALL_INPUT, 0,
			 HVD_KVM_DEVIATES);
	hcall_expect_kvm("VTL 1 without UseTargetVtl is ignored",
			 hv_hcall_fast(ipi, v | 0x01ull << 32, 0), HV_STATUS_SUCCESS, 0,
			 HV_STATUS_INVALID_HYPERCALL_INPUT, 0, HVD_KVM_DEVIATES);
}

/*
 * The same ReservedZ bits in the memory and XMM-fast forms of both calls:
 * bits 39:37 (HV_INPUT_VTL's ReservedZ) and 63:40 (the padding). KVM reads
 * neither in these forms.
 */
static void ipi_reserved_bits(struct sweep *s, u32 from, u32 to)
{
	const u64 inval = HV_STATUS_INVALID_HYPERCALL_INPUT, ok = HV_STATUS_SUCCESS;
	u64 xin[14] = { 0 };

	for (u32 bit = from; bit <= to; bit++) {
		u64 head = IPI_VECTOR | 1ull << bit;

		put_valid(hostile_in, HVCALL_SEND_IPI);
		hostile_in[0] = head;
		sweep_check_kvm(s, HVCALL_SEND_IPI, bit,
				hv_hcall(HVCALL_SEND_IPI, (uintptr_t)hostile_in, 0), inval, ok);
		sweep_check_kvm(s, HVCALL_SEND_IPI_EX, bit,
				hv_hcall(HVCALL_SEND_IPI_EX, (uintptr_t)hostile_in, 0), inval, ok);
		xin[0] = head;
		if (hostile_xmm())
			sweep_check_kvm(s, HVCALL_SEND_IPI_EX | HV_HCALL_FAST_BIT, bit,
					hv_hcall_xmm(HVCALL_SEND_IPI_EX, xin), inval, ok);
	}
}

static void ipi_reserved_forms(void)
{
	struct sweep vtl = { 0 }, pad = { 0 };

	ipi_reserved_bits(&vtl, 37, 39);
	ipi_reserved_bits(&pad, 40, 63);
	sweep_report_kvm(&vtl, "SendIpi{,Ex} bits 39:37 (HV_INPUT_VTL ReservedZ), memory and XMM: "
			 "INVALID_HYPERCALL_INPUT", HVD_KVM_DEVIATES, "ignored, SUCCESS");
	sweep_report_kvm(&pad, "SendIpi{,Ex} bits 63:40 (padding), memory and XMM: "
			 "INVALID_HYPERCALL_INPUT", HVD_MINIVMM_STRICTER, "ignored, SUCCESS");
}

/*
 * Bits 4..63 are ReservedZ: malformed input. Bit 3 (extended ranges, not
 * offered) and bit 2 on the List calls are defined flags the call cannot
 * honour: invalid parameters.
 */
static u64 flush_flag_status(u32 bit)
{
	return bit >= 4 ? HV_STATUS_INVALID_HYPERCALL_INPUT : HV_STATUS_INVALID_PARAMETER;
}

/* Bits 3..63 of the flush flags, each alone; bit 2 on the List calls. */
static void flush_flags(void)
{
	struct sweep s = { 0 };

	for (u32 i = 0; i < NR_CALLS; i++) {
		if (is_ipi(calls[i]))
			continue;
		for (u32 bit = 2; bit < 64; bit++) {
			u64 ctl = valid_ctl(calls[i]);

			if (bit == 2 && !is_rep(calls[i]))
				continue;	/* NON_GLOBAL_MAPPINGS_ONLY: valid on Space */
			put_valid(hostile_in, calls[i]);
			hostile_in[1] = 1ull << bit;
			sweep_check_kvm(&s, ctl, bit, hv_hcall(ctl, (uintptr_t)hostile_in, 0),
					flush_flag_status(bit), valid_result(calls[i]));
		}
	}
	sweep_report_kvm(&s, "reserved flush flags (INVALID_HYPERCALL_INPUT), extended ranges "
			 "and List with NON_GLOBAL (INVALID_PARAMETER)", HVD_KVM_DEVIATES,
			 "no flag but ALL_PROCESSORS is read: SUCCESS");
}

static u32 past_hits;

static void past_irq(struct trap_frame *tf)
{
	(void)tf;
	WRITE_ONCE(past_hits, past_hits + 1);
}

/* Interrupts this VP took since the last call: taken at once, then counted. */
static u32 take_past_irqs(u32 want)
{
	u32 got;

	irq_enable();
	if (want)
		wait_until(READ_ONCE(past_hits) >= want, 1000000);
	udelay(200);
	irq_disable();
	got = READ_ONCE(past_hits);
	WRITE_ONCE(past_hits, 0);
	return got;
}

/*
 * A mask bit at or past CPUID 0x40000005.EAX names no VP. KVM skips it
 * (sparse_set_to_vcpu_mask) and serves VP 0, this one: each IPI then
 * interrupts it exactly once.
 */
static void masks_past_partition(void)
{
	u32 nr = boot_nr_cpus;
	struct sweep s = { 0 }, irqs = { 0 };
	const u64 bad = HV_STATUS_INVALID_VP_INDEX, ok = HV_STATUS_SUCCESS;

	irq_register(IPI_VECTOR, past_irq);
	for (u32 bit = nr; bit < 64; bit++) {
		u64 m = 1ull << bit;
		u32 want = hv_kvm_serves() ? 1 : 0;

		put_valid(hostile_in, HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE);
		hostile_in[2] = m | 1;
		sweep_check_kvm(&s, HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, m,
				hv_hcall(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE,
					 (uintptr_t)hostile_in, 0), bad, ok);
		sweep_check_kvm(&s, HVCALL_SEND_IPI, m,
				hv_hcall_fast(HVCALL_SEND_IPI, IPI_VECTOR, m | 1), bad, ok);
		sweep_check_kvm(&irqs, HVCALL_SEND_IPI, m, take_past_irqs(want), 0, 1);
	}
	irq_unregister(IPI_VECTOR);
	if (nr >= 64) {
		report_skip("processor masks past the partition", "64 vCPUs fill the mask");
		return;
	}
	sweep_report_kvm(&s, "processor masks naming VPs past the partition: INVALID_VP_INDEX",
			 HVD_KVM_DEVIATES, "absent VPs skipped, SUCCESS");
	sweep_report_kvm(&irqs, "... and no interrupt reached VP 0, the valid member",
			 HVD_KVM_DEVIATES, "VP 0 interrupted once per SendIpi");
}

/*
 * Without XMM input offered, an XMM-fast call is #UD (decode step 5); a
 * reserved bit is found first (step 4) and wins.
 */
static void xmm_not_offered(void)
{
	const u64 ctl = HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE | HV_HCALL_FAST_BIT;
	u64 rax = 0;
	int v;

	if (hostile_xmm()) {
		report_skip("XMM-fast call without XMM input", "XMM input is offered");
		return;
	}
	v = hostile_raw_trap(ctl, 0, 0, &rax);
	report_why(v == UD_VECTOR, "XMM-fast call without XMM input raises #UD", "vector %d", v);
	v = hostile_raw_trap(ctl | (1ull << 44), 0, 0, &rax);
	report_why(v == EX_NONE && rax == HV_STATUS_INVALID_HYPERCALL_INPUT,
		   "XMM-fast call with a reserved bit: INVALID_HYPERCALL_INPUT before #UD",
		   "vector %d, result 0x%lx", v, rax);
}

void hostile_input(void)
{
	valid_baseline();
	reserved_regular();
	reserved_fast();
	unknown_codes();
	varhead_on_plain_calls();
	vectors();
	target_vtl();
	ipi_reserved_forms();
	flush_flags();
	masks_past_partition();
	xmm_not_offered();
}
