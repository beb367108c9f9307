/* SPDX-License-Identifier: MIT */
/*
 * The ACPI PM timer: a free-running 24-bit counter at 3.579545 MHz, read
 * with a 32-bit `in` (upper byte zero). It counts host CLOCK_MONOTONIC time
 * since the VM was created; the guest cannot write it.
 */
#ifndef VMM_DEV_PMTIMER_H
#define VMM_DEV_PMTIMER_H

#include <stdint.h>

#define PMTIMER_PORT	0x608		/* where QEMU 7.2's pc machine has it (PIIX4 PM base 0x600) */
#define PMTIMER_HZ	3579545ull
#define PMTIMER_MASK	0xffffffu	/* 24 bits: FADT flags leave TMR_VAL_EXT clear */

/* The counter after `ns` nanoseconds. */
uint32_t pmtimer_ticks(uint64_t ns);

#endif
