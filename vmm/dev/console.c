// SPDX-License-Identifier: MIT
/*
 * COM1, transmit only, behind the 16550 register model. Each vCPU collects
 * its own line and writes it whole, so lines from different vCPUs never
 * interleave mid-line.
 */
#include <stdio.h>
#include <unistd.h>

#include "vmm/dev/devices.h"
#include "vmm/dev/serial16550.h"
#include "vmm/vm.h"

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

void console_flush(struct vcpu *v)
{
	if (!v->line_len)
		return;
	pthread_mutex_lock(&v->vm->out_lock);
	fflush(stdout);
	write_all(STDOUT_FILENO, v->line, v->line_len);
	pthread_mutex_unlock(&v->vm->out_lock);
	v->line_len = 0;
}

static void console_putc(struct vcpu *v, char c)
{
	/* Serial drivers send CR LF; stdout is a stream of lines, so CR goes. */
	if (c == '\r')
		return;
	v->line[v->line_len++] = c;
	/* A line longer than the buffer is written in pieces, never dropped. */
	if (c == '\n' || v->line_len == sizeof(v->line))
		console_flush(v);
}

static void console_io(struct vcpu *v, uint64_t port, bool write, void *data,
		       unsigned int size, void *opaque)
{
	struct uart16550 *uart = opaque;
	uint8_t *bytes = data;

	/* A wide access touches consecutive registers, one byte each. */
	for (unsigned int i = 0; i < size; i++) {
		unsigned int reg = (unsigned int)(port - MVM_PORT_COM1) + i;
		bool tx = false;

		pthread_mutex_lock(&v->vm->dev_lock);
		if (write)
			tx = uart_write(uart, reg, bytes[i]);
		else
			bytes[i] = uart_read(uart, reg);
		pthread_mutex_unlock(&v->vm->dev_lock);
		if (tx)
			console_putc(v, (char)bytes[i]);
	}
}

int console_register(struct vm *vm)
{
	uart_reset(&vm->com1);
	return bus_register(&vm->bus, BUS_PIO, MVM_PORT_COM1, UART_NR_REGS, console_io,
			    &vm->com1, "com1");
}
