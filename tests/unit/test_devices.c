// SPDX-License-Identifier: MIT
/*
 * Register models of the Multiboot devices (16550, fw_cfg, PM timer) and
 * of Linux guests' (ACPI PM1a, i8042, the console's escape keys), and each
 * guest kind's device table on a real bus: what claims which port, as which
 * statistics kind, and that the bus frees every device's state.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "minivmm/abi.h"
#include "tests/unit/suites.h"
#include "vmm/dev/acpi_pm.h"
#include "vmm/dev/cmos_rtc.h"
#include "vmm/dev/console_escape.h"
#include "vmm/dev/devices.h"
#include "vmm/dev/fwcfg.h"
#include "vmm/dev/i8042.h"
#include "vmm/dev/pc_testdev.h"
#include "vmm/dev/pmtimer.h"
#include "vmm/dev/serial16550.h"
#include "vmm/vcpu.h"
#include "vmm/vm.h"

START_TEST(test_uart_transmit_and_lsr)
{
	struct uart16550 u;

	uart_reset(&u);
	ck_assert_uint_eq(uart_read(&u, UART_LSR), UART_LSR_THRE | UART_LSR_TEMT);
	ck_assert(uart_write(&u, UART_THR, 'x'));
	ck_assert(!uart_write(&u, UART_LSR, 0));	/* read-only */
	ck_assert_uint_eq(uart_read(&u, UART_LSR), 0x60);
	ck_assert_uint_eq(uart_read(&u, UART_THR), 0);	/* nothing received */
	ck_assert_uint_eq(uart_read(&u, UART_MSR), 0);
}
END_TEST

/* The sequence kvm-unit-tests' serial_init() performs, register by register. */
START_TEST(test_uart_divisor_latch)
{
	struct uart16550 u;

	uart_reset(&u);
	ck_assert(!uart_write(&u, UART_LCR, uart_read(&u, UART_LCR) | UART_LCR_DLAB));
	ck_assert(!uart_write(&u, UART_DLL, 0x01));	/* not a character */
	ck_assert(!uart_write(&u, UART_DLM, 0x00));
	ck_assert_uint_eq(uart_read(&u, UART_DLL), 0x01);
	ck_assert_uint_eq(uart_read(&u, UART_DLM), 0x00);
	ck_assert(!uart_write(&u, UART_LCR, uart_read(&u, UART_LCR) & ~UART_LCR_DLAB));
	ck_assert(!uart_write(&u, UART_IER, 0xff));
	ck_assert_uint_eq(uart_read(&u, UART_IER), 0x0f);
	ck_assert_uint_eq(u.dlm, 0x00);			/* IER write did not hit DLM */
	ck_assert(!uart_write(&u, UART_LCR, 0x03));
	ck_assert(!uart_write(&u, UART_FCR, 0x00));
	/* IER.THRI with THR empty: THRE pending until IIR reports it once. */
	ck_assert_uint_eq(uart_read(&u, UART_IIR), 0x02);
	ck_assert_uint_eq(uart_read(&u, UART_IIR), UART_IIR_NONE);
	ck_assert(!uart_write(&u, UART_FCR, 0x07));
	ck_assert_uint_eq(uart_read(&u, UART_IIR), UART_IIR_NONE | UART_IIR_FIFO);
	ck_assert(!uart_write(&u, UART_MCR, 0x03));
	ck_assert_uint_eq(uart_read(&u, UART_MCR), 0x03);
	ck_assert(uart_write(&u, UART_THR, 'A'));
}
END_TEST

START_TEST(test_uart_loopback_and_scratch)
{
	struct uart16550 u;

	uart_reset(&u);
	uart_write(&u, UART_MCR, UART_MCR_LOOP);
	ck_assert(!uart_write(&u, UART_THR, 'A'));	/* looped back, not sent */
	uart_write(&u, UART_SCR, 0x5a);
	ck_assert_uint_eq(uart_read(&u, UART_SCR), 0x5a);
}
END_TEST

static uint64_t read_item(struct fwcfg *f, uint16_t key, unsigned int bytes)
{
	uint64_t v = 0;

	fwcfg_select(f, key);
	for (unsigned int i = 0; i < bytes; i++)
		v |= (uint64_t)fwcfg_read_byte(f) << (8 * i);
	return v;
}

