/* SPDX-License-Identifier: MIT */
/* Structured measurement records for the VMM (MVM_PORT_RESULTS). */
#ifndef GUEST_LIB_RESULTS_H
#define GUEST_LIB_RESULTS_H

#include <minivmm/abi.h>

#include "lib/stats.h"

/* Zero the record, stamp version and size, copy the three names (truncating). */
void result_init(struct mvm_result *r, const char *suite, const char *name,
		 const char *variant);

/* Copy min/median/p90/p99/max/mean and the sample count from `s`. */
void result_set_stats(struct mvm_result *r, const struct stats *s);

/*
 * Hand the record (its id 0, as result_init() left it) to the VMM: `outl` of its GPA (== its address: the
 * payload runs on the identity map below 4 GiB). The VMM copies it at once,
 * so a stack buffer is fine, and writes the record's id back before the
 * `outl` returns. Returns that id -- the number a later record's
 * baseline_id names -- or 0 if the VMM rejected the record. The VMM alone
 * numbers records, so a rejected one cannot shift the others' ids.
 * Works at CPL3 under run_user().
 */
u32 result_submit(struct mvm_result *r);

#endif /* GUEST_LIB_RESULTS_H */
