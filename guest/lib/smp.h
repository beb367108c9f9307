/* SPDX-License-Identifier: MIT */
/*
 * vCPU bookkeeping and cross-vCPU work. After boot, vCPU 0 runs the suites
 * and every other vCPU sits in smp_service_loop(): halted with IF=1 (the
 * cheap state to wake on kvm_pvm) until smp_call() posts work to it.
 */
#ifndef GUEST_LIB_SMP_H
#define GUEST_LIB_SMP_H

#include "lib/percpu.h"

typedef void (*smp_fn_t)(void *arg);

/* Mark this vCPU online (bumps the count and its "seen" counter). */
void smp_mark_online(void);
u32 smp_online_count(void);
/* How many times vCPU `cpu` reported in (1 when the VMM is right). */
u32 smp_seen_count(u32 cpu);
bool smp_cpu_online(u32 cpu);

/*
 * Run fn(arg) on `cpu` (with interrupts off there). With `wait`, return
 * once it has finished. Runs directly when `cpu` is the caller. Returns -1
 * if `cpu` is not online, else 0.
 */
int smp_call(u32 cpu, smp_fn_t fn, void *arg, bool wait);
/* Wait until everything posted to `cpu` so far has finished. */
void smp_wait(u32 cpu);
/*
 * Waits on a mailbox (smp_call with `wait`, smp_wait, posting behind an
 * untaken item) re-send the wake-up IPI when one item stays untaken for a
 * backstop period: lost IPIs cost a period, not the run. How many re-sends:
 */
u32 smp_call_resends(void);
/* For the smoke test: the next smp_call posts its item without the IPI. */
void smp_call_lose_next_ipi(void);
/* Run fn(arg) on every online vCPU, the caller included; wait for all. */
void smp_call_all(smp_fn_t fn, void *arg);

/*
 * Sense-reversing barrier across all online vCPUs (halting at CPL0, spinning
 * at CPL3). At CPL0 a waiter runs the APIC timer as a backstop while it
 * halts: callers must not have a timer of their own running.
 */
void smp_barrier(void);
/* Barrier waits the backstop ended, the wake-up IPI missing 1 ms after the opening. */
u32 smp_barrier_rescues(void);
/* Backstop ticks taken, all vCPUs together. */
u32 smp_barrier_ticks(void);
/* vCPUs waiting in the current barrier. */
u32 smp_barrier_arrived(void);
/* For the smoke test: the next barrier opens without its wake-up IPI. */
void smp_barrier_lose_next_wakeup(void);

/* Never returns: run mailbox items, halt in between. */
__noreturn void smp_service_loop(void);

/* Library init: the wake-up and backstop vectors' handlers (vCPU 0, once). */
void smp_init(void);

#endif /* GUEST_LIB_SMP_H */
