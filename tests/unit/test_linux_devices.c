// SPDX-License-Identifier: MIT
/*
 * Linux guests' devices through the bus as their table row creates them,
 * without KVM (vm.fd is -1, so the IRQ 4 edges go nowhere), started and
 * stopped by the bus hooks vm_run() calls: stdin, a pipe here, reaches the guest's RBR in
 * order and whole although it is larger than the FIFO, with the input
 * thread inside its real seccomp filter; COM1's output is one line for the
 * device, flushed when THRI goes off; PM1a S5 and the i8042 reset stop the
 * VM with their statuses. Each test runs in its own process (CK_FORK): it
 * takes over fds 0 and 1 and sets no_new_privs.
 */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "tests/unit/suites.h"
#include "vmm/acpi.h"
#include "vmm/dev/devices.h"
#include "vmm/dev/i8042.h"
#include "vmm/dev/linux_console.h"
#include "vmm/exitstatus.h"
#include "vmm/vcpu.h"
#include "vmm/vm.h"

static struct vm vm;
static struct vcpu vcpu0;
static int in_pipe[2], out_pipe[2];
static struct linux_console *con;

/* A Linux guest's table row, as vmm/dev/devices.c would run it. */
static void create_devices(void)
{
	char err[200];

	ck_assert_int_eq(linux_console_dev_create(&vm, err, sizeof(err)), 0);
	ck_assert_int_eq(acpi_pm_dev_create(&vm, err, sizeof(err)), 0);
	ck_assert_int_eq(i8042_dev_create(&vm, err, sizeof(err)), 0);
	con = bus_find(&vm.bus, BUS_PIO, MVM_PORT_COM1, 1)->state;
	ck_assert(bus_any_flag(&vm.bus, BUS_F_RAISES_IRQ));
}

static void setup(void)
{
	sigset_t wake;
	char err[200];

	/* vm_request_stop() wakes the main thread with SIGUSR2: keep it pending, harmless. */
	sigemptyset(&wake);
	sigaddset(&wake, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &wake, NULL);
	memset(&vm, 0, sizeof(vm));
	vm.fd = -1;
	vm.main_thread = pthread_self();
	vm.cfg.sandbox = true;
	pthread_mutex_init(&vm.out_lock, NULL);
	ratelimit_init(&vm.guest_msgs);
	bus_init(&vm.bus);
	vcpu0 = (struct vcpu){ .vm = &vm };
	ck_assert_int_eq(pipe(in_pipe), 0);
	ck_assert_int_eq(pipe(out_pipe), 0);
	ck_assert_int_eq(dup2(in_pipe[0], STDIN_FILENO), STDIN_FILENO);
	ck_assert_int_eq(dup2(out_pipe[1], STDOUT_FILENO), STDOUT_FILENO);
	ck_assert_int_eq(sandbox_prepare(err, sizeof(err)), 0);
	create_devices();
	ck_assert(!con->in.tty);
}

static uint8_t inb(uint16_t port)
{
	uint8_t v = 0xaa;

	ck_assert(bus_dispatch(&vm.bus, &vcpu0, BUS_PIO, port, false, &v, 1));
	return v;
}

static void outb(uint16_t port, uint8_t v)
{
	ck_assert(bus_dispatch(&vm.bus, &vcpu0, BUS_PIO, port, true, &v, 1));
}

static void outw(uint16_t port, uint16_t v)
{
	ck_assert(bus_dispatch(&vm.bus, &vcpu0, BUS_PIO, port, true, &v, 2));
}

