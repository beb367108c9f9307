/* SPDX-License-Identifier: MIT */
#ifndef VMM_HVHOST_H
#define VMM_HVHOST_H

#include <stddef.h>

struct vm;
struct hv_vpmask;

/* Create vm->hv with minivmm's host ops and claim the hypercall trap port. */
int hvhost_create(struct vm *vm, char *err, size_t errlen);

/*
 * The flush_vcpus host op: ask each target in `set` to flush before it
 * next runs guest code; kick and wait only for those inside KVM_RUN.
 * Exposed for the fan-out benchmark (tests/bench/flush_fanout.c).
 */
int hvhost_flush_vcpus(struct vm *vm, unsigned int caller, const struct hv_vpmask *set);

#endif
