// SPDX-License-Identifier: MIT
/* Pure register logic: no I/O, no locking (the console devices lock). */
#include <string.h>

#include "vmm/dev/serial16550.h"

void uart_reset(struct uart16550 *u)
{
	memset(u, 0, sizeof(*u));
	u->lcr = 0x03;		/* 8N1, what firmware would leave */
	u->dll = 0x01;		/* 115200 baud */
}

static unsigned int rx_capacity(const struct uart16550 *u)
{
	return (u->fcr & UART_FCR_ENABLE) ? UART_FIFO_SIZE : 1;
}

/* FCR bits 7:6: the receive FIFO level that raises "data available". */
static unsigned int rx_trigger(const struct uart16550 *u)
{
	static const unsigned int level[4] = { 1, 4, 8, 14 };

	return (u->fcr & UART_FCR_ENABLE) ? level[u->fcr >> 6] : 1;
}

static void rx_clear(struct uart16550 *u)
{
	u->rx_head = 0;
	u->rx_count = 0;
}

bool uart_receive(struct uart16550 *u, uint8_t byte)
{
	if (u->rx_count >= rx_capacity(u)) {
		/* The byte in the shift register is lost; what the FIFO holds stays. */
		u->lsr_err |= UART_LSR_OE;
		u->overruns++;
		return false;
	}
	u->rx[(u->rx_head + u->rx_count) % UART_FIFO_SIZE] = byte;
	u->rx_count++;
	return true;
}

unsigned int uart_rx_room(const struct uart16550 *u)
{
	unsigned int cap = rx_capacity(u);

	return u->rx_count < cap ? cap - u->rx_count : 0;
}

static uint8_t rx_pop(struct uart16550 *u)
{
	uint8_t b;

	if (!u->rx_count)
		return 0;
	b = u->rx[u->rx_head];
	u->rx_head = (u->rx_head + 1) % UART_FIFO_SIZE;
	u->rx_count--;
	return b;
}

static void write_fcr(struct uart16550 *u, uint8_t val)
{
	/* Turning the FIFOs on or off empties them (datasheet, FCR bit 0). */
	if ((val ^ u->fcr) & UART_FCR_ENABLE)
		rx_clear(u);
	if (val & UART_FCR_CLEAR_RX)
		rx_clear(u);
	/* FIFO off: only the RBR is left, holding the oldest byte. */
	if (!(val & UART_FCR_ENABLE) && u->rx_count > 1)
		u->rx_count = 1;
	u->fcr = val & 0xc9;	/* the FIFO reset bits self-clear */
}

static void write_ier(struct uart16550 *u, uint8_t val)
{
	/* Enabling THRI while THR is empty (always, here) raises it at once. */
	if ((val & UART_IER_THRI) && !(u->ier & UART_IER_THRI))
		u->thri = true;
	u->ier = val & 0x0f;
}

bool uart_write(struct uart16550 *u, unsigned int reg, uint8_t val)
{
	bool dlab = u->lcr & UART_LCR_DLAB;

	switch (reg) {
	case UART_THR:
		if (dlab) {
			u->dll = val;
			return false;
		}
		/* Writing THR clears THRE; the byte leaves at once and THRE is back. */
		u->thri = true;
		if (u->mcr & UART_MCR_LOOP) {
			uart_receive(u, val);	/* looped back to the receiver, not sent */
			return false;
		}
		return true;
	case UART_IER:
		if (dlab)
			u->dlm = val;
		else
			write_ier(u, val);
		return false;
	case UART_FCR:
		write_fcr(u, val);
		return false;
	case UART_LCR:
		u->lcr = val;
		return false;
	case UART_MCR:
		u->mcr = val & 0x1f;
		return false;
	case UART_SCR:
		u->scr = val;
		return false;
	default:		/* LSR and MSR are read-only */
		return false;
	}
}

uint8_t uart_iir(const struct uart16550 *u)
{
	uint8_t fifo = (u->fcr & UART_FCR_ENABLE) ? UART_IIR_FIFO : 0;

	if ((u->ier & UART_IER_RLSI) && u->lsr_err)
		return fifo | UART_IIR_RLSI;
	if ((u->ier & UART_IER_RDI) && u->rx_count)
		return fifo | (u->rx_count >= rx_trigger(u) ? UART_IIR_RDI : UART_IIR_CTI);
	if ((u->ier & UART_IER_THRI) && u->thri)
		return fifo | UART_IIR_THRI;
	/* Modem lines never change here: no delta bits, so no MSR interrupt. */
	return fifo | UART_IIR_NONE;
}

static uint8_t read_lsr(struct uart16550 *u)
{
	uint8_t lsr = UART_LSR_THRE | UART_LSR_TEMT | u->lsr_err;

	if (u->rx_count)
		lsr |= UART_LSR_DR;
	u->lsr_err = 0;		/* error bits clear on read */
	return lsr;
}

/* In loopback the modem outputs drive the inputs: RTS->CTS, DTR->DSR, OUT1->RI, OUT2->DCD. */
static uint8_t read_msr(const struct uart16550 *u)
{
	if (!(u->mcr & UART_MCR_LOOP))
		return u->msr_lines;
	return (uint8_t)(((u->mcr & UART_MCR_RTS) ? UART_MSR_CTS : 0) |
			 ((u->mcr & UART_MCR_DTR) ? UART_MSR_DSR : 0) |
			 ((u->mcr & UART_MCR_OUT1) ? UART_MSR_RI : 0) |
			 ((u->mcr & UART_MCR_OUT2) ? UART_MSR_DCD : 0));
}

uint8_t uart_read(struct uart16550 *u, unsigned int reg)
{
	bool dlab = u->lcr & UART_LCR_DLAB;
	uint8_t iir;

	switch (reg) {
	case UART_RBR:
		return dlab ? u->dll : rx_pop(u);
	case UART_IER:
		return dlab ? u->dlm : u->ier;
	case UART_IIR:
		iir = uart_iir(u);
		/* Reading IIR clears THRE only when THRE is what it reports. */
		if ((iir & 0x0f) == UART_IIR_THRI)
			u->thri = false;
		return iir;
	case UART_LCR:
		return u->lcr;
	case UART_MCR:
		return u->mcr;
	case UART_LSR:
		return read_lsr(u);
	case UART_MSR:
		return read_msr(u);
	case UART_SCR:
		return u->scr;
	default:
		return 0;
	}
}

bool uart_irq_edge(struct uart16550 *u)
{
	/* Loopback forces the OUT2 pin inactive: nothing reaches the line then. */
	bool now = !(uart_iir(u) & UART_IIR_NONE) &&
		   (u->mcr & (UART_MCR_OUT2 | UART_MCR_LOOP)) == UART_MCR_OUT2;
	bool rose = now && !u->line;

	u->line = now;
	return rose;
}
