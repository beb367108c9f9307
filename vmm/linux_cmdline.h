/* SPDX-License-Identifier: MIT */
/*
 * A Linux guest's command line: minivmm's documented default, then the
 * user's arguments; and what the guest's console lines say about how it is
 * ending (a panic, a restart), which the exit status reports.
 */
#ifndef VMM_LINUX_CMDLINE_H
#define VMM_LINUX_CMDLINE_H

#include <stddef.h>

/*
 * console=ttyS0: minivmm's one UART; 8250.nr_uarts=1: no probes of the
 * three COM ports it does not have; reboot=k: a reset through the i8042
 * (0xFE to port 0x64), which minivmm sees (exit 4), rather than a jump
 * into a BIOS it lacks; panic=-1: reset at once after a panic (exit 3,
 * the panic line on stderr); io_delay=none: no writes to port 0x80;
 * pci=off: no PCI bus to scan.
 */
#define LINUX_CMDLINE_DEFAULT \
	"console=ttyS0 8250.nr_uarts=1 reboot=k panic=-1 io_delay=none pci=off"

/*
 * The default, a blank and `args` into out. -1 with err naming both
 * lengths when the result is longer than `max` bytes (the kernel's
 * cmdline_size) or does not fit `outlen`.
 */
int linux_cmdline_build(const char *args, size_t max, char *out, size_t outlen,
			char *err, size_t errlen);

enum linux_console_event {
	LINUX_CONSOLE_NONE = 0,
	LINUX_CONSOLE_PANIC,		/* "Kernel panic - not syncing: ..." */
	LINUX_CONSOLE_PANIC_END,	/* "---[ end Kernel panic - not syncing: ... ]---" */
};

/* What one complete console line (without its newline) announces. */
enum linux_console_event linux_console_classify(const char *line, size_t len);

#endif
