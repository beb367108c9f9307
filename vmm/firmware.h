/* SPDX-License-Identifier: MIT */
/*
 * What a PC's firmware leaves behind for a Multiboot kernel, as QEMU's
 * SeaBIOS does: the 8259s initialised with vector bases 0x08 and 0x70
 * (only the timer and the cascade unmasked), the PIT's channel 0 counting
 * 65536 in mode 2 (18.2 Hz), and a real-mode IVT whose vectors end in
 * small stubs (the PIC's send an EOI). A kernel that drops to real mode
 * and halts with IF=1 is woken by the timer, as under QEMU (kvm-unit-tests'
 * realmode); a 64-bit one masks the PIC first thing, as kvm-unit-tests does.
 * The stubs live in the EBDA page the memory map reserves.
 */
#ifndef VMM_FIRMWARE_H
#define VMM_FIRMWARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/mem.h"

#define FW_IVT_GPA		0x0ull
#define FW_IVT_ENTRIES		256
#define FW_STUBS_GPA		0x9fc00ull	/* the EBDA: reserved in the Multiboot memory map */
#define FW_PIC_MASTER_BASE	0x08
#define FW_PIC_SLAVE_BASE	0x70
#define FW_PIC_MASTER_IMR	0xfa	/* IRQ 0 (timer) and 2 (cascade) unmasked */
#define FW_PIC_SLAVE_IMR	0xff
#define FW_PIT_COUNT		0x10000u	/* 1193182 Hz / 65536: 18.2 Hz */
#define FW_PIT_MODE		2		/* rate generator */

/* The IVT and its stubs in guest RAM: pure, for tests. 0, or -1 if RAM lacks them. */
int firmware_write_ivt(struct guest_mem *mem);
/*
 * The IVT, the 8259s' state and, with `pit`, the PIT's channel 0 (KVM's
 * in-kernel irqchip and PIT on `vm_fd`). 0, or -1 with `err`.
 */
int firmware_setup(int vm_fd, struct guest_mem *mem, bool pit, char *err, size_t errlen);

#endif
