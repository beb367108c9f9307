// SPDX-License-Identifier: MIT
/*
 * unclaimed: accesses no device backs. Reads of an unclaimed port or MMIO
 * address must return all ones (like an empty bus), writes must be dropped
 * without ending the run, and an MSR nobody implements must raise #GP.
 * MVM_MMIO_NULL itself is the VMM's null device (reads 0), so the MMIO
 * probe uses an address above it.
 */
#include "lib/extable.h"
#include "lib/io.h"
#include "lib/report.h"
#include "suite.h"

#define UNCLAIMED_PORT	0x2f8		/* COM2: minivmm has none */
#define UNCLAIMED_MMIO	0xd0000000ull
#define BOGUS_MSR	0xdeadbeefu	/* not an MSR on any CPU, not in the VMM's ranges */

/* Explicit moves: the VMM (or KVM's emulator) decodes exactly these. */
static u8 mmio_read8(u64 addr)
{
	u8 v;

	asm volatile("movb (%1), %0" : "=q"(v) : "r"(addr) : "memory");
	return v;
}

static u32 mmio_read32(u64 addr)
{
	u32 v;

	asm volatile("movl (%1), %0" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

static u64 mmio_read64(u64 addr)
{
	u64 v;

	asm volatile("movq (%1), %0" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

static void mmio_write32(u64 addr, u32 v)
{
	asm volatile("movl %0, (%1)" : : "r"(v), "r"(addr) : "memory");
}

static void check_port(void)
{
	u8 b = inb(UNCLAIMED_PORT);
	u16 w = inw(UNCLAIMED_PORT);
	u32 l = inl(UNCLAIMED_PORT);

	report_why(b == 0xff && w == 0xffff && l == 0xffffffff,
		   "unclaimed port 0x2f8 reads all ones", "inb 0x%x inw 0x%x inl 0x%x", b, w, l);
	outb(UNCLAIMED_PORT, 0x5a);
	outl(UNCLAIMED_PORT, 0x12345678);
	b = inb(UNCLAIMED_PORT);
	report_why(b == 0xff, "unclaimed port ignores writes", "inb after out: 0x%x", b);
}

static void check_mmio(void)
{
	u8 b = mmio_read8(UNCLAIMED_MMIO);
	u32 l = mmio_read32(UNCLAIMED_MMIO);
	u64 q = mmio_read64(UNCLAIMED_MMIO);

	report_why(b == 0xff && l == 0xffffffff && q == ~0ull,
		   "unclaimed MMIO 0xd0000000 reads all ones", "byte 0x%x dword 0x%x qword 0x%lx",
		   b, l, q);
	mmio_write32(UNCLAIMED_MMIO, 0x12345678);
	l = mmio_read32(UNCLAIMED_MMIO);
	report_why(l == 0xffffffff, "unclaimed MMIO ignores writes", "dword after write: 0x%x", l);
}

static void check_msr(void)
{
	u64 val;
	int v;

	v = rdmsr_safe(BOGUS_MSR, &val);
	report_why(v == GP_VECTOR, "rdmsr of an unknown MSR raises #GP",
		   v == EX_NONE ? "read 0x%lx, no #GP (host kvm.ignore_msrs=1?)" :
		   "caught vector %ld", v == EX_NONE ? val : (u64)v);
	v = wrmsr_safe(BOGUS_MSR, 0);
	report_why(v == GP_VECTOR, "wrmsr of an unknown MSR raises #GP",
		   "caught vector %d", v);
}

static void suite_unclaimed(const char *arg)
{
	(void)arg;
	check_port();
	check_mmio();
	check_msr();
}

DEFINE_SUITE(80, suite_unclaimed, "unclaimed", false, NULL,
	     "unclaimed port, MMIO and MSR accesses read all ones / #GP");
