// SPDX-License-Identifier: MIT
/*
 * hostile-records: result records the VMM must reject, one reason each,
 * then one valid record. The guest cannot see a rejection: the VMM reports
 * each on stderr ("... rejected: why") and exits 1 at the end, which the
 * integration case checks (tests/integration/cases.d/hostile.sh), along
 * with the count printed here. The guest checks the VMM kept running.
 */
#include <minivmm/abi.h>

#include "lib/boot.h"
#include "lib/io.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/results.h"
#include "lib/string.h"
#include "suite.h"

#define FIELD(f)	offsetof(struct mvm_result, f), sizeof(((struct mvm_result *)0)->f)

enum spoil_kind {
	FILL,		/* memset the field with `val` */
	STORE,		/* store `val` into the (u32 or u64) field */
};

struct spoil {
	enum spoil_kind kind;
	u32 off, width;
	u64 val;
};

static const struct spoil spoils[] = {
	{ STORE, FIELD(abi_version), 0 },
	{ STORE, FIELD(abi_version), MVM_ABI_VERSION + 1 },
	{ STORE, FIELD(size), sizeof(struct mvm_result) - 8 },
	{ STORE, FIELD(size), 0xffffffff },
	{ FILL, FIELD(suite), 'x' },		/* no NUL */
	{ FILL, FIELD(suite), 0 },		/* empty */
	{ FILL, FIELD(name), 'x' },
	{ FILL, FIELD(name), 0 },
	{ FILL, FIELD(variant), 'x' },
	{ FILL, FIELD(state), 'x' },
	{ STORE, FIELD(name), 0x1b },		/* "\e": not printable */
	{ STORE, FIELD(unit), MVM_UNIT_PER_SEC + 1 },
	{ STORE, FIELD(unit), 0xffffffff },
	{ STORE, FIELD(cpl), 4 },
	{ STORE, FIELD(cpl), 0xffffffff },
	{ STORE, FIELD(iters), 0 },
	{ STORE, FIELD(min), 2 },		/* min > median */
	{ STORE, FIELD(median), 2 },		/* median > p90 */
	{ STORE, FIELD(p90), 2 },		/* p90 > p99 */
	{ STORE, FIELD(p99), 2 },		/* p99 > max */
	{ STORE, FIELD(mean), 0 },		/* mean < min */
	{ STORE, FIELD(mean), 2 },		/* mean > max */
	{ STORE, FIELD(id), 1 },		/* ids are the VMM's to assign */
	{ STORE, FIELD(baseline_id), 0x7fffffff },	/* no such earlier record */
};

static struct mvm_result rec __aligned(64);

/* Valid: every statistic 1, one iteration. */
static void good_record(struct mvm_result *r, const char *name)
{
	result_init(r, "hostile-records", name, "valid");
	r->cpl = 0;
	r->unit = MVM_UNIT_CYCLES;
	r->iters = 1;
	r->min = r->median = r->p90 = r->p99 = r->max = r->mean = 1;
}

static void apply(struct mvm_result *r, const struct spoil *s)
{
	u8 *field = (u8 *)r + s->off;

	if (s->kind == FILL) {
		memset(field, (int)s->val, s->width);
	} else if (s->width == 4) {
		u32 v = (u32)s->val;

		memcpy(field, &v, 4);
	} else {
		memcpy(field, &s->val, 8);
	}
}

/* Records that are not (wholly) in RAM, or GPAs not written as 32 bits. */
static u32 bad_handovers(void)
{
	struct mvm_result *edge = (struct mvm_result *)(uintptr_t)(boot_info->ram_size - 8);

	memset(edge, 0, 8);
	outl(MVM_PORT_RESULTS, (u32)(uintptr_t)edge);
	outl(MVM_PORT_RESULTS, 0xfffffff0u);
	good_record(&rec, "short-write");
	outb(MVM_PORT_RESULTS, (u8)(uintptr_t)&rec);
	outw(MVM_PORT_RESULTS, (u16)(uintptr_t)&rec);
	return 4;
}

/*
 * After the rejections: a row compared with the accepted one, through the
 * id the VMM handed back. Rejected records take no id, so the report's
 * "vs baseline" label names "accepted valid" (tests/integration/cases.d/hostile.sh).
 */
static void compared_record(u32 base)
{
	good_record(&rec, "compared");
	rec.flags = MVM_RESULT_RATIO;
	rec.baseline_id = base;
	rec.rounds = 1;
	rec.ratio = rec.ratio_lo = rec.ratio_hi = MVM_RATIO_ONE;
	rec.round_median[0] = 1;
	rec.round_loop[0] = 1;
	report_why(result_submit(&rec) == base + 1, "the compared row is numbered after the accepted one",
		   "id %u, accepted row's %u", rec.id, base);
}

static void suite_hostile_records(const char *arg)
{
	u32 n = 0, ids = 0, id;

	(void)arg;
	for (u32 i = 0; i < ARRAY_SIZE(spoils); i++, n++) {
		good_record(&rec, "malformed");
		apply(&rec, &spoils[i]);
		ids |= result_submit(&rec);
	}
	n += bad_handovers();
	report_why(!ids, "every malformed record was given id 0", "an id was given: bits 0x%x", ids);
	good_record(&rec, "accepted");
	id = result_submit(&rec);
	printf("hostile-records: %u malformed records handed over, then 1 valid one\n", n);
	report_why(id != 0, "the valid record was given an id", "id 0: rejected");
	compared_record(id);
	report_why(inb(MVM_PORT_NULL) == 0, "VMM still answers after the malformed records",
		   "null port read was not 0");
}

DEFINE_SUITE(61, suite_hostile_records, "hostile-records", false, NULL,
	     "malformed result records: the VMM rejects each and exits 1");
