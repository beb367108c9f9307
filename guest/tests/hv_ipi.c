// SPDX-License-Identifier: MIT
/*
 * hv-ipi: SendSyntheticClusterIpi{,Ex} must interrupt exactly the VPs they
 * name, once each. Receivers sit in smp_service_loop() (halted, IF=1); the
 * sender (vCPU 0, interrupts on while it waits) counts too, so SET_ALL and
 * "every VP" masks include it. After the targets have their interrupt, a
 * short settle lets a wrong delivery show up before every vCPU's count is
 * compared with exactly 1 or 0.
 */
#include "lib/boot.h"
#include "lib/hvtest.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/string.h"
#include "suite.h"

enum ipi_set {
	SET_ONE,		/* the last VP (non-Ex: the last one a mask can name) */
	SET_TWO,		/* VP 1 and the last VP */
	SET_EVERY,		/* every VP by its bit, the sender included */
	SET_EMPTY,		/* no VP: nothing may arrive */
	SET_BANK1,		/* a VP with an index in 64..127 */
	SET_ALL_FORMAT,		/* HV_GENERIC_SET_ALL */
	SET_TWO_BANKS,		/* the last VP, with the bank after it listed but empty */
	SET_EACH_BANK,		/* one VP in every bank the VM has */
	SET_HOLES,		/* the first and last VP of every other bank: holes between */
	SET_LAST_BANK,		/* the first and the last VP of the last bank */
};

/* For a case that cannot run here, which has no targets to name. */
static const char *const set_labels[] = {
	"the last VP", "two VPs", "every VP", "an empty mask", "a VP in bank 1", "SET_ALL",
	"two banks", "a VP in each bank", "every other bank", "the last bank",
};

struct ipi_case {
	u16 code;
	enum hvt_enc enc;
	enum ipi_set set;
};

static const struct ipi_case ipi_cases[] = {
	{ HVCALL_SEND_IPI, HVT_MEM, SET_ONE },
	{ HVCALL_SEND_IPI, HVT_FAST, SET_TWO },
	{ HVCALL_SEND_IPI, HVT_MEM, SET_EVERY },
	{ HVCALL_SEND_IPI, HVT_FAST, SET_EMPTY },
	{ HVCALL_SEND_IPI_EX, HVT_MEM, SET_ONE },
	{ HVCALL_SEND_IPI_EX, HVT_MEM, SET_BANK1 },
	{ HVCALL_SEND_IPI_EX, HVT_MEM, SET_TWO },
	{ HVCALL_SEND_IPI_EX, HVT_MEM, SET_ALL_FORMAT },
	{ HVCALL_SEND_IPI_EX, HVT_MEM, SET_TWO_BANKS },
	{ HVCALL_SEND_IPI_EX, HVT_MEM, SET_EVERY },
	{ HVCALL_SEND_IPI_EX, HVT_MEM, SET_EACH_BANK },
	{ HVCALL_SEND_IPI_EX, HVT_MEM, SET_HOLES },
	{ HVCALL_SEND_IPI_EX, HVT_MEM, SET_LAST_BANK },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_ONE },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_BANK1 },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_TWO },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_ALL_FORMAT },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_TWO_BANKS },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_EACH_BANK },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_HOLES },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_LAST_BANK },
};

/*
 * XMM-fast SendIpiEx input: RDX, R8 and XMM0..5 are 14 qwords; the vector
 * and the set's two header qwords leave room for 11 banks.
 */
#define XMM_IPI_BANKS		(HVT_XMM_QWORDS - 3)

static u64 vp_bit(u32 vp)
{
	return 1ull << vp;
}

/* One VP in each bank: bank b's VP moves with b, so no two share a bit. */
static void each_bank(struct hvt_vps *s)
{
	for (u32 b = 0; b < hvt_vm_banks(); b++) {
		u32 width = MIN(64u, boot_nr_cpus - 64 * b);

		hvt_vps_add(s, 64 * b + (b * 7 + 1) % width);
	}
}

static void holes(struct hvt_vps *s)
{
	for (u32 b = 0; b < hvt_vm_banks(); b += 2) {
		hvt_vps_add(s, 64 * b);
		hvt_vps_add(s, MIN(64 * b + 63, boot_nr_cpus - 1));
	}
}

/*
 * The targets of a case; false (with *skip) when impossible here. A non-Ex
 * call names VPs by a 64-bit mask, so its sets stop at VP 63.
 */
