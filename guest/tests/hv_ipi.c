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
#include "suite.h"

enum ipi_set {
	SET_ONE,		/* the last VP */
	SET_TWO,		/* VP 1 and the last VP */
	SET_EVERY,		/* every VP by its bit, the sender included */
	SET_EMPTY,		/* no VP: nothing may arrive */
	SET_BANK1,		/* a VP with an index in 64..127 */
	SET_ALL_FORMAT,		/* HV_GENERIC_SET_ALL */
	SET_TWO_BANKS,		/* the last VP, with bank 1 listed but empty */
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
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_ONE },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_BANK1 },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_TWO },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_ALL_FORMAT },
	{ HVCALL_SEND_IPI_EX, HVT_XMM, SET_TWO_BANKS },
};

static u64 vp_bit(u32 vp)
{
	return 1ull << vp;
}

static u64 every_vp(void)
{
	return boot_nr_cpus >= 64 ? ~0ull : vp_bit(boot_nr_cpus) - 1;
}

/* The target mask and its description; false (with *skip) when impossible here. */
static bool set_targets(enum ipi_set set, u64 *targets, char *what, size_t len,
			const char **skip)
{
	u32 last = boot_nr_cpus - 1;

	*skip = NULL;
	switch (set) {
	case SET_ONE:
		*targets = vp_bit(last);
		snprintf(what, len, "VP %u", last);
		break;
	case SET_TWO:
		if (boot_nr_cpus < 3)
			*skip = "needs 3 vCPUs (sender plus two receivers)";
		*targets = vp_bit(1) | vp_bit(last);
		snprintf(what, len, *skip ? "two VPs" : "VPs 1 and %u", last);
		break;
	case SET_EVERY:
	case SET_ALL_FORMAT:
		*targets = every_vp();
		snprintf(what, len, "%s (%u VPs, sender included)",
			 set == SET_EVERY ? "every VP's bit" : "SET_ALL", boot_nr_cpus);
		break;
	case SET_EMPTY:
		*targets = 0;
		snprintf(what, len, "an empty mask (nothing arrives)");
		break;
	case SET_BANK1:
		*skip = "guest.elf runs at most 64 vCPUs, so no VP index is in bank 1 (64..127)";
		*targets = 0;
		snprintf(what, len, "a VP in bank 1");
		break;
	case SET_TWO_BANKS:
		*targets = vp_bit(last);
		snprintf(what, len, "VP %u, banks 0 and 1 listed (1 empty)", last);
		break;
	}
	return !*skip;
}

/* The input block; returns the variable header size (banks). */
static u32 build_input(const struct ipi_case *c, u64 targets, struct hvt_in *in)
{
	const u64 banks[2] = { targets, 0 };

	hvt_put(in, HVT_IPI_VECTOR);
	if (c->code == HVCALL_SEND_IPI) {
		hvt_put(in, targets);
		return 0;
	}
	if (c->set == SET_ALL_FORMAT)
		return hvt_put_vpset(in, HV_GENERIC_SET_ALL, 0, NULL);
	if (c->set == SET_TWO_BANKS)
		return hvt_put_vpset(in, HV_GENERIC_SET_SPARSE_4K, 3, banks);
	return hvt_put_vpset(in, HV_GENERIC_SET_SPARSE_4K, targets ? 1 : 0, banks);
}

/* Send, then check every vCPU's count; the check settles even after a failed call. */
static bool send_and_check(enum hvt_enc enc, u64 control, const struct hvt_in *in,
			   u64 targets, char *why, size_t len)
{
	u64 rax;
	bool delivered;

	hvt_ipi_clear();
	rax = hvt_call(enc, control, in);
	delivered = hvt_ipi_check(rax == HV_STATUS_SUCCESS ? targets : 0, why, len);
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
	char name[128], what[64], why[128] = "";
	struct hvt_in in = { .n = 0 };
	const char *skip;
	u64 targets = 0;
	u32 banks;
	bool possible = set_targets(c->set, &targets, what, sizeof(what), &skip);

	snprintf(name, sizeof(name), "%s %s to %s: exactly the targets, once",
		 call, hvt_enc_name(c->enc), what);
	if (!possible) {
		report_skip(name, "%s", skip);
		return;
	}
	banks = build_input(c, targets, &in);
	report_why(send_and_check(c->enc, hvt_control(c->code, banks, 0, 0), &in, targets,
				  why, sizeof(why)), name, "%s", why);
}

/*
 * The set lives only in XMM0 (valid banks low, bank 0 high); XMM1..5 hold
 * decoy sets naming another VP, and the target moves with every call. A
 * VMM reading the wrong register, a stale copy from the previous call or
 * another vCPU's registers delivers to the wrong VP (or to none).
 */
static void check_xmm_data(void)
{
	const char *name = "SendIpiEx XMM-fast: set only in XMM0, decoys in XMM1-5, "
			   "a new target each call";
	char why[128] = "";
	u32 n = boot_nr_cpus;

	for (u32 round = 0; round < n; round++) {
		u32 target = (round + 1) % n, decoy = (target + 1) % n;
		struct hvt_in in = { .n = 0 };

		hvt_put(&in, HVT_IPI_VECTOR);			/* RDX */
		hvt_put(&in, HV_GENERIC_SET_SPARSE_4K);		/* R8 */
		hvt_put(&in, 1);				/* XMM0: bank 0 valid */
		hvt_put(&in, vp_bit(target));			/*        bank 0 */
		while (in.n < HVT_XMM_QWORDS) {
			hvt_put(&in, 1);
			hvt_put(&in, vp_bit(decoy));
		}
		if (!send_and_check(HVT_XMM, hvt_control(HVCALL_SEND_IPI_EX, 1, 0, 0), &in,
				    vp_bit(target), why, sizeof(why))) {
			report_fail(name, "call %u, target VP %u: %s", round, target, why);
			return;
		}
	}
	report_pass("%s (%u calls)", name, n);
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
