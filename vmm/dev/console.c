// SPDX-License-Identifier: MIT
/*
 * COM1, transmit only. Each vCPU collects its own line and writes it whole,
 * so lines from different vCPUs never interleave mid-line.
 */
#include <stdio.h>
#include <unistd.h>

#include "vmm/dev/devices.h"
#include "vmm/vm.h"

#define UART_THR	0
#define UART_LSR	5
#define UART_LSR_IDLE	0x60	/* transmitter holding register and shifter empty */

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
	v->line[v->line_len++] = c;
	/* A line longer than the buffer is written in pieces, never dropped. */
	if (c == '\n' || v->line_len == sizeof(v->line))
		console_flush(v);
}

static void console_io(struct vcpu *v, uint64_t port, bool write, void *data,
		       unsigned int size, void *opaque)
{
	uint8_t *bytes = data;

	(void)opaque;
	if (write && port - MVM_PORT_COM1 == UART_THR) {
		for (unsigned int i = 0; i < size; i++)
			console_putc(v, (char)bytes[i]);
	} else if (!write) {
		for (unsigned int i = 0; i < size; i++)
			bytes[i] = port + i - MVM_PORT_COM1 == UART_LSR ? UART_LSR_IDLE : 0;
	}
}

int console_register(struct vm *vm)
{
	return bus_register(&vm->bus, BUS_PIO, MVM_PORT_COM1, 8, console_io, NULL, "com1");
}