static bool set_targets(const struct ipi_case *c, struct hvt_vps *t, const char **skip)
{
	bool ex = c->code == HVCALL_SEND_IPI_EX;
	u32 last = ex ? boot_nr_cpus - 1 : MIN(boot_nr_cpus - 1, 63u);

	memset(t, 0, sizeof(*t));
	*skip = NULL;
	switch (c->set) {
	case SET_ONE:
	case SET_TWO_BANKS:
		hvt_vps_add(t, last);
		break;
	case SET_TWO:
		if (boot_nr_cpus < 3)
			*skip = "needs 3 vCPUs (sender plus two receivers)";
		hvt_vps_add(t, 1);
		hvt_vps_add(t, last);
		break;
	case SET_EVERY:
	case SET_ALL_FORMAT:
		hvt_vps_range(t, 0, last);
		break;
	case SET_EMPTY:
		break;
	case SET_BANK1:
		if (boot_nr_cpus <= 64)
			*skip = "no VP index is in bank 1 (64..127) with at most 64 vCPUs";
		hvt_vps_add(t, MIN(64 + 37, boot_nr_cpus - 1));
		break;
	case SET_EACH_BANK:
		each_bank(t);
		break;
	case SET_HOLES:
		if (hvt_vm_banks() < 3)
			*skip = "needs 3 banks (more than 128 vCPUs) for a hole between two";
		holes(t);
		break;
	case SET_LAST_BANK:
		hvt_vps_add(t, (last / 64) * 64);
		hvt_vps_add(t, last);
		break;
	}
	if (c->enc == HVT_XMM && c->set != SET_ALL_FORMAT)
		hvt_vps_fit_banks(t, c->set == SET_TWO_BANKS ? XMM_IPI_BANKS - 1 : XMM_IPI_BANKS);
	return !*skip;
}

static void describe(const struct ipi_case *c, const struct hvt_vps *t, char *what, size_t len)
{
	char vps[64];
	u32 banks = hvt_vps_nr_banks(t);

	hvt_vps_describe(t, vps, sizeof(vps));
	switch (c->set) {
	case SET_EVERY:
	case SET_ALL_FORMAT:
		snprintf(what, len, "%s (%u VPs, sender included)",
			 c->set == SET_EVERY ? "every VP's bit" : "SET_ALL", hvt_vps_count(t));
		break;
	case SET_EMPTY:
		snprintf(what, len, "an empty mask (nothing arrives)");
		break;
	case SET_TWO_BANKS:
		snprintf(what, len, "VP %s, its bank and the next listed (the next empty)", vps);
		break;
	case SET_EACH_BANK:
	case SET_HOLES:
	case SET_LAST_BANK:
		snprintf(what, len, "%s: VPs %s in %u banks",
			 c->set == SET_EACH_BANK ? "a VP in each bank" :
			 c->set == SET_HOLES ? "every other bank" : "the last bank", vps, banks);
		break;
	default:
		snprintf(what, len, "%s %s", hvt_vps_count(t) > 1 ? "VPs" : "VP",
			 vps[0] ? vps : "?");
	}
}

/* The input block; returns the variable header size (banks). */
static u32 build_input(const struct ipi_case *c, const struct hvt_vps *t, struct hvt_in *in)
{
	hvt_put(in, HVT_IPI_VECTOR);
	if (c->code == HVCALL_SEND_IPI) {
		hvt_put(in, t->bank[0]);
		return 0;
	}
	if (c->set == SET_ALL_FORMAT)
		return hvt_put_vpset(in, HV_GENERIC_SET_ALL, 0, NULL);
	if (c->set == SET_TWO_BANKS) {
		u32 b = (boot_nr_cpus - 1) / 64;
		const u64 banks[2] = { t->bank[b], 0 };

		return hvt_put_vpset(in, HV_GENERIC_SET_SPARSE_4K, 3ull << b, banks);
	}
	return hvt_put_vps(in, t);
}

/* Send, then check every vCPU's count; the check settles even after a failed call. */
static bool send_and_check(enum hvt_enc enc, u64 control, const struct hvt_in *in,
			   const struct hvt_vps *targets, char *why, size_t len)
{
	static const struct hvt_vps none;
	u64 rax;
	bool delivered;

	hvt_ipi_clear();
	rax = hvt_call(enc, control, in);
	delivered = hvt_ipi_check_vps(rax == HV_STATUS_SUCCESS ? targets : &none, why, len);
	if (rax != HV_STATUS_SUCCESS) {
		snprintf(why, len, "result 0x%lx, expected 0", rax);
		return false;
	}
	return delivered;
}

