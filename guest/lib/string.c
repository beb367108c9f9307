// SPDX-License-Identifier: MIT
/*
 * String helpers. gcc emits calls to memset/memcpy for struct copies and may
 * turn a byte loop into such a call, so the three copy/fill functions are
 * single rep-string instructions rather than C loops that could recurse.
 */
#include "lib/string.h"

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	asm volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;

	asm volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

/* Overlapping with dst above src: copy backwards (DF=1), then restore DF. */
void *memmove(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	d += n - 1;
	s += n - 1;
	asm volatile("std; rep movsb; cld" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const u8 *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (u8)*a - (u8)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (u8)*a - (u8)*b;
		if (!*a)
			break;
	}
	return 0;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = MIN(len, size - 1);

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

bool parse_u64(const char *s, u64 max, u64 *out)
{
	u64 v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (u64)(*s - '0')) / 10)
			return false;
		v = v * 10 + (u64)(*s - '0');
	}
	*out = v;
	return true;
}