/* 1000 bytes through a 16-byte FIFO: the reader waits for room, nothing is lost. */
START_TEST(test_stdin_reaches_the_guest)
{
	static uint8_t data[1000];
	char err[200];
	unsigned int got = 0;

	for (unsigned int i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	ck_assert_int_eq(write(in_pipe[1], data, sizeof(data)), (ssize_t)sizeof(data));
	close(in_pipe[1]);		/* EOF after it: the thread ends by itself */
	outb(MVM_PORT_COM1 + UART_FCR, UART_FCR_ENABLE);
	outb(MVM_PORT_COM1 + UART_IER, UART_IER_RDI);
	ck_assert_int_eq(bus_devices_start(&vm.bus, err, sizeof(err)), 0);
	while (got < sizeof(data)) {
		if (!(inb(MVM_PORT_COM1 + UART_LSR) & UART_LSR_DR))
			continue;	/* the guest polls, as Linux's rx loop does */
		ck_assert_uint_eq((inb(MVM_PORT_COM1 + UART_IIR) & 0x0f) != UART_IIR_NONE, 1);
		ck_assert_uint_eq(inb(MVM_PORT_COM1 + UART_RBR), data[got]);
		got++;
	}
	bus_devices_stop(&vm.bus);
	ck_assert(!con->in.started);
	ck_assert_uint_eq(con->uart.overruns, 0);
	ck_assert_uint_eq(con->in.dropped, 0);
	ck_assert(!(inb(MVM_PORT_COM1 + UART_LSR) & UART_LSR_DR));
	ck_assert(!atomic_load(&vm.stopping));	/* the input thread's filter let it all through */
	bus_destroy(&vm.bus);
}
END_TEST

/* A stop while stdin stays open and the guest reads nothing: the thread still ends. */
START_TEST(test_stop_with_input_pending)
{
	char err[200];

	ck_assert_int_eq(write(in_pipe[1], "more than one byte", 18), 18);
	ck_assert_int_eq(bus_devices_start(&vm.bus, err, sizeof(err)), 0);
	while (!(inb(MVM_PORT_COM1 + UART_LSR) & UART_LSR_DR))
		;
	bus_devices_stop(&vm.bus);	/* FIFOs off: one byte in, the rest waiting for room */
	ck_assert(!con->in.started);
	ck_assert_uint_eq(inb(MVM_PORT_COM1 + UART_RBR), 'm');
	bus_destroy(&vm.bus);
}
END_TEST

static size_t drain_stdout(char *buf, size_t len)
{
	ssize_t n;

	fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
	n = read(out_pipe[0], buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (size_t)n : 0;
}

START_TEST(test_output_line)
{
	char buf[64];

	for (const char *p = "ab"; *p; p++)
		outb(MVM_PORT_COM1 + UART_THR, (uint8_t)*p);
	ck_assert_uint_eq(drain_stdout(buf, sizeof(buf)), 0);	/* no newline yet */
	outb(MVM_PORT_COM1 + UART_IER, UART_IER_THRI);
	outb(MVM_PORT_COM1 + UART_IER, 0);	/* the driver's queue is empty: out it goes */
	ck_assert_str_eq((drain_stdout(buf, sizeof(buf)), buf), "ab");
	for (const char *p = "c\r\n"; *p; p++)
		outb(MVM_PORT_COM1 + UART_THR, (uint8_t)*p);
	ck_assert_str_eq((drain_stdout(buf, sizeof(buf)), buf), "c\n");	/* a pipe: no CR */
	/* The modem is there: carrier, DSR, CTS. */
	ck_assert_uint_eq(inb(MVM_PORT_COM1 + UART_MSR), 0xb0);
	bus_devices_stop(&vm.bus);
	bus_destroy(&vm.bus);
}
END_TEST

/*
 * A terminal (a pty here): raw input with output processing kept, Ctrl-A x
 * stops the VM with 130, and the terminal is as it was afterwards.
 */
START_TEST(test_terminal_raw_and_quit)
{
	struct termios before, during, after;
	char err[200];
	int master = posix_openpt(O_RDWR | O_NOCTTY), slave;

	ck_assert_int_ge(master, 0);
	ck_assert(!grantpt(master) && !unlockpt(master));
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	ck_assert_int_ge(slave, 0);
	ck_assert_int_eq(tcgetattr(slave, &before), 0);
	ck_assert(before.c_lflag & ICANON);
	bus_destroy(&vm.bus);	/* the fixture's pipe set: again, on the terminal */
	bus_init(&vm.bus);
	ck_assert_int_eq(dup2(slave, STDIN_FILENO), STDIN_FILENO);
	create_devices();
	ck_assert(con->in.tty && console_input_raw(&con->in));
	ck_assert_int_eq(tcgetattr(slave, &during), 0);
	ck_assert(!(during.c_lflag & (ICANON | ECHO | ISIG)));
	ck_assert(!(during.c_iflag & (ICRNL | IXON)));
	ck_assert(during.c_oflag & OPOST);
	ck_assert_int_eq(bus_devices_start(&vm.bus, err, sizeof(err)), 0);
	outb(MVM_PORT_COM1 + UART_FCR, UART_FCR_ENABLE);
	ck_assert_int_eq(write(master, "hi\x01\x01\x01xafter", 10), 10);
	while (!atomic_load(&vm.stopping))
		;
	ck_assert_int_eq(atomic_load(&vm.exit_status), EXITSTATUS_SIGNAL(SIGINT));
	bus_devices_stop(&vm.bus);	/* joins the input thread: all it pushed is in */
	ck_assert_uint_eq(inb(MVM_PORT_COM1 + UART_RBR), 'h');
	ck_assert_uint_eq(inb(MVM_PORT_COM1 + UART_RBR), 'i');
	ck_assert_uint_eq(inb(MVM_PORT_COM1 + UART_RBR), 0x01);	/* Ctrl-A Ctrl-A */
	ck_assert(!(inb(MVM_PORT_COM1 + UART_LSR) & UART_LSR_DR));	/* nothing after the quit */
	ck_assert_int_eq(tcgetattr(slave, &after), 0);
	ck_assert_uint_eq(after.c_iflag, before.c_iflag);
	ck_assert_uint_eq(after.c_oflag, before.c_oflag);
	ck_assert_uint_eq(after.c_cflag, before.c_cflag);
	ck_assert_uint_eq(after.c_lflag, before.c_lflag);
	ck_assert(!memcmp(after.c_cc, before.c_cc, sizeof(after.c_cc)));
	ck_assert(!console_input_raw(&con->in));	/* the input thread put it back */
	bus_destroy(&vm.bus);
}
END_TEST

START_TEST(test_acpi_poweroff)
{
	/* PM1a_CNT reads SCI_EN; S3 is said and ignored; S5 stops the VM with 0. */
	ck_assert_uint_eq(inb(ACPI_PM1A_CNT_PORT), 1);
	outw(ACPI_PM1A_CNT_PORT, (1u << 10) | 0x2000);
	ck_assert(!atomic_load(&vm.stopping));
	ck_assert_uint_eq(ratelimit_seen(&vm.guest_msgs, GMSG_ACPI_SLEEP), 1);
	outw(ACPI_PM1A_CNT_PORT, (5u << 10) | 0x2000);
	ck_assert(atomic_load(&vm.stopping));
	ck_assert_int_eq(atomic_load(&vm.exit_status), EXITSTATUS_OK);
	bus_destroy(&vm.bus);
}
END_TEST

START_TEST(test_i8042_reset)
{
	ck_assert_uint_eq(inb(I8042_CMD_PORT), 0);
	ck_assert_uint_eq(inb(I8042_DATA_PORT), 0);
	outb(I8042_CMD_PORT, 0xad);		/* disable keyboard: ignored */
	ck_assert(!atomic_load(&vm.stopping));
	outb(I8042_CMD_PORT, I8042_CMD_RESET);
	ck_assert(atomic_load(&vm.stopping));
	ck_assert_int_eq(atomic_load(&vm.exit_status), EXITSTATUS_GUEST_RESET);
	bus_destroy(&vm.bus);
}
END_TEST

static Suite *linux_devices_suite(void)
{
	Suite *s = suite_create("linux_devices");
	TCase *tc = tcase_create("bus");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_stdin_reaches_the_guest);
	tcase_add_test(tc, test_stop_with_input_pending);
	tcase_add_test(tc, test_output_line);
	tcase_add_test(tc, test_terminal_raw_and_quit);
	tcase_add_test(tc, test_acpi_poweroff);
	tcase_add_test(tc, test_i8042_reset);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(linux_devices_suite);
