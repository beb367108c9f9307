/* SPDX-License-Identifier: MIT */
/*
 * The 16550 UART register model behind COM1: enough for drivers that
 * program the divisor, line and modem control, then poll LSR before each
 * byte. Transmit only; nothing is ever received and no interrupt is raised.
 */
#ifndef VMM_DEV_SERIAL16550_H
#define VMM_DEV_SERIAL16550_H

#include <stdbool.h>
#include <stdint.h>

#define UART_THR	0	/* write, DLAB=0; RBR on read */
#define UART_IER	1	/* DLAB=0 */
#define UART_DLL	0	/* DLAB=1 */
#define UART_DLM	1	/* DLAB=1 */
#define UART_IIR	2	/* read */
#define UART_FCR	2	/* write */
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define UART_MSR	6
#define UART_SCR	7
#define UART_NR_REGS	8

#define UART_LCR_DLAB	0x80
#define UART_LSR_THRE	0x20	/* transmitter holding register empty */
#define UART_LSR_TEMT	0x40	/* transmitter empty */
#define UART_IIR_NONE	0x01	/* no interrupt pending */
#define UART_IIR_FIFO	0xc0	/* FIFOs enabled */
#define UART_MCR_LOOP	0x10

struct uart16550 {
	uint8_t ier, fcr, lcr, mcr, scr, dll, dlm;
};

void uart_reset(struct uart16550 *u);
/* A register write; true when `val` is a byte to transmit. */
bool uart_write(struct uart16550 *u, unsigned int reg, uint8_t val);
uint8_t uart_read(const struct uart16550 *u, unsigned int reg);

#endif
