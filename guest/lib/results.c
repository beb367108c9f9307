// SPDX-License-Identifier: MIT
#include "lib/atomic.h"
#include "lib/boot.h"
#include "lib/io.h"
#include "lib/results.h"
#include "lib/string.h"

void result_init(struct mvm_result *r, const char *suite, const char *name,
		 const char *variant)
{
	memset(r, 0, sizeof(*r));
	r->abi_version = MVM_ABI_VERSION;
	r->size = sizeof(*r);
	r->nr_vcpus = boot_nr_cpus;
	strlcpy(r->suite, suite, sizeof(r->suite));
	strlcpy(r->name, name, sizeof(r->name));
	strlcpy(r->variant, variant ? variant : "", sizeof(r->variant));
}

void result_set_stats(struct mvm_result *r, const struct stats *s)
{
	r->iters = s->n;
	r->min = s->min;
	r->median = s->median;
	r->p90 = s->p90;
	r->p99 = s->p99;
	r->max = s->max;
	r->mean = s->mean;
}

u32 result_submit(struct mvm_result *r)
{
	barrier();	/* the record is in memory before the VMM reads it */
	outl(MVM_PORT_RESULTS, (u32)(uintptr_t)r);
	barrier();	/* and its id is read after the VMM wrote it */
	return READ_ONCE(r->id);
}
