/* SPDX-License-Identifier: MIT */
/* Measurement records the guest hands over through MVM_PORT_RESULTS. */
#ifndef VMM_RESULTS_H
#define VMM_RESULTS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "minivmm/abi.h"

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
/* Append a copy; -1 when out of memory. */
int results_add(struct results *res, const struct mvm_result *r);

#endif
