// SPDX-License-Identifier: MIT
/*
 * The 16550A model's interrupts and receiver, and Linux's 8250 driver's
 * probes replayed register by register (drivers/tty/serial/8250/8250_port.c
 * in Linux 6.1: autoconfig(), size_fifo(), serial8250_do_startup()) with
 * what Linux concludes from what it reads.
 */
#include <check.h>
#include <stdint.h>

#include "tests/unit/suites.h"
#include "vmm/dev/serial16550.h"

#define IIR_ID(v)	((v) & 0x0f)

static struct uart16550 u;

static void setup(void)
{
	uart_reset(&u);
}

START_TEST(test_thri_raise_and_clear)
{
	ck_assert_uint_eq(uart_read(&u, UART_IIR), UART_IIR_NONE);
	uart_write(&u, UART_IER, UART_IER_THRI);
	/* THR is empty: enabling THRI raises it at once. */
	ck_assert_uint_eq(uart_read(&u, UART_IIR), UART_IIR_THRI);
	/* Reading IIR while THRE is its source clears it. */
	ck_assert_uint_eq(uart_read(&u, UART_IIR), UART_IIR_NONE);
	/* A byte sent: THR is empty again, so THRE is pending again. */
	ck_assert(uart_write(&u, UART_THR, 'a'));
	ck_assert_uint_eq(uart_iir(&u), UART_IIR_THRI);
	/* Disabling THRI hides it; LSR never clears it. */
	uart_read(&u, UART_LSR);
	ck_assert_uint_eq(uart_iir(&u), UART_IIR_THRI);
	uart_write(&u, UART_IER, 0);
	ck_assert_uint_eq(uart_read(&u, UART_IIR), UART_IIR_NONE);
	/* Re-enabling THRI (already THRI) does not raise it twice. */
	uart_write(&u, UART_IER, UART_IER_THRI);
	ck_assert_uint_eq(uart_read(&u, UART_IIR), UART_IIR_THRI);
	uart_write(&u, UART_IER, UART_IER_THRI | UART_IER_RDI);
	ck_assert_uint_eq(uart_read(&u, UART_IIR), UART_IIR_NONE);
	/* FIFOs on: IIR bits 7:6 say so. */
	uart_write(&u, UART_FCR, UART_FCR_ENABLE);
	uart_write(&u, UART_THR, 'b');
	ck_assert_uint_eq(uart_read(&u, UART_IIR), UART_IIR_FIFO | UART_IIR_THRI);
}
END_TEST

/* The IRQ line: pending and OUT2, not in loopback; an edge per rise, none while it stays up. */
START_TEST(test_irq_edges)
{
	uart_write(&u, UART_IER, UART_IER_THRI);
	ck_assert(!uart_irq_edge(&u));			/* OUT2 clear: the line is gated off */
	uart_write(&u, UART_MCR, UART_MCR_OUT2 | UART_MCR_DTR | UART_MCR_RTS);
	ck_assert(uart_irq_edge(&u));			/* pending THRE reaches the line */
	ck_assert(!uart_irq_edge(&u));			/* still high: no second edge */
	uart_write(&u, UART_THR, 'x');			/* cleared and set again at once */
	ck_assert(!uart_irq_edge(&u));
	uart_read(&u, UART_IIR);			/* the handler takes it: line low */
	ck_assert(!uart_irq_edge(&u));
	uart_write(&u, UART_THR, 'y');			/* the next byte leaves: a new edge */
	ck_assert(uart_irq_edge(&u));
	uart_write(&u, UART_IER, 0);
	ck_assert(!uart_irq_edge(&u));
	uart_write(&u, UART_IER, UART_IER_THRI);
	ck_assert(uart_irq_edge(&u));
	/* Loopback forces OUT2 inactive: the line falls, and rises when it ends. */
	uart_write(&u, UART_MCR, UART_MCR_OUT2 | UART_MCR_LOOP);
	ck_assert(!uart_irq_edge(&u));
	uart_write(&u, UART_MCR, UART_MCR_OUT2);
	ck_assert(uart_irq_edge(&u));
}
END_TEST

