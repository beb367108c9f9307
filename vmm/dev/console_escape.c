// SPDX-License-Identifier: MIT
#include "vmm/dev/console_escape.h"

enum escape_action escape_filter(struct console_escape *e, const uint8_t *in, size_t n,
				 uint8_t *out, size_t *out_len)
{
	enum escape_action act = ESCAPE_NONE;
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = in[i];

		if (!e->armed) {
			if (c == ESCAPE_KEY)
				e->armed = true;
			else
				out[o++] = c;
			continue;
		}
		e->armed = false;
		if (c == ESCAPE_KEY) {
			out[o++] = c;
		} else if (c == 'x' || c == 'X') {
			act = ESCAPE_QUIT;
			break;
		} else if (c == 'h' || c == 'H') {
			act = ESCAPE_HELP_ASKED;
		}
	}
	*out_len = o;
	return act;
}
