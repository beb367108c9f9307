/* SPDX-License-Identifier: MIT */
/*
 * The CPL3 runner. On kvm_pvm, CPL0 code is emulated (~1 us an instruction)
 * while CPL3 code runs natively, so timed loops and anything long run at
 * CPL3 there. run_user() enters fn(arg) at CPL3 with IOPL=0: in/out work
 * through the TSS I/O bitmap; cli/sti, hlt and rdmsr/wrmsr #GP, a hypercall #UD
 * (the same on VMX, SVM and kvm_pvm; pushf there shows host flags, so do
 * not read IF or IOPL with it). It runs on this vCPU's user stack and
 * returns fn's value once it is back at CPL0. All memory is user-accessible
 * (U/S=1 everywhere, no SMEP/SMAP), so fn may call any library code that
 * does not need CPL0, including printf() and report().
 */
#ifndef GUEST_LIB_USER_H
#define GUEST_LIB_USER_H

#include "lib/types.h"

typedef u64 (*user_fn_t)(void *arg);

#define RUN_USER_IRQS_OFF	0
#define RUN_USER_IRQS_ON	1	/* RFLAGS.IF=1 at CPL3 */

u64 run_user(user_fn_t fn, void *arg, unsigned int flags);

/* CPL from CS: 0 in the kernel, 3 inside run_user(). */
unsigned int current_cpl(void);

#endif /* GUEST_LIB_USER_H */