START_TEST(test_fwcfg_items)
{
	struct fwcfg f;

	fwcfg_init(&f, 4, 256ULL << 20);
	ck_assert_uint_eq(read_item(&f, FWCFG_NB_CPUS, 2), 4);
	ck_assert_uint_eq(read_item(&f, FWCFG_MAX_CPUS, 2), 4);
	ck_assert_uint_eq(read_item(&f, FWCFG_RAM_SIZE, 8), 256ULL << 20);
	ck_assert_uint_eq(read_item(&f, FWCFG_MAX_RAM, 8), 256ULL << 20);
	ck_assert_uint_eq(read_item(&f, FWCFG_SIGNATURE, 4), 0x554d4551);	/* "QEMU" */
	ck_assert_uint_eq(read_item(&f, FWCFG_ID, 4), 1);
}
END_TEST

START_TEST(test_fwcfg_unknown_and_past_end)
{
	struct fwcfg f;

	fwcfg_init(&f, 2, 64ULL << 20);
	ck_assert_uint_eq(read_item(&f, 0x1234, 8), 0);
	ck_assert_uint_eq(read_item(&f, 0x8000, 8), 0);
	/* 8 bytes of a 2-byte item: the rest are zeros. */
	ck_assert_uint_eq(read_item(&f, FWCFG_NB_CPUS, 8), 2);
	/* Selecting again starts over. */
	fwcfg_select(&f, FWCFG_NB_CPUS);
	ck_assert_uint_eq(fwcfg_read_byte(&f), 2);
	ck_assert_uint_eq(fwcfg_read_byte(&f), 0);
	ck_assert_uint_eq(fwcfg_read_byte(&f), 0);
}
END_TEST

START_TEST(test_pmtimer)
{
	ck_assert_uint_eq(pmtimer_ticks(0), 0);
	ck_assert_uint_eq(pmtimer_ticks(1000000000ull), 3579545);
	ck_assert_uint_eq(pmtimer_ticks(1000ull), 3);		/* 3.58 ticks per us */
	/* 2^24 ticks take 4.686969 s: just past that the counter has wrapped. */
	ck_assert_uint_eq(pmtimer_ticks(4686900000ull), 16776969);
	ck_assert_uint_eq(pmtimer_ticks(4687000000ull), 111);
	/* 10^4 s: the 64-bit product would have overflowed. */
	ck_assert_uint_eq(pmtimer_ticks(10000ull * 1000000000ull), 9648272);
	ck_assert_uint_le(pmtimer_ticks(UINT64_MAX), PMTIMER_MASK);
}
END_TEST

/* Just enough of a VM for devices_create(): a bus, 2 MiB of RAM, two vCPUs. */
static struct vm *fake_vm(struct vcpu v[2])
{
	struct vm *vm = calloc(1, sizeof(*vm));
	char err[128];

	ck_assert_ptr_nonnull(vm);
	pthread_mutex_init(&vm->out_lock, NULL);
	ratelimit_init(&vm->guest_msgs);
	bus_init(&vm->bus);
	ck_assert_int_eq(mem_init(&vm->mem, 2u << 20, err, sizeof(err)), 0);
	vm->cfg.nr_vcpus = 2;
	vm->vcpus = v;
	for (unsigned int i = 0; i < 2; i++)
		v[i] = (struct vcpu){ .vm = vm, .index = i, .fd = -1 };
	return vm;
}

static void free_vm(struct vm *vm)
{
	bus_destroy(&vm->bus);	/* frees every device's state: LSan in unit-asan checks */
	mem_free(&vm->mem);
	pthread_mutex_destroy(&vm->out_lock);
	free(vm);
}

static enum stats_kind kind_at(struct vm *vm, enum bus_space space, uint64_t addr,
			       unsigned int size, void *data)
{
	const struct bus_range *r = bus_dispatch(&vm->bus, &vm->vcpus[0], space, addr, false,
						 data, size);

	ck_assert_msg(r, "nothing claims 0x%llx", (unsigned long long)addr);
	return r->desc.kind;
}

