/* SPDX-License-Identifier: MIT */
/* Measurement records the guest hands over through MVM_PORT_RESULTS. */
#ifndef VMM_RESULTS_H
#define VMM_RESULTS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "minivmm/abi.h"
#include "vmm/mem.h"

/* Accepted records: recs[i] has id i + 1, the number its baseline_id refers to. */
struct results {
	pthread_mutex_t lock;
	struct mvm_result *recs;
	size_t n, cap;
	uint64_t rejected;
};

void results_init(struct results *res);
void results_free(struct results *res);
/* Validate a record the guest wrote; -1 with `why` if it is malformed. */
int results_validate(const struct mvm_result *r, char *why, size_t whylen);
/*
 * The guest's ratio to its baseline with its interquartile range, e.g.
 * "1.06x [1.02-1.09]", or "" when the record carries none. Only printed:
 * the VMM never recomputes a ratio from medians.
 */
void results_format_ratio(const struct mvm_result *r, char *buf, size_t len);
/* The body's cost above the loop in cycles, "in noise", or "-" (not measured). */
void results_format_body(const struct mvm_result *r, char *buf, size_t len);
/*
 * Append a copy of a valid record as number n + 1 (1, 2, ... in arrival
 * order) and store that number in r->id; -1 with `why` when its baseline_id
 * names no earlier record, or when out of room.
 */
int results_add(struct results *res, struct mvm_result *r, char *why, size_t whylen);
/*
 * The results port's work: copy the record at `gpa` out of guest RAM,
 * validate and add it, and write its id (0 if rejected) back into the
 * guest's record. Returns the id; 0 with `why` when rejected.
 */
uint32_t results_take(struct results *res, const struct guest_mem *mem, uint64_t gpa,
		      char *why, size_t whylen);

#endif