static void run_case(const struct ipi_case *c)
{
	const char *call = c->code == HVCALL_SEND_IPI ? "SendSyntheticClusterIpi" :
			   "SendSyntheticClusterIpiEx";
	char name[160], what[112], why[128] = "";
	struct hvt_in in = { .n = 0 };
	struct hvt_vps targets;
	const char *skip;
	bool possible = set_targets(c, &targets, &skip);
	u32 banks;

	describe(c, &targets, what, sizeof(what));
	snprintf(name, sizeof(name), "%s %s to %s: exactly the targets, once",
		 call, hvt_enc_name(c->enc), possible ? what : "");
	if (!possible) {
		snprintf(name, sizeof(name), "%s %s to %s: exactly the targets, once", call,
			 hvt_enc_name(c->enc), set_labels[c->set]);
		report_skip(name, "%s", skip);
		return;
	}
	banks = build_input(c, &targets, &in);
	report_why(send_and_check(c->enc, hvt_control(c->code, banks, 0, 0), &in, &targets,
				  why, sizeof(why)), name, "%s", why);
}

/*
 * The set lives only in XMM0 (valid banks low, bank 0 high); XMM1..5 hold
 * decoy sets naming another VP, and the target moves with every call. A
 * VMM reading the wrong register, a stale copy from the previous call or
 * another vCPU's registers delivers to the wrong VP (or to none).
 */
#define XMM_DATA_ROUNDS_MAX	64

static void check_xmm_data(void)
{
	const char *name = "SendIpiEx XMM-fast: set only in XMM0, decoys in XMM1-5, "
			   "a new target each call";
	char why[128] = "";
	u32 n = boot_nr_cpus, rounds = MIN(n, (u32)XMM_DATA_ROUNDS_MAX);
	u32 stride = n > rounds ? n / rounds : 1;

	for (u32 round = 0; round < rounds; round++) {
		u32 target = (round * stride + 1) % n, decoy = (target + 1) % n;
		struct hvt_in in = { .n = 0 };
		struct hvt_vps want = { { 0 } };

		hvt_vps_add(&want, target);
		hvt_put(&in, HVT_IPI_VECTOR);			/* RDX */
		hvt_put(&in, HV_GENERIC_SET_SPARSE_4K);		/* R8 */
		hvt_put(&in, 1ull << (target / 64));		/* XMM0: the target's bank valid */
		hvt_put(&in, vp_bit(target % 64));		/*        that bank */
		while (in.n < HVT_XMM_QWORDS) {
			hvt_put(&in, 1ull << (decoy / 64));
			hvt_put(&in, vp_bit(decoy % 64));
		}
		if (!send_and_check(HVT_XMM, hvt_control(HVCALL_SEND_IPI_EX, 1, 0, 0), &in,
				    &want, why, sizeof(why))) {
			report_fail(name, "call %u, target VP %u: %s", round, target, why);
			return;
		}
	}
	report_pass("%s (%u calls)", name, rounds);
}

void hv_ipi_part(void)
{
	if (!hvt_ready())
		return;
	if (boot_nr_cpus < 2) {
		report_skip("Hyper-V IPIs", "only one vCPU");
		return;
	}
	hvt_ipi_arm();
	/* The XMM-fast rows come last in the table. */
	for (u32 i = 0; i < ARRAY_SIZE(ipi_cases); i++) {
		if (ipi_cases[i].enc == HVT_XMM && !hvt_xmm_offered()) {
			report_skip("SendSyntheticClusterIpiEx XMM-fast cases",
				    "XMM input not advertised");
			break;
		}
		run_case(&ipi_cases[i]);
	}
	if (hvt_xmm_offered())
		check_xmm_data();
	hvt_ipi_disarm();
}

static void suite_hv_ipi(const char *arg)
{
	(void)arg;
	hv_ipi_part();
}

DEFINE_SUITE(22, suite_hv_ipi, "hv-ipi", false, NULL,
	     "Hyper-V SendSyntheticClusterIpi{,Ex}: exact delivery in every encoding");
