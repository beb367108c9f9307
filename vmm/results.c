// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/results.h"

#define RESULTS_MAX	100000	/* far above any suite; stops a runaway guest */

void results_init(struct results *res)
{
	memset(res, 0, sizeof(*res));
	pthread_mutex_init(&res->lock, NULL);
}

void results_free(struct results *res)
{
	free(res->recs);
	pthread_mutex_destroy(&res->lock);
	memset(res, 0, sizeof(*res));
}

static int terminated(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

int results_validate(const struct mvm_result *r, char *why, size_t whylen)
{
	const char *bad = NULL;

	if (r->abi_version != MVM_ABI_VERSION)
		bad = "ABI version differs from the VMM's";
	else if (r->size != sizeof(*r))
		bad = "record size differs from the VMM's";
	else if (!terminated(r->suite, sizeof(r->suite)) || !r->suite[0])
		bad = "suite name empty or not NUL-terminated";
	else if (!terminated(r->name, sizeof(r->name)) || !r->name[0])
		bad = "case name empty or not NUL-terminated";
	else if (!terminated(r->variant, sizeof(r->variant)))
		bad = "variant not NUL-terminated";
	else if (r->unit > MVM_UNIT_PER_SEC)
		bad = "unknown unit";
	else if (r->cpl > 3)
		bad = "CPL above 3";
	else if (!r->iters)
		bad = "zero iterations";
	else if (r->min > r->median || r->median > r->p90 || r->p90 > r->p99 || r->p99 > r->max)
		bad = "statistics out of order (need min <= median <= p90 <= p99 <= max)";
	else if (r->mean < r->min || r->mean > r->max)
		bad = "mean outside [min, max]";
	if (bad)
		snprintf(why, whylen, "%s", bad);
	return bad ? -1 : 0;
}

int results_add(struct results *res, const struct mvm_result *r)
{
	int ret = 0;

	pthread_mutex_lock(&res->lock);
	if (res->n == res->cap) {
		size_t cap = res->cap ? res->cap * 2 : 64;
		void *p = cap <= RESULTS_MAX ? realloc(res->recs, cap * sizeof(*r)) : NULL;

		if (!p) {
			ret = -1;
			goto out;
		}
		res->recs = p;
		res->cap = cap;
	}
	res->recs[res->n++] = *r;
out:
	pthread_mutex_unlock(&res->lock);
	return ret;
}
