/* SPDX-License-Identifier: MIT */
/* Port I/O. Works at CPL0, and at CPL3 under run_user() (every port allowed there). */
#ifndef GUEST_LIB_IO_H
#define GUEST_LIB_IO_H

#include "lib/types.h"

static inline void outb(u16 port, u8 v)
{
	asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(u16 port, u16 v)
{
	asm volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(u16 port, u32 v)
{
	asm volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline u8 inb(u16 port)
{
	u8 v;

	asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u16 inw(u16 port)
{
	u16 v;

	asm volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u32 inl(u16 port)
{
	u32 v;

	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

#endif /* GUEST_LIB_IO_H */
