/* SPDX-License-Identifier: MIT */
/*
 * QEMU's fw_cfg, the traditional I/O interface only: a 16-bit write to the
 * selector port picks an item, byte reads from the data port walk it.
 * Integers are little-endian; past an item's end, and for unknown items,
 * reads give zeros (as QEMU's docs describe).
 */
#ifndef VMM_DEV_FWCFG_H
#define VMM_DEV_FWCFG_H

#include <stdint.h>

#define FWCFG_PORT_SEL		0x510
#define FWCFG_PORT_DATA		0x511

#define FWCFG_SIGNATURE		0x00	/* "QEMU" */
#define FWCFG_ID		0x01	/* u32 feature bits; bit 0: this interface */
#define FWCFG_RAM_SIZE		0x03	/* u64 bytes */
#define FWCFG_NB_CPUS		0x05	/* u16 */
#define FWCFG_MAX_CPUS		0x0f	/* u16 */
#define FWCFG_MAX_RAM		0x11	/* u64 bytes (what kvm-unit-tests asks for) */

struct fwcfg {
	uint16_t key;
	uint32_t offset;
	uint16_t nb_cpus;
	uint64_t ram_size;
};

void fwcfg_init(struct fwcfg *f, unsigned int nb_cpus, uint64_t ram_size);
void fwcfg_select(struct fwcfg *f, uint16_t key);
/* The next byte of the selected item. */
uint8_t fwcfg_read_byte(struct fwcfg *f);

#endif