START_TEST(test_receive_fifo)
{
	uart_write(&u, UART_FCR, UART_FCR_ENABLE);	/* trigger level 1 */
	ck_assert_uint_eq(uart_rx_room(&u), UART_FIFO_SIZE);
	ck_assert_uint_eq(uart_read(&u, UART_LSR) & UART_LSR_DR, 0);
	ck_assert(uart_receive(&u, 'h'));
	ck_assert(uart_receive(&u, 'i'));
	ck_assert_uint_eq(uart_rx_room(&u), UART_FIFO_SIZE - 2);
	ck_assert_uint_eq(uart_read(&u, UART_LSR), UART_LSR_THRE | UART_LSR_TEMT | UART_LSR_DR);
	/* IER.RDI off: data but no interrupt. */
	ck_assert_uint_eq(uart_iir(&u), UART_IIR_FIFO | UART_IIR_NONE);
	uart_write(&u, UART_IER, UART_IER_RDI);
	ck_assert_uint_eq(uart_iir(&u), UART_IIR_FIFO | UART_IIR_RDI);
	ck_assert_uint_eq(uart_read(&u, UART_RBR), 'h');
	ck_assert_uint_eq(uart_read(&u, UART_RBR), 'i');
	ck_assert_uint_eq(uart_read(&u, UART_LSR) & UART_LSR_DR, 0);
	ck_assert_uint_eq(uart_iir(&u), UART_IIR_FIFO | UART_IIR_NONE);
	ck_assert_uint_eq(uart_read(&u, UART_RBR), 0);	/* empty: nothing, and no underflow */
	ck_assert_uint_eq(uart_rx_room(&u), UART_FIFO_SIZE);
	/* DLAB hides RBR behind DLL: nothing is taken from the FIFO. */
	uart_receive(&u, 'z');
	uart_write(&u, UART_LCR, 0x83);
	ck_assert_uint_eq(uart_read(&u, UART_RBR), 0x01);
	uart_write(&u, UART_LCR, 0x03);
	ck_assert_uint_eq(uart_read(&u, UART_RBR), 'z');
}
END_TEST

/* Below the trigger level the 16550 reports a character timeout, at it "data available". */
START_TEST(test_receive_trigger_level)
{
	uart_write(&u, UART_FCR, UART_FCR_ENABLE | 0x80);	/* trigger 8, as Linux sets it */
	uart_write(&u, UART_IER, UART_IER_RDI);
	for (int i = 0; i < 7; i++)
		uart_receive(&u, (uint8_t)i);
	ck_assert_uint_eq(IIR_ID(uart_iir(&u)), UART_IIR_CTI);
	uart_receive(&u, 7);
	ck_assert_uint_eq(IIR_ID(uart_iir(&u)), UART_IIR_RDI);
	/* FCR clear-receiver empties it; the bit does not stick. */
	uart_write(&u, UART_FCR, UART_FCR_ENABLE | 0x80 | UART_FCR_CLEAR_RX);
	ck_assert_uint_eq(uart_rx_room(&u), UART_FIFO_SIZE);
	ck_assert_uint_eq(IIR_ID(uart_iir(&u)), UART_IIR_NONE);
	ck_assert_uint_eq(u.fcr, UART_FCR_ENABLE | 0x80);
}
END_TEST

/* A full receiver loses the next byte: counted, LSR.OE, a line-status interrupt first. */
START_TEST(test_overrun_and_priorities)
{
	uart_write(&u, UART_FCR, UART_FCR_ENABLE);
	uart_write(&u, UART_IER, UART_IER_RDI | UART_IER_THRI | UART_IER_RLSI);
	ck_assert_uint_eq(IIR_ID(uart_iir(&u)), UART_IIR_THRI);
	for (int i = 0; i < UART_FIFO_SIZE; i++)
		ck_assert(uart_receive(&u, (uint8_t)('a' + i)));
	/* Data outranks THRE. */
	ck_assert_uint_eq(IIR_ID(uart_iir(&u)), UART_IIR_RDI);
	ck_assert_uint_eq(uart_rx_room(&u), 0);
	ck_assert(!uart_receive(&u, '!'));
	ck_assert(!uart_receive(&u, '?'));
	ck_assert_uint_eq(u.overruns, 2);
	/* Line status outranks both, and reading IIR does not clear it... */
	ck_assert_uint_eq(IIR_ID(uart_read(&u, UART_IIR)), UART_IIR_RLSI);
	ck_assert_uint_eq(IIR_ID(uart_read(&u, UART_IIR)), UART_IIR_RLSI);
	/* ...reading LSR does, and THRE stayed pending under them (IIR never reported it). */
	ck_assert_uint_eq(uart_read(&u, UART_LSR) & (UART_LSR_OE | UART_LSR_DR),
			  UART_LSR_OE | UART_LSR_DR);
	ck_assert_uint_eq(uart_read(&u, UART_LSR) & UART_LSR_OE, 0);
	ck_assert_uint_eq(IIR_ID(uart_iir(&u)), UART_IIR_RDI);
	/* What the FIFO held is intact, in order: the lost bytes were the new ones. */
	for (int i = 0; i < UART_FIFO_SIZE; i++)
		ck_assert_uint_eq(uart_read(&u, UART_RBR), 'a' + i);
	ck_assert_uint_eq(IIR_ID(uart_read(&u, UART_IIR)), UART_IIR_THRI);
	ck_assert_uint_eq(IIR_ID(uart_read(&u, UART_IIR)), UART_IIR_NONE);
}
END_TEST

