/* SPDX-License-Identifier: MIT */
/* The libc string subset the payload (and the compiler) need. */
#ifndef GUEST_LIB_STRING_H
#define GUEST_LIB_STRING_H

#include "lib/types.h"

void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
/* Copy at most size-1 bytes and always NUL-terminate; returns strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);
/* A whole decimal number 0..max with nothing after it: suite arguments. */
bool parse_u64(const char *s, u64 max, u64 *out);

#endif /* GUEST_LIB_STRING_H */
