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

/* Terminated, and printable ASCII up to the NUL: names reach terminals and JSON (UTF-8). */
static int printable(const char *s, size_t len)
{
	if (!terminated(s, len))
		return 0;
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

/* Per-round block medians: the row's inside [min, max], none past `rounds`. */
static const char *check_round_values(const struct mvm_result *r)
{
	if (r->rounds > MVM_RESULT_ROUNDS_MAX)
		return "more rounds than the record holds values for";
	for (uint32_t k = 0; k < MVM_RESULT_ROUNDS_MAX; k++) {
		if (k >= r->rounds && (r->round_median[k] || r->round_loop[k]))
			return "per-round value past the record's rounds";
		if (k < r->rounds && (r->round_median[k] < r->min || r->round_median[k] > r->max))
			return "a round's median outside [min, max]";
	}
	return NULL;
}

/* The fields the interleaved rounds fill (guest/lib/bench.c); NULL if consistent. */
static const char *check_rounds(const struct mvm_result *r)
{
	const char *bad = check_round_values(r);

	if (bad)
		return bad;
	if (r->flags & ~MVM_RESULT_FLAGS)
		return "unknown flags";
	if ((r->flags & MVM_RESULT_BODY) && (r->flags & MVM_RESULT_IN_NOISE))
		return "body both above and within the loop's noise";
	if (!(r->flags & MVM_RESULT_BODY) && r->body)
		return "body set without MVM_RESULT_BODY";
	if (r->body > r->max)
		return "body above the slowest iteration";
	if (r->id)
		return "id set by the guest (the VMM numbers records)";
	if (!(r->flags & MVM_RESULT_RATIO))
		return r->ratio || r->ratio_lo || r->ratio_hi ? "ratio set without MVM_RESULT_RATIO" : NULL;
	if (!r->baseline_id)
		return "ratio without a baseline";
	if (!r->rounds)
		return "ratio from zero rounds";
	if (r->ratio_lo > r->ratio || r->ratio > r->ratio_hi)
		return "ratio outside its interquartile range";
	return NULL;
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
	else if (!terminated(r->state, sizeof(r->state)))
		bad = "state not NUL-terminated";
	else if (!printable(r->suite, sizeof(r->suite)) || !printable(r->name, sizeof(r->name)) ||
		 !printable(r->variant, sizeof(r->variant)) || !printable(r->state, sizeof(r->state)))
		bad = "a name with a byte outside printable ASCII";
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
	else
		bad = check_rounds(r);
	if (bad)
		snprintf(why, whylen, "%s", bad);
	return bad ? -1 : 0;
}

/* Three decimals: enough to tell 1.03x from 1.04x. */
static void format_one_ratio(char *buf, size_t len, uint32_t v)
{
	uint64_t milli = ((uint64_t)v + 5) / 10;

	_Static_assert(MVM_RATIO_ONE == 10000, "the rounding assumes 1/10000 units");
	if (v == MVM_RATIO_INF)
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%llu.%03llu", (unsigned long long)(milli / 1000),
			 (unsigned long long)(milli % 1000));
}

void results_format_ratio(const struct mvm_result *r, char *buf, size_t len)
{
	char m[16], lo[16], hi[16];

	if (!(r->flags & MVM_RESULT_RATIO)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	format_one_ratio(m, sizeof(m), r->ratio);
	format_one_ratio(lo, sizeof(lo), r->ratio_lo);
	format_one_ratio(hi, sizeof(hi), r->ratio_hi);
	snprintf(buf, len, "%sx [%s-%s]", m, lo, hi);
}

void results_format_body(const struct mvm_result *r, char *buf, size_t len)
{
	if (r->flags & MVM_RESULT_BODY)
		snprintf(buf, len, "%llu", (unsigned long long)r->body);
	else if (r->flags & MVM_RESULT_IN_NOISE)
		snprintf(buf, len, "in noise");
	else
		snprintf(buf, len, "-");
}

/* Append a copy numbered n + 1 and store that id in *r; -1 with `why` if it cannot be. */
int results_add(struct results *res, struct mvm_result *r, char *why, size_t whylen)
{
	const char *bad = NULL;

	pthread_mutex_lock(&res->lock);
	if (r->baseline_id > res->n) {
		bad = "baseline is not an earlier accepted record";
	} else if (res->n == res->cap) {
		size_t cap = res->cap ? res->cap * 2 : 64;
		void *p = cap <= RESULTS_MAX ? realloc(res->recs, cap * sizeof(*r)) : NULL;

		if (p) {
			res->recs = p;
			res->cap = cap;
		} else {
			bad = "too many records";
		}
	}
	if (!bad) {
		r->id = (uint32_t)(res->n + 1);
		res->recs[res->n++] = *r;
	}
	pthread_mutex_unlock(&res->lock);
	if (bad)
		snprintf(why, whylen, "%s", bad);
	return bad ? -1 : 0;
}

uint32_t results_take(struct results *res, const struct guest_mem *mem, uint64_t gpa,
		      char *why, size_t whylen)
{
	const uint64_t id_gpa = gpa + offsetof(struct mvm_result, id);
	struct mvm_result rec;
	uint32_t id = 0;

	if (mem_read(mem, gpa, &rec, sizeof(rec))) {
		snprintf(why, whylen, "record does not lie inside guest RAM");
		return 0;
	}
	if (!results_validate(&rec, why, whylen) && !results_add(res, &rec, why, whylen))
		id = rec.id;
	/* In RAM (mem_read said so): the guest learns the id, or 0 for "rejected". */
	mem_write(mem, id_gpa, &id, sizeof(id));
	return id;
}
