/* SPDX-License-Identifier: MIT */
/*
 * The 16550A UART register model behind COM1 (National PC16550D datasheet):
 * divisor, line and modem control, a 16-byte receive FIFO, and the four
 * interrupt sources in the datasheet's priority order (receiver line status
 * > received data / character timeout > THR empty > modem status). Bytes
 * written to THR leave at once, so the transmitter is always empty again.
 *
 * Pure: no I/O, no locking, no KVM. The device turns the interrupt output
 * into an IRQ line: uart_irq_edge() says when it rose since the last call.
 * Like a PC's COM port, the output reaches the IRQ line only while MCR.OUT2
 * is set.
 */
#ifndef VMM_DEV_SERIAL16550_H
#define VMM_DEV_SERIAL16550_H

#include <stdbool.h>
#include <stdint.h>

#define UART_THR	0	/* write, DLAB=0; RBR on read */
#define UART_RBR	0
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

#define UART_IER_RDI	0x01	/* received data available (and timeout) */
#define UART_IER_THRI	0x02	/* THR empty */
#define UART_IER_RLSI	0x04	/* receiver line status */
#define UART_IER_MSI	0x08	/* modem status */

#define UART_IIR_NONE	0x01	/* no interrupt pending */
#define UART_IIR_MSI	0x00
#define UART_IIR_THRI	0x02
#define UART_IIR_RDI	0x04
#define UART_IIR_RLSI	0x06
#define UART_IIR_CTI	0x0c	/* character timeout: data below the trigger level */
#define UART_IIR_FIFO	0xc0	/* FIFOs enabled */

#define UART_FCR_ENABLE	0x01
#define UART_FCR_CLEAR_RX 0x02
#define UART_FCR_CLEAR_TX 0x04

#define UART_LCR_DLAB	0x80

#define UART_MCR_DTR	0x01
#define UART_MCR_RTS	0x02
#define UART_MCR_OUT1	0x04
#define UART_MCR_OUT2	0x08	/* gates the interrupt output to the IRQ line (PC wiring) */
#define UART_MCR_LOOP	0x10

#define UART_LSR_DR	0x01	/* data ready */
#define UART_LSR_OE	0x02	/* overrun: a byte was lost, sticky until LSR is read */
#define UART_LSR_THRE	0x20	/* transmitter holding register empty */
#define UART_LSR_TEMT	0x40	/* transmitter empty */

#define UART_MSR_CTS	0x10
#define UART_MSR_DSR	0x20
#define UART_MSR_RI	0x40
#define UART_MSR_DCD	0x80

#define UART_FIFO_SIZE	16	/* the 16550A's; 1 (the RBR) while FIFOs are off */

struct uart16550 {
	uint8_t ier, fcr, lcr, mcr, scr, dll, dlm;
	uint8_t lsr_err;		/* UART_LSR_OE once a byte was lost */
	uint8_t msr_lines;		/* modem inputs outside loopback (UART_MSR_*) */
	bool thri;			/* THR-empty interrupt pending */
	bool line;			/* the IRQ line as uart_irq_edge() last saw it */
	uint8_t rx[UART_FIFO_SIZE];
	unsigned int rx_head, rx_count;
	uint64_t overruns;		/* bytes lost to a full receiver, ever */
};

void uart_reset(struct uart16550 *u);
/* A register write; true when `val` is a byte to transmit (never in loopback). */
bool uart_write(struct uart16550 *u, unsigned int reg, uint8_t val);
/* A register read: reading RBR, IIR, LSR has effects (datasheet table 4). */
uint8_t uart_read(struct uart16550 *u, unsigned int reg);
/* What IIR would read now, without the read's effect. */
uint8_t uart_iir(const struct uart16550 *u);
/* A byte arrives on the serial input; false if it was lost (counted, LSR.OE). */
bool uart_receive(struct uart16550 *u, uint8_t byte);
/* How many bytes uart_receive() takes before the next is an overrun. */
unsigned int uart_rx_room(const struct uart16550 *u);
/* True if the IRQ line (interrupt pending, OUT2 set, not in loopback) rose since the last call. */
bool uart_irq_edge(struct uart16550 *u);

#endif