START_TEST(test_payload_devices)
{
	struct vcpu v[2];
	struct vm *vm = fake_vm(v);
	uint32_t val = 0;
	char err[128] = "";

	ck_assert_int_eq(devices_create(vm, IMAGE_ELF64, err, sizeof(err)), 0);
	ck_assert_uint_eq(vm->bus.nr[BUS_PIO], 5);
	ck_assert_uint_eq(kind_at(vm, BUS_PIO, MVM_PORT_NULL, 1, &val), STATS_PIO_NULL);
	ck_assert_uint_eq(val & 0xff, 0);
	ck_assert_uint_eq(kind_at(vm, BUS_MMIO, MVM_MMIO_NULL + 8, 4, &val), STATS_MMIO_NULL);
	ck_assert_uint_eq(val, 0);
	/* The write-only ports read all ones, and say so through the bus, not the device. */
	ck_assert_uint_eq(kind_at(vm, BUS_PIO, MVM_PORT_EXIT, 4, &val), STATS_PIO_OTHER);
	ck_assert_uint_eq(val, 0xffffffff);
	val = 0;
	kind_at(vm, BUS_PIO, MVM_PORT_RESULTS, 4, &val);
	ck_assert_uint_eq(val, 0xffffffff);
	val = 0;
	kind_at(vm, BUS_PIO, MVM_PORT_CTRL, 4, &val);
	ck_assert_uint_eq(val, 0xffffffff);
	kind_at(vm, BUS_PIO, MVM_PORT_COM1 + UART_LSR, 1, &val);
	ck_assert_uint_eq(val & 0xff, UART_LSR_THRE | UART_LSR_TEMT);
	/* No fw_cfg, PM timer or PCI config for a payload. */
	ck_assert_ptr_null(bus_find(&vm->bus, BUS_PIO, FWCFG_PORT_SEL, 2));
	ck_assert_ptr_null(bus_find(&vm->bus, BUS_PIO, PMTIMER_PORT, 4));
	free_vm(vm);
}
END_TEST

