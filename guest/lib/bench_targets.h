/* SPDX-License-Identifier: MIT */
/*
 * Where the other vCPUs wait while vCPU 0 measures IPIs and flushes aimed
 * at them. By default they are halted with IF=1 in smp_service_loop();
 * bench_targets_spin() makes them spin at CPL3 with IF=1 instead (a running
 * vCPU; on kvm_pvm the cheap state to interrupt besides HLT), and
 * bench_vmm_pause() has the VMM hold one out of guest mode (preempted).
 */
#ifndef GUEST_LIB_BENCH_TARGETS_H
#define GUEST_LIB_BENCH_TARGETS_H

#include "lib/types.h"

/* Every other online vCPU spins at CPL3; false if they did not all start within 5 s. */
bool bench_targets_spin(void);

/* Stop the spinners; they go back to halting in smp_service_loop(). */
void bench_targets_halt(void);

/*
 * MVM_CTRL_PAUSE_VCPU: the VMM keeps `cpu` out of guest mode for `us`
 * microseconds and answers once the hold has begun (or, if `cpu` is still
 * held, once that hold has ended and the new one begun). 0, the VMM's
 * negative status (MVM_CTRL_EINVAL), or 1 when no device answered.
 */
int bench_vmm_pause(u32 cpu, u32 us);

#endif /* GUEST_LIB_BENCH_TARGETS_H */
