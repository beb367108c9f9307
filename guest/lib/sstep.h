/* SPDX-License-Identifier: MIT */
/*
 * Path lengths by measurement: run fn(arg) at CPL0 with RFLAGS.TF set and
 * count the single-step #DBs. A no-op call is counted the same way and
 * subtracted, so the result is the instructions fn itself executed (its
 * final ret included), whatever it calls, including a hypercall page the
 * VMM wrote. Each step is an exception round trip, so this is for short
 * paths (at most SSTEP_MAX steps), not for timing.
 */
#ifndef GUEST_LIB_SSTEP_H
#define GUEST_LIB_SSTEP_H

#include "lib/trap.h"
#include "lib/types.h"

#define SSTEP_MAX	4096

/* Instructions fn(arg) executed, or 0 when stepping did not work here (see why). */
u64 sstep_count(void (*fn)(void *arg), void *arg, const char **why);

/* trap.c: true when a #DB was a step we are counting (then it is consumed). */
bool sstep_trap(struct trap_frame *tf);

#endif /* GUEST_LIB_SSTEP_H */
