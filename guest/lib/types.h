/* SPDX-License-Identifier: MIT */
/* Fixed-width types and compiler attributes for the freestanding payload. */
#ifndef GUEST_LIB_TYPES_H
#define GUEST_LIB_TYPES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define __aligned(x)		__attribute__((aligned(x)))
#define __packed		__attribute__((packed))
#define __noreturn		__attribute__((noreturn))
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define __used			__attribute__((used))
#define __section(s)		__attribute__((section(s)))

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)		(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define MIN(a, b)		((a) < (b) ? (a) : (b))
#define MAX(a, b)		((a) > (b) ? (a) : (b))

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)

#endif /* GUEST_LIB_TYPES_H */
