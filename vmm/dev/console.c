// SPDX-License-Identifier: MIT
/*
 * COM1, transmit only, behind the 16550 register model. Each vCPU collects
 * its own line and writes it whole, so lines from different vCPUs never
 * interleave mid-line.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "minivmm/abi.h"
#include "vmm/dev/devices.h"
#include "vmm/dev/serial16550.h"
#include "vmm/errmsg.h"
#include "vmm/fdio.h"
#include "vmm/vcpu_ops.h"

#define CONSOLE_LINE_MAX 1024

/* One vCPU's unfinished line: only that vCPU's thread touches it while it runs. */
struct console_line {
	char buf[CONSOLE_LINE_MAX];
	unsigned int len;
};

struct console {
	pthread_mutex_t lock;		/* the UART registers, which every vCPU may touch */
	struct uart16550 uart;
	pthread_mutex_t *out_lock;	/* one writer at a time on stdout/stderr */
	unsigned int nr_lines;
	struct console_line lines[];	/* one per vCPU */
};

static void console_flush(struct console *con, struct console_line *l)
{
	if (!l->len)
		return;
	pthread_mutex_lock(con->out_lock);
	fflush(stdout);
	/* A failed stdout (closed pipe) loses the line; a signal never does (vmm/fdio.c). */
	(void)fdio_write_all(STDOUT_FILENO, l->buf, l->len);
	pthread_mutex_unlock(con->out_lock);
	l->len = 0;
}

static void console_putc(struct console *con, struct console_line *l, char c)
{
	/* Serial drivers send CR LF; stdout is a stream of lines, so CR goes. */
	if (c == '\r')
		return;
	l->buf[l->len++] = c;
	/* A line longer than the buffer is written in pieces, never dropped. */
	if (c == '\n' || l->len == sizeof(l->buf))
		console_flush(con, l);
}

static void console_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		       unsigned int size, void *state)
{
	struct console *con = state;
	struct console_line *l = &con->lines[vcpu_index(v)];
	uint8_t *bytes = data;

	/* A wide access touches consecutive registers, one byte each. */
	for (unsigned int i = 0; i < size; i++) {
		unsigned int reg = (unsigned int)offset + i;
		bool tx = false;

		pthread_mutex_lock(&con->lock);
		if (write)
			tx = uart_write(&con->uart, reg, bytes[i]);
		else
			bytes[i] = uart_read(&con->uart, reg);
		pthread_mutex_unlock(&con->lock);
		if (tx)
			console_putc(con, l, (char)bytes[i]);
	}
}

/* Write out whatever the vCPU left without a newline (at exit). */
static void console_vcpu_stopped(void *state, unsigned int vcpu)
{
	struct console *con = state;

	if (vcpu < con->nr_lines)
		console_flush(con, &con->lines[vcpu]);
}

static void console_destroy(void *state)
{
	struct console *con = state;

	pthread_mutex_destroy(&con->lock);
	free(con);
}

static const struct bus_desc console_desc = {
	.name = "com1", .kind = STATS_PIO_OTHER, .io = console_io,
	.destroy = console_destroy, .vcpu_stopped = console_vcpu_stopped,
};

int console_dev_create(struct vm *vm, char *err, size_t errlen)
{
	unsigned int n = vm_nr_vcpus(vm);
	struct console *con = calloc(1, sizeof(*con) + n * sizeof(con->lines[0]));

	if (!con)
		return errmsg(err, errlen, "out of memory for the console of %u vCPUs", n);
	pthread_mutex_init(&con->lock, NULL);
	uart_reset(&con->uart);
	con->out_lock = vm_out_lock(vm);
	con->nr_lines = n;
	if (bus_claim(vm_bus(vm), BUS_PIO, MVM_PORT_COM1, UART_NR_REGS, &console_desc, con,
		      err, errlen)) {
		console_destroy(con);
		return -1;
	}
	return 0;
}
