/* SPDX-License-Identifier: MIT */
/*
 * The CPL3 runner. On kvm_pvm, CPL0 code is emulated (~1 us an instruction)
 * while CPL3 code runs natively, so timed loops and anything long run at
 * CPL3 there. run_user() enters fn(arg) at CPL3 asking for IOPL=3, with
 * an all-zero TSS I/O bitmap: in/out work on every backend (VMX/SVM honour
 * IOPL, kvm_pvm forces IOPL 0 and checks the bitmap). hlt and rdmsr/wrmsr
 * #GP, a hypercall #UD, everywhere. cli/sti differ (allowed on VMX/SVM,
 * #GP on kvm_pvm) and pushf shows host flags on kvm_pvm: use none of them
 * at CPL3. It runs on this vCPU's user stack and
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