START_TEST(test_multiboot_devices)
{
	struct vcpu v[2];
	struct vm *vm = fake_vm(v);
	uint16_t key = FWCFG_NB_CPUS;
	uint32_t val = 0;
	char err[128] = "";

	ck_assert_int_eq(devices_create(vm, IMAGE_MULTIBOOT, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(bus_dispatch(&vm->bus, &v[0], BUS_PIO, FWCFG_PORT_SEL, true, &key, 2));
	kind_at(vm, BUS_PIO, FWCFG_PORT_DATA, 1, &val);
	ck_assert_uint_eq(val & 0xff, 2);	/* the device's own state: nb_cpus */
	ck_assert_uint_eq(kind_at(vm, BUS_PIO, PMTIMER_PORT, 4, &val), STATS_PIO_OTHER);
	ck_assert_uint_le(val, PMTIMER_MASK);
	kind_at(vm, BUS_PIO, 0xcfc, 4, &val);
	ck_assert_uint_eq(val, 0xffffffff);	/* PCI config: no device here */
	ck_assert_ptr_null(bus_find(&vm->bus, BUS_PIO, MVM_PORT_NULL, 1));
	free_vm(vm);
}
END_TEST

/* The exit port's status: as is, or QEMU's (code << 1) | 1; too big is a failure, said. */
START_TEST(test_exit_status)
{
	bool fits;

	ck_assert_int_eq(exit_dev_status(0, false, &fits), 0);
	ck_assert(fits);
	ck_assert_int_eq(exit_dev_status(255, false, &fits), 255);
	ck_assert(fits);
	ck_assert_int_eq(exit_dev_status(256, false, &fits), 1);
	ck_assert(!fits);
	ck_assert_int_eq(exit_dev_status(0, true, &fits), 1);	/* kvm-unit-tests: passed */
	ck_assert_int_eq(exit_dev_status(1, true, &fits), 3);	/* failed */
	ck_assert_int_eq(exit_dev_status(38, true, &fits), 77);	/* skipped */
	ck_assert_int_eq(exit_dev_status(127, true, &fits), 255);
	ck_assert(fits);
	ck_assert_int_eq(exit_dev_status(128, true, &fits), 3);
	ck_assert(!fits);
}
END_TEST

/* The scratch register: any width at 0xe0, byte by byte at 0xe8, one register behind both. */
START_TEST(test_pc_testdev_scratch)
{
	struct pc_testdev d = { 0 };
	uint8_t b[4] = { 0x11, 0x22, 0x33, 0x44 }, r[4];

	pc_testdev_ports(&d, 0, true, b, 4);
	ck_assert_uint_eq(d.scratch, 0x44332211);
	pc_testdev_ports(&d, 9, false, r, 2);	/* 0xe9-0xea: bytes 1 and 2 */
	ck_assert_uint_eq(r[0], 0x22);
	ck_assert_uint_eq(r[1], 0x33);
	b[0] = 0x99;
	pc_testdev_ports(&d, 3, true, b, 1);	/* 0xe3: the top byte only */
	ck_assert_uint_eq(d.scratch, 0x99332211);
	/* A read that spills into the flush window reads ones there, stores nothing. */
	pc_testdev_ports(&d, 3, false, r, 2);
	ck_assert_uint_eq(r[0], 0x99);
	ck_assert_uint_eq(r[1], 0xff);
	pc_testdev_ports(&d, 4, true, b, 4);
	ck_assert_uint_eq(d.scratch, 0x99332211);
	ck_assert_uint_eq(pc_testdev_flush_page(0x12345fff), 0x12345000);
}
END_TEST

/* Through the bus, as a guest sees it: scratch, MMIO buffer, flush of RAM and of no RAM. */
START_TEST(test_pc_testdev_device)
{
	struct vcpu v[2];
	struct vm *vm = fake_vm(v);
	uint32_t val = 0x9999, flush = 0x1000;
	uint64_t q = 0x1122334455667788ull, back = 0;
	char err[128] = "";

	vm->fd = -1;	/* the IRQ lines' KVM_IRQ_LINE fails harmlessly */
	ck_assert_int_eq(pc_testdev_dev_create(vm, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(bus_dispatch(&vm->bus, &v[0], BUS_PIO, 0xe0, true, &val, 2));
	val = 0;
	ck_assert_uint_eq(kind_at(vm, BUS_PIO, 0xe8, 1, &val), STATS_PIO_OTHER);
	ck_assert_uint_eq(val & 0xff, 0x99);
	ck_assert_ptr_nonnull(bus_dispatch(&vm->bus, &v[0], BUS_MMIO, TESTDEV_IOMEM_GPA + 0xfff8,
					   true, &q, 8));
	ck_assert_uint_eq(kind_at(vm, BUS_MMIO, TESTDEV_IOMEM_GPA + 0xfff8, 8, &back),
			  STATS_MMIO_OTHER);
	ck_assert_uint_eq(back, q);
	/* A flushed page keeps what it held. */
	*(uint32_t *)mem_gpa_to_host(&vm->mem, 0x1000, 4) = 0xfeedf00d;
	ck_assert_ptr_nonnull(bus_dispatch(&vm->bus, &v[0], BUS_PIO, 0xe4, true, &flush, 4));
	ck_assert_uint_eq(*(uint32_t *)mem_gpa_to_host(&vm->mem, 0x1000, 4), 0xfeedf00d);
	flush = 0xf0000000;
	bus_dispatch(&vm->bus, &v[0], BUS_PIO, 0xe4, true, &flush, 4);
	ck_assert_uint_eq(ratelimit_seen(&vm->guest_msgs, GMSG_TESTDEV_FLUSH), 1);
	/* The IRQ lines: 24 write-only ports, read as ones; the 25th is not the device's. */
	val = 0;
	ck_assert_uint_eq(kind_at(vm, BUS_PIO, TESTDEV_IRQ_PORT + 23, 1, &val), STATS_PIO_OTHER);
	ck_assert_uint_eq(val & 0xff, 0xff);
	ck_assert_ptr_null(bus_find(&vm->bus, BUS_PIO, TESTDEV_IRQ_PORT + 24, 1));
	ck_assert(bus_any_flag(&vm->bus, BUS_F_RAISES_IRQ));
	free_vm(vm);
}
END_TEST

/* 2026-12-01 19:45:56 UTC, a Tuesday. */
#define CMOS_TEST_TIME	((time_t)1796154356)

static uint8_t cmos_get(struct cmos_rtc *c, uint8_t reg)
{
	cmos_rtc_write(c, CMOS_INDEX_PORT, (uint8_t)(0x80 | reg));	/* NMI-disable bit ignored */
	return cmos_rtc_read(c, CMOS_DATA_PORT, CMOS_TEST_TIME, 0);
}

START_TEST(test_cmos_rtc)
{
	struct cmos_rtc c;

	cmos_rtc_reset(&c);
	ck_assert_uint_eq(cmos_get(&c, CMOS_SECONDS), 56);
	ck_assert_uint_eq(cmos_get(&c, CMOS_MINUTES), 45);
	ck_assert_uint_eq(cmos_get(&c, CMOS_HOURS), 19);	/* 24-hour, binary */
	ck_assert_uint_eq(cmos_get(&c, CMOS_WEEKDAY), 3);	/* Tuesday, 1 = Sunday */
	ck_assert_uint_eq(cmos_get(&c, CMOS_DAY), 1);
	ck_assert_uint_eq(cmos_get(&c, CMOS_MONTH), 12);
	ck_assert_uint_eq(cmos_get(&c, CMOS_YEAR), 26);
	ck_assert_uint_eq(cmos_get(&c, CMOS_CENTURY), 20);
	ck_assert_uint_eq(cmos_get(&c, CMOS_REG_A) & 0x80, 0);	/* early in the second: no UIP */
	/* UIP in the last 2228 us of a second only: kvm-unit-tests' s3 waits for 0 -> 1 -> 0. */
	cmos_rtc_write(&c, CMOS_INDEX_PORT, CMOS_REG_A);
	ck_assert_uint_eq(cmos_rtc_read(&c, CMOS_DATA_PORT, CMOS_TEST_TIME, 997771999) & 0x80, 0);
	ck_assert_uint_eq(cmos_rtc_read(&c, CMOS_DATA_PORT, CMOS_TEST_TIME, 997772000),
			  CMOS_A_UIP | CMOS_A_DIVIDER);
	ck_assert_uint_eq(cmos_rtc_read(&c, CMOS_DATA_PORT, CMOS_TEST_TIME, 999999999) & 0x80, 0x80);
	ck_assert_uint_eq(cmos_get(&c, CMOS_REG_B), CMOS_B_24H | CMOS_B_BINARY);
	ck_assert_uint_eq(cmos_get(&c, CMOS_REG_D), CMOS_D_VRT);
	/* Linux's SET bit is kept, the mode bits stay; C and D and the clock cannot be written. */
	cmos_rtc_write(&c, CMOS_INDEX_PORT, CMOS_REG_B);
	cmos_rtc_write(&c, CMOS_DATA_PORT, 0x80);
	ck_assert_uint_eq(cmos_get(&c, CMOS_REG_B), 0x80 | CMOS_B_24H | CMOS_B_BINARY);
	cmos_rtc_write(&c, CMOS_INDEX_PORT, CMOS_REG_D);
	cmos_rtc_write(&c, CMOS_DATA_PORT, 0);
	ck_assert_uint_eq(cmos_get(&c, CMOS_REG_D), CMOS_D_VRT);
	cmos_rtc_write(&c, CMOS_INDEX_PORT, CMOS_SECONDS);
	cmos_rtc_write(&c, CMOS_DATA_PORT, 7);
	ck_assert_uint_eq(cmos_get(&c, CMOS_SECONDS), 56);
	/* The rest is RAM; the index port reads all ones. */
	cmos_rtc_write(&c, CMOS_INDEX_PORT, 0x40);
	cmos_rtc_write(&c, CMOS_DATA_PORT, 0x5a);
	ck_assert_uint_eq(cmos_get(&c, 0x40), 0x5a);
	ck_assert_uint_eq(cmos_rtc_read(&c, CMOS_INDEX_PORT, CMOS_TEST_TIME, 0), 0xff);
}
END_TEST

/* The arithmetic calendar against gmtime_r over 1970-2199, a leap day included. */
START_TEST(test_cmos_rtc_calendar)
{
	static const uint8_t regs[] = { CMOS_SECONDS, CMOS_MINUTES, CMOS_HOURS, CMOS_WEEKDAY,
					CMOS_DAY, CMOS_MONTH, CMOS_YEAR, CMOS_CENTURY };
	struct cmos_rtc c;

	cmos_rtc_reset(&c);
	for (time_t t = 0; t < (time_t)7258118400; t += 86400 * 13 + 3607) {
		struct tm tm;
		unsigned int want[8];

		gmtime_r(&t, &tm);
		want[0] = tm.tm_sec, want[1] = tm.tm_min, want[2] = tm.tm_hour;
		want[3] = tm.tm_wday + 1, want[4] = tm.tm_mday, want[5] = tm.tm_mon + 1;
		want[6] = tm.tm_year % 100, want[7] = (tm.tm_year + 1900) / 100;
		for (unsigned int i = 0; i < 8; i++) {
			cmos_rtc_write(&c, CMOS_INDEX_PORT, regs[i]);
			ck_assert_uint_eq(cmos_rtc_read(&c, CMOS_DATA_PORT, t, 0), want[i]);
		}
	}
	cmos_rtc_write(&c, CMOS_INDEX_PORT, CMOS_DAY);
	ck_assert_uint_eq(cmos_rtc_read(&c, CMOS_DATA_PORT, (time_t)1709164800, 0), 29);	/* 2024-02-29 */
}
END_TEST

/*
 * A Linux guest's row: its COM1, the exit and results ports (a program in
 * Linux ends the run or submits records), PM1a, the PM timer, the i8042,
 * PCI config.
 */
START_TEST(test_linux_devices_row)
{
	static const uint16_t claimed[] = {
		MVM_PORT_COM1, MVM_PORT_COM1 + 7, MVM_PORT_EXIT, MVM_PORT_RESULTS,
		MVM_PORT_RESULTS + 3, 0x600, 0x604, PMTIMER_PORT, 0x60, 0x64, CMOS_INDEX_PORT,
		CMOS_DATA_PORT, 0xcfc,
	};
	struct vcpu v[2];
	struct vm *vm = fake_vm(v);
	char err[128] = "";

	ck_assert_int_eq(devices_create(vm, IMAGE_LINUX, err, sizeof(err)), 0);
	for (unsigned int i = 0; i < sizeof(claimed) / sizeof(claimed[0]); i++)
		ck_assert_msg(bus_find(&vm->bus, BUS_PIO, claimed[i], 1), "port 0x%x unclaimed",
			      claimed[i]);
	/* The payload's timing and control ports are not a Linux guest's. */
	ck_assert_ptr_null(bus_find(&vm->bus, BUS_PIO, MVM_PORT_NULL, 1));
	ck_assert_ptr_null(bus_find(&vm->bus, BUS_PIO, MVM_PORT_CTRL, 4));
	free_vm(vm);
}
END_TEST

/* Each vCPU's line is the console's; an unfinished one goes out when its vCPU stops. */
START_TEST(test_console_lines_per_vcpu)
{
	struct vcpu v[2];
	struct vm *vm = fake_vm(v);
	int pipefd[2], saved = dup(STDOUT_FILENO);
	char err[128] = "", out[16] = "";
	const char *a = "ab\r", *b = "xy";

	ck_assert_int_eq(devices_create(vm, IMAGE_ELF64, err, sizeof(err)), 0);
	ck_assert_int_eq(pipe(pipefd), 0);
	dup2(pipefd[1], STDOUT_FILENO);
	for (const char *c = a; *c; c++)
		bus_dispatch(&vm->bus, &v[0], BUS_PIO, MVM_PORT_COM1, true, (void *)c, 1);
	for (const char *c = b; *c; c++)
		bus_dispatch(&vm->bus, &v[1], BUS_PIO, MVM_PORT_COM1, true, (void *)c, 1);
	bus_vcpu_stopped(&vm->bus, 1);
	bus_vcpu_stopped(&vm->bus, 0);
	dup2(saved, STDOUT_FILENO);
	close(pipefd[1]);
	ck_assert_int_eq(read(pipefd[0], out, sizeof(out) - 1), 4);
	ck_assert_str_eq(out, "xyab");	/* whole per vCPU, in stop order, CR dropped */
	close(pipefd[0]);
	close(saved);
	free_vm(vm);
}
END_TEST


static uint16_t pm_read16(const struct acpi_pm *pm, unsigned int off)
{
	return (uint16_t)(acpi_pm_read(pm, off) | acpi_pm_read(pm, off + 1) << 8);
}

/* A 16-bit outw, low byte first as the device handler splits it. */
static enum acpi_pm_event pm_write16(struct acpi_pm *pm, unsigned int off, uint16_t v)
{
	enum acpi_pm_event lo = acpi_pm_write(pm, off, (uint8_t)v);

	ck_assert_int_eq(lo, ACPI_PM_NONE);
	return acpi_pm_write(pm, off + 1, (uint8_t)(v >> 8));
}

/* What ACPICA's acpi_hw_legacy_sleep() does for S5: SLP_TYP first, then SLP_TYP | SLP_EN. */
START_TEST(test_acpi_pm_poweroff)
{
	struct acpi_pm pm;
	uint16_t cnt;

	acpi_pm_reset(&pm);
	ck_assert_uint_eq(pm_read16(&pm, 4), ACPI_PM1_CNT_SCI_EN);	/* always ACPI mode */
	ck_assert_uint_eq(pm_read16(&pm, 0), 0);			/* no status bits */
	ck_assert_int_eq(pm_write16(&pm, 0, 0xffff), ACPI_PM_NONE);	/* clear all: nothing */
	ck_assert_uint_eq(pm_read16(&pm, 0), 0);
	ck_assert_int_eq(pm_write16(&pm, 2, 0x0121), ACPI_PM_NONE);	/* PM1_EN kept */
	ck_assert_uint_eq(pm_read16(&pm, 2), 0x0121);
	cnt = pm_read16(&pm, 4) & ~(7u << 10) & ~ACPI_PM1_CNT_SLP_EN;
	cnt |= 5u << 10;
	ck_assert_int_eq(pm_write16(&pm, 4, cnt), ACPI_PM_NONE);
	ck_assert_uint_eq(pm_read16(&pm, 4), cnt | ACPI_PM1_CNT_SCI_EN);
	ck_assert_int_eq(pm_write16(&pm, 4, cnt | ACPI_PM1_CNT_SLP_EN), ACPI_PM_POWEROFF);
	/* SLP_EN is write-only: it never reads back. */
	ck_assert_uint_eq(pm_read16(&pm, 4) & ACPI_PM1_CNT_SLP_EN, 0);
}
END_TEST

START_TEST(test_acpi_pm_other_sleep)
{
	struct acpi_pm pm;

	acpi_pm_reset(&pm);
	/* S3 (QEMU's SLP_TYP 1) is a suspend; the others are said and ignored, not a poweroff. */
	ck_assert_int_eq(pm_write16(&pm, 4, (1u << 10) | ACPI_PM1_CNT_SLP_EN), ACPI_PM_SUSPEND);
	ck_assert_int_eq(pm_write16(&pm, 4, (7u << 10) | ACPI_PM1_CNT_SLP_EN), ACPI_PM_SLEEP);
	/* SLP_TYP 5 without SLP_EN, or SCI_EN written 0: nothing happens. */
	ck_assert_int_eq(pm_write16(&pm, 4, 5u << 10), ACPI_PM_NONE);
	ck_assert_int_eq(pm_write16(&pm, 4, 0), ACPI_PM_NONE);
	ck_assert_uint_eq(pm_read16(&pm, 4), ACPI_PM1_CNT_SCI_EN);
	/* Past the six registers: reads 0, writes do nothing. */
	ck_assert_uint_eq(acpi_pm_read(&pm, 6), 0);
	ck_assert_int_eq(acpi_pm_write(&pm, 6, 0xff), ACPI_PM_NONE);
}
END_TEST

START_TEST(test_i8042)
{
	/* Status 0: input and output buffers empty, so Linux's kb_wait() returns at once. */
	ck_assert_uint_eq(i8042_read(I8042_CMD_PORT), 0);
	ck_assert_uint_eq(i8042_read(I8042_DATA_PORT), 0);
	ck_assert(i8042_write(I8042_CMD_PORT, I8042_CMD_RESET));
	/* Other pulses with the reset line's bit 0 clear reset too; bit 0 set does not. */
	ck_assert(i8042_write(I8042_CMD_PORT, 0xf0));
	ck_assert(!i8042_write(I8042_CMD_PORT, 0xff));
	ck_assert(!i8042_write(I8042_CMD_PORT, 0xfd));
	/* Ordinary commands, and 0xfe as data: accepted and ignored. */
	ck_assert(!i8042_write(I8042_CMD_PORT, 0xad));
	ck_assert(!i8042_write(I8042_CMD_PORT, 0x20));
	ck_assert(!i8042_write(I8042_DATA_PORT, I8042_CMD_RESET));
}
END_TEST

static enum escape_action esc(struct console_escape *e, const char *in, char *out)
{
	size_t n = strlen(in), o = 99;
	enum escape_action a = escape_filter(e, (const uint8_t *)in, n, (uint8_t *)out, &o);

	ck_assert_uint_le(o, n);
	out[o] = '\0';
	return a;
}

START_TEST(test_escape_keys)
{
	struct console_escape e = { 0 };
	char out[64];

	ck_assert_int_eq(esc(&e, "ls -l\r\x03", out), ESCAPE_NONE);
	ck_assert_str_eq(out, "ls -l\r\x03");			/* Ctrl-C goes to the guest */
	ck_assert_int_eq(esc(&e, "a\x01\x01" "b", out), ESCAPE_NONE);
	ck_assert_str_eq(out, "a\x01" "b");	/* Ctrl-A Ctrl-A: one Ctrl-A */
	ck_assert_int_eq(esc(&e, "\x01q\x01hc", out), ESCAPE_HELP_ASKED);
	ck_assert_str_eq(out, "c");				/* unknown after Ctrl-A: dropped */
	ck_assert_int_eq(esc(&e, "up\x01xdown", out), ESCAPE_QUIT);
	ck_assert_str_eq(out, "up");				/* nothing after the quit */
	/* Split across two reads. */
	ck_assert_int_eq(esc(&e, "z\x01", out), ESCAPE_NONE);
	ck_assert_str_eq(out, "z");
	ck_assert(e.armed);
	ck_assert_int_eq(esc(&e, "x", out), ESCAPE_QUIT);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(esc(&e, "\x01", out), ESCAPE_NONE);
	ck_assert_int_eq(esc(&e, "\x01", out), ESCAPE_NONE);
	ck_assert_str_eq(out, "\x01");
	ck_assert(!e.armed);
}
END_TEST

static Suite *devices_suite(void)
{
	Suite *s = suite_create("devices");
	TCase *tc = tcase_create("models");

	tcase_add_test(tc, test_uart_transmit_and_lsr);
	tcase_add_test(tc, test_uart_divisor_latch);
	tcase_add_test(tc, test_uart_loopback_and_scratch);
	tcase_add_test(tc, test_fwcfg_items);
	tcase_add_test(tc, test_fwcfg_unknown_and_past_end);
	tcase_add_test(tc, test_pmtimer);
	tcase_add_test(tc, test_acpi_pm_poweroff);
	tcase_add_test(tc, test_acpi_pm_other_sleep);
	tcase_add_test(tc, test_i8042);
	tcase_add_test(tc, test_escape_keys);
	suite_add_tcase(s, tc);
	tc = tcase_create("tables");
	tcase_add_test(tc, test_payload_devices);
	tcase_add_test(tc, test_multiboot_devices);
	tcase_add_test(tc, test_exit_status);
	tcase_add_test(tc, test_pc_testdev_scratch);
	tcase_add_test(tc, test_pc_testdev_device);
	tcase_add_test(tc, test_linux_devices_row);
	tcase_add_test(tc, test_cmos_rtc);
	tcase_add_test(tc, test_cmos_rtc_calendar);
	tcase_add_test(tc, test_console_lines_per_vcpu);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(devices_suite);
