/* SPDX-License-Identifier: MIT */
/*
 * The escape key on an interactive console (stdin a terminal), as QEMU's
 * -nographic: Ctrl-A x quits, Ctrl-A h prints the keys, Ctrl-A Ctrl-A sends
 * one Ctrl-A to the guest; Ctrl-A and any other key are both dropped. All
 * other bytes, Ctrl-C included, go to the guest. Pure: bytes in, bytes out.
 */
#ifndef VMM_DEV_CONSOLE_ESCAPE_H
#define VMM_DEV_CONSOLE_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ESCAPE_KEY	0x01	/* Ctrl-A */
#define ESCAPE_HELP \
	"minivmm: console keys: Ctrl-A x quit (exit 130, as Ctrl-C would outside raw mode), " \
	"Ctrl-A h this help, Ctrl-A Ctrl-A send Ctrl-A"

struct console_escape {
	bool armed;		/* the last byte was an unescaped Ctrl-A */
};

enum escape_action {
	ESCAPE_NONE,
	ESCAPE_QUIT,		/* Ctrl-A x: bytes after it were not looked at */
	ESCAPE_HELP_ASKED,	/* Ctrl-A h (one or more) */
};

/*
 * Filter `n` bytes: what the guest gets goes to `out` (room for `n`), its
 * length to *out_len. An escape split across calls works (state in `e`).
 */
enum escape_action escape_filter(struct console_escape *e, const uint8_t *in, size_t n,
				 uint8_t *out, size_t *out_len);

#endif
