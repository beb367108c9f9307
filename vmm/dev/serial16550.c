// SPDX-License-Identifier: MIT
/* Pure register logic: no I/O, no locking (the console device locks). */
#include <string.h>

#include "vmm/dev/serial16550.h"

void uart_reset(struct uart16550 *u)
{
	memset(u, 0, sizeof(*u));
	u->lcr = 0x03;		/* 8N1, what firmware would leave */
	u->dll = 0x01;		/* 115200 baud */
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
		/* In loopback the byte would come back, not go out: drop it. */
		return !(u->mcr & UART_MCR_LOOP);
	case UART_IER:
		if (dlab)
			u->dlm = val;
		else
			u->ier = val & 0x0f;
		return false;
	case UART_FCR:
		u->fcr = val & 0xc9;	/* the FIFO reset bits self-clear */
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

uint8_t uart_read(const struct uart16550 *u, unsigned int reg)
{
	bool dlab = u->lcr & UART_LCR_DLAB;

	switch (reg) {
	case UART_THR:
		return dlab ? u->dll : 0;	/* nothing ever received */
	case UART_IER:
		return dlab ? u->dlm : u->ier;
	case UART_IIR:
		return UART_IIR_NONE | ((u->fcr & 1) ? UART_IIR_FIFO : 0);
	case UART_LCR:
		return u->lcr;
	case UART_MCR:
		return u->mcr;
	case UART_LSR:
		/* Bytes leave at once: the transmitter is always empty. */
		return UART_LSR_THRE | UART_LSR_TEMT;
	case UART_SCR:
		return u->scr;
	default:		/* MSR: no modem lines */
		return 0;
	}
}
