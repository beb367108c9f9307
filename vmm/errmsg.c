// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "vmm/errmsg.h"

int errmsg(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
