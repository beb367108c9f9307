/* SPDX-License-Identifier: MIT */
/*
 * An i8042 keyboard controller with nothing behind it, for Linux guests:
 * the status port reads 0 (input and output buffers empty, so Linux's
 * kb_wait() ends at once instead of spinning on an unclaimed port's 0xff),
 * the data port reads 0. Commands 0xf0-0xff pulse output-port lines whose
 * bit is 0; bit 0 is the CPU reset line, so 0xfe (Linux's reboot=k) and
 * the other even ones reset the machine. Every other write is ignored.
 */
#ifndef VMM_DEV_I8042_H
#define VMM_DEV_I8042_H

#include <stdbool.h>
#include <stdint.h>

#define I8042_DATA_PORT		0x60
#define I8042_CMD_PORT		0x64	/* write: command; read: status */
#define I8042_CMD_RESET		0xfe

uint8_t i8042_read(uint16_t port);
/* True when the write resets the CPU. */
bool i8042_write(uint16_t port, uint8_t val);

#endif
