/* SPDX-License-Identifier: MIT */
/*
 * Kernel-style formatted output: %d %i %u %x %X %c %s %p %%, flags '-' '0'
 * '#', width and %s precision (both may be '*'), length h hh l ll z t.
 * printf() writes to COM1 and works at CPL3 under run_user().
 */
#ifndef GUEST_LIB_PRINTF_H
#define GUEST_LIB_PRINTF_H

#include "lib/types.h"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int vprintf(const char *fmt, va_list ap);
int printf(const char *fmt, ...) __printf(1, 2);

#endif /* GUEST_LIB_PRINTF_H */
