/* SPDX-License-Identifier: MIT */
/*
 * Saying what KVM could not emulate. KVM_EXIT_INTERNAL_ERROR with suberror
 * KVM_INTERNAL_ERROR_EMULATION carries, when its flags say so, the bytes at
 * the guest's RIP; printed as bytes (not as the little-endian words of
 * internal.data[]) and, for the instructions measured to end Linux boots on
 * kvm_pvm, named.
 */
#ifndef VMM_EMUFAIL_H
#define VMM_EMUFAIL_H

#include <stddef.h>

#include "minivmm/abi.h"

struct kvm_run;

/*
 * Write ", instruction bytes cc 90 ... (int3)" and, on kvm_pvm, why such an
 * instruction fails there, into buf (always NUL-terminated). Writes "" when
 * the exit holds no instruction bytes. Returns the length written.
 */
size_t emufail_describe(const struct kvm_run *run, enum mvm_backend backend,
			char *buf, size_t len);

/* The name of a known instruction starting at insn (n bytes), or NULL. */
const char *emufail_insn_name(const unsigned char *insn, size_t n);

#endif