/* FIFOs off (16450 mode) there is only the RBR; switching FIFO mode empties the FIFO. */
START_TEST(test_fifo_off)
{
	ck_assert_uint_eq(uart_rx_room(&u), 1);
	ck_assert(uart_receive(&u, 'a'));
	ck_assert(!uart_receive(&u, 'b'));
	ck_assert_uint_eq(u.overruns, 1);
	uart_write(&u, UART_FCR, UART_FCR_ENABLE);
	ck_assert_uint_eq(uart_rx_room(&u), UART_FIFO_SIZE);
	uart_receive(&u, 'c');
	uart_receive(&u, 'd');
	uart_write(&u, UART_FCR, 0);
	ck_assert_uint_eq(uart_rx_room(&u), 1);
	ck_assert_uint_eq(uart_read(&u, UART_LSR) & UART_LSR_DR, 0);
}
END_TEST

/* Loopback: THR comes back to RBR, MSR shows MCR's outputs; outside it, the modem lines. */
START_TEST(test_loopback)
{
	u.msr_lines = UART_MSR_DCD | UART_MSR_DSR | UART_MSR_CTS;
	ck_assert_uint_eq(uart_read(&u, UART_MSR), 0xb0);
	uart_write(&u, UART_MCR, UART_MCR_LOOP | UART_MCR_RTS | UART_MCR_OUT2);
	ck_assert_uint_eq(uart_read(&u, UART_MSR), UART_MSR_CTS | UART_MSR_DCD);
	uart_write(&u, UART_MCR, UART_MCR_LOOP | 0x0a);	/* autoconfig's loopback test */
	ck_assert_uint_eq(uart_read(&u, UART_MSR) & 0xf0, 0x90);
	ck_assert(!uart_write(&u, UART_THR, 'L'));	/* not sent */
	ck_assert_uint_eq(uart_read(&u, UART_LSR) & UART_LSR_DR, UART_LSR_DR);
	ck_assert_uint_eq(uart_read(&u, UART_RBR), 'L');
}
END_TEST

/* autoconfig(): the IER test and the FIFO probe that makes it a 16550A. */
START_TEST(test_linux_autoconfig)
{
	uint8_t scratch2, scratch3;

	uart_write(&u, UART_IER, 0);
	scratch2 = uart_read(&u, UART_IER) & 0x0f;
	uart_write(&u, UART_IER, 0x0f);
	scratch3 = uart_read(&u, UART_IER) & 0x0f;
	uart_write(&u, UART_IER, 0);
	ck_assert_uint_eq(scratch2, 0);
	ck_assert_uint_eq(scratch3, 0x0f);	/* else "no UART here" */
	uart_write(&u, UART_LCR, 0xbf);		/* UART_LCR_CONF_MODE_B */
	uart_write(&u, UART_FCR, 0);		/* UART_EFR on enhanced parts */
	uart_write(&u, UART_LCR, 0);
	uart_write(&u, UART_FCR, UART_FCR_ENABLE);
	ck_assert_uint_eq(uart_read(&u, UART_IIR) >> 6, 3);	/* 3: autoconfig_16550a() */
	/* The EFR probes read IIR with LCR 0x80 and 0xbf: never 0, so no EFR. */
	uart_write(&u, UART_LCR, 0x80);
	ck_assert_uint_ne(uart_read(&u, UART_IIR), 0);
	uart_write(&u, UART_LCR, 0xbf);
	ck_assert_uint_ne(uart_read(&u, UART_IIR), 0);
	uart_write(&u, UART_LCR, 0);
}
END_TEST

/* size_fifo(): 256 bytes in loopback, then count what the receiver kept. 64 would be a U6_16550A. */
START_TEST(test_linux_size_fifo)
{
	unsigned int count;

	uart_write(&u, UART_LCR, 0);
	uart_write(&u, UART_FCR, UART_FCR_ENABLE | UART_FCR_CLEAR_RX | UART_FCR_CLEAR_TX);
	uart_write(&u, UART_MCR, UART_MCR_LOOP);
	uart_write(&u, UART_LCR, 0x80);
	uart_write(&u, UART_DLL, 1);
	uart_write(&u, UART_DLM, 0);
	uart_write(&u, UART_LCR, 0x03);
	for (count = 0; count < 256; count++)
		ck_assert(!uart_write(&u, UART_THR, (uint8_t)count));
	for (count = 0; (uart_read(&u, UART_LSR) & UART_LSR_DR) && count < 256; count++)
		ck_assert_uint_eq(uart_read(&u, UART_RBR), count);
	ck_assert_uint_eq(count, UART_FIFO_SIZE);
	ck_assert(!uart_irq_edge(&u));		/* loopback: the line stayed quiet */
}
END_TEST

