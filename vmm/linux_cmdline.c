// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "vmm/errmsg.h"
#include "vmm/linux_cmdline.h"

int linux_cmdline_build(const char *args, size_t max, char *out, size_t outlen,
			char *err, size_t errlen)
{
	size_t len = strlen(LINUX_CMDLINE_DEFAULT) + (*args ? 1 + strlen(args) : 0);

	if (len > max || len >= outlen)
		return errmsg(err, errlen,
			      "the kernel command line would be %zu bytes (minivmm's default %zu + "
			      "the arguments), longer than the kernel's limit of %zu",
			      len, strlen(LINUX_CMDLINE_DEFAULT), max < outlen ? max : outlen - 1);
	snprintf(out, outlen, "%s%s%s", LINUX_CMDLINE_DEFAULT, *args ? " " : "", args);
	return 0;
}

/* `needle` anywhere in the first `len` bytes of `line` (a line may carry a printk prefix). */
static int has(const char *line, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(line + i, needle, n))
			return 1;
	return 0;
}

enum linux_console_event linux_console_classify(const char *line, size_t len)
{
	if (has(line, len, "---[ end Kernel panic - not syncing"))
		return LINUX_CONSOLE_PANIC_END;
	if (has(line, len, "Kernel panic - not syncing"))
		return LINUX_CONSOLE_PANIC;
	return LINUX_CONSOLE_NONE;
}
