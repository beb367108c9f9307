/* SPDX-License-Identifier: MIT */
/*
 * QEMU's pc-testdev (hw/misc/pc-testdev.c), which kvm-unit-tests drives:
 * a 32-bit scratch register at ports 0xe0-0xe3 and again, byte by byte, at
 * 0xe8-0xeb; a 4-byte write to 0xe4 drops the host's mapping of the guest
 * page it names (the next guest access faults into KVM); a 1-byte write to
 * 0x2000 + N holds ISA IRQ line N (0-23) at !!value; 64 KiB of scratch MMIO
 * at 0xff000000. Given with --pc-testdev to Multiboot kernels. The register
 * model is here, without the bus, so that it can be tested alone.
 */
#ifndef VMM_DEV_PC_TESTDEV_H
#define VMM_DEV_PC_TESTDEV_H

#include <stdbool.h>
#include <stdint.h>

#define TESTDEV_PORT_BASE	0xe0	/* scratch, flush, byte scratch: 3 windows of 4 */
#define TESTDEV_PORT_LEN	12
#define TESTDEV_FLUSH_OFFSET	4	/* 0xe4 */
#define TESTDEV_IRQ_PORT	0x2000
#define TESTDEV_IRQ_LINES	24
#define TESTDEV_IOMEM_GPA	0xff000000ull
#define TESTDEV_IOMEM_LEN	0x10000u

struct pc_testdev {
	uint32_t scratch;
	uint8_t iomem[TESTDEV_IOMEM_LEN];
};

/*
 * One access of `size` bytes at `offset` from port 0xe0 to the scratch
 * windows (0xe0-0xe3, 0xe8-0xeb): byte i lands in byte (port & 3) of the
 * register. Bytes in the flush window read as ones and are not stored.
 */
void pc_testdev_ports(struct pc_testdev *d, unsigned int offset, bool write, uint8_t *data,
		      unsigned int size);
/* The GPA of the page a flush write names (its low 12 bits dropped). */
uint64_t pc_testdev_flush_page(uint32_t value);

#endif
