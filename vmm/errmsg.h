/* SPDX-License-Identifier: MIT */
#ifndef VMM_ERRMSG_H
#define VMM_ERRMSG_H

#include <stddef.h>

/* Format the one-line reason into err and return -1: `return errmsg(...)`. */
int errmsg(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
