// SPDX-License-Identifier: MIT
/* Register models of the Multiboot devices: 16550, fw_cfg, PM timer. */
#include <check.h>
#include <stdint.h>

#include "tests/unit/suites.h"
#include "vmm/dev/fwcfg.h"
#include "vmm/dev/pmtimer.h"
#include "vmm/dev/serial16550.h"

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
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(devices_suite);
