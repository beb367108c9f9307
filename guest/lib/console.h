/* SPDX-License-Identifier: MIT */
#ifndef GUEST_LIB_CONSOLE_H
#define GUEST_LIB_CONSOLE_H

#include "lib/types.h"

/* Write bytes to COM1. Safe at CPL3 under run_user() (every port allowed there). */
void console_write(const char *s, size_t len);

#endif /* GUEST_LIB_CONSOLE_H */