/*
 * serial8250_do_startup(): the THRE test (UART_BUG_THRE if IIR shows THRI
 * after enabling it and then not after enabling it again) and the TXEN test
 * (UART_BUG_TXEN if LSR says empty but IIR shows no interrupt). Neither
 * workaround may be needed, and once running, the interrupt handler's loop
 * must see THRE after each batch until it turns THRI off.
 */
START_TEST(test_linux_startup_probe)
{
	uint8_t iir1, iir, lsr;
	bool bug_thre, bug_txen;

	/* serial8250_clear_fifos(), then "clear the interrupt registers". */
	uart_write(&u, UART_FCR, UART_FCR_ENABLE);
	uart_write(&u, UART_FCR, UART_FCR_ENABLE | UART_FCR_CLEAR_RX | UART_FCR_CLEAR_TX);
	uart_write(&u, UART_FCR, 0);
	uart_read(&u, UART_LSR);
	uart_read(&u, UART_RBR);
	uart_read(&u, UART_IIR);
	uart_read(&u, UART_MSR);
	ck_assert_uint_ne(uart_read(&u, UART_LSR), 0xff);	/* the "LSR safety check" */
	/* The THRE test. */
	ck_assert(uart_read(&u, UART_LSR) & UART_LSR_THRE);	/* wait_for_xmitr() */
	uart_write(&u, UART_IER, UART_IER_THRI);
	iir1 = uart_read(&u, UART_IIR);
	uart_write(&u, UART_IER, 0);
	uart_write(&u, UART_IER, UART_IER_THRI);
	iir = uart_read(&u, UART_IIR);
	uart_write(&u, UART_IER, 0);
	bug_thre = !(iir1 & UART_IIR_NONE) && (iir & UART_IIR_NONE);
	ck_assert_uint_eq(iir1, UART_IIR_THRI);
	ck_assert_uint_eq(iir, UART_IIR_THRI);
	ck_assert(!bug_thre);
	/* LCR 8N1, OUT2 for the IRQ line, then the TXEN test. */
	uart_write(&u, UART_LCR, 0x03);
	uart_write(&u, UART_MCR, UART_MCR_OUT2 | UART_MCR_DTR | UART_MCR_RTS);
	uart_write(&u, UART_IER, UART_IER_THRI);
	lsr = uart_read(&u, UART_LSR);
	iir = uart_read(&u, UART_IIR);
	uart_write(&u, UART_IER, 0);
	bug_txen = (lsr & UART_LSR_TEMT) && (iir & UART_IIR_NONE);
	ck_assert(!bug_txen);
	uart_read(&u, UART_LSR);
	uart_read(&u, UART_RBR);
	uart_read(&u, UART_IIR);
	uart_read(&u, UART_MSR);
	/* set_termios enables the FIFOs; RX interrupts on; then user space writes 40 bytes. */
	uart_write(&u, UART_FCR, UART_FCR_ENABLE | 0x80);
	uart_write(&u, UART_IER, UART_IER_RDI | UART_IER_RLSI);
	uart_irq_edge(&u);
	uart_write(&u, UART_IER, UART_IER_RDI | UART_IER_RLSI | UART_IER_THRI);	/* start_tx */
	ck_assert(uart_irq_edge(&u));		/* IRQ 4 */
	for (unsigned int left = 40;;) {	/* serial8250_interrupt()'s loop */
		iir = uart_read(&u, UART_IIR);
		if (iir & UART_IIR_NONE)
			break;
		ck_assert_uint_eq(IIR_ID(iir), UART_IIR_THRI);
		ck_assert(uart_read(&u, UART_LSR) & UART_LSR_THRE);
		for (unsigned int n = 0; n < 16 && left; n++, left--)	/* tx_loadsz 16 */
			ck_assert(uart_write(&u, UART_THR, 'A'));
		if (!left)	/* transmit queue empty: __stop_tx() */
			uart_write(&u, UART_IER, UART_IER_RDI | UART_IER_RLSI);
	}
	ck_assert_uint_eq(uart_read(&u, UART_IER), UART_IER_RDI | UART_IER_RLSI);
}
END_TEST

static Suite *serial16550_suite(void)
{
	Suite *s = suite_create("serial16550");
	TCase *tc = tcase_create("uart");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_thri_raise_and_clear);
	tcase_add_test(tc, test_irq_edges);
	tcase_add_test(tc, test_receive_fifo);
	tcase_add_test(tc, test_receive_trigger_level);
	tcase_add_test(tc, test_overrun_and_priorities);
	tcase_add_test(tc, test_fifo_off);
	tcase_add_test(tc, test_loopback);
	tcase_add_test(tc, test_linux_autoconfig);
	tcase_add_test(tc, test_linux_size_fifo);
	tcase_add_test(tc, test_linux_startup_probe);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(serial16550_suite);
