// SPDX-License-Identifier: MIT
/*
 * hostile: port and MMIO storms. Thousands of accesses of every width to a
 * fixed set of addresses nobody claims, plain and as string I/O, plus
 * accesses that straddle two devices (which no device may see). Reads must
 * return all ones, writes must vanish, and the VMM must keep running and
 * name each address once on stderr (the integration case counts them).
 * The storms run at CPL3 (run_user() allows every port): native speed on
 * kvm_pvm.
 */
#include <minivmm/abi.h>

#include "lib/io.h"
#include "lib/report.h"
#include "lib/string.h"
#include "lib/user.h"
#include "tests/hostile.h"

#define PORT_STORM	4096u
#define MMIO_STORM	2048u
#define STRING_BYTES	4096u

/* Unclaimed: no minivmm device, no in-kernel KVM device (PIC, PIT, IOAPIC). */
static const u16 storm_ports[] = { 0x80, 0xfa, 0xfb, 0xcf8, 0xcfc, 0xfffc, 0xffff };

static u8 string_buf[STRING_BYTES] __aligned(64);

struct io_tally {
	u32 tries, bad;
	u64 first_addr, first_val;
	u32 first_size;
};

static void io_tally(struct io_tally *t, u64 addr, u32 size, u64 val, u64 want)
{
	t->tries++;
	if (val == want || t->bad++)
		return;
	t->first_addr = addr;
	t->first_size = size;
	t->first_val = val;
}

static void io_report(const struct io_tally *t, const char *name)
{
	report_why(!t->bad && t->tries, name, "%u of %u wrong; first: 0x%lx (%u bytes) read 0x%lx",
		   t->bad, t->tries, t->first_addr, t->first_size, t->first_val);
}

/* One read of `size` bytes; every fourth round also writes garbage first. */
static void port_round(struct io_tally *t, u16 port, u32 i)
{
	u32 size = 1u << (i % 3);

	if (i % 4 == 3) {
		outb(port, (u8)i);
		outw(port, (u16)(i * 0x9e37));
		outl(port, i * 0x9e3779b9u);
	}
	if (size == 1)
		io_tally(t, port, 1, inb(port), 0xff);
	else if (size == 2)
		io_tally(t, port, 2, inw(port), 0xffff);
	else
		io_tally(t, port, 4, inl(port), 0xffffffff);
}

static u64 port_storm(void *arg)
{
	struct io_tally *t = arg;

	const u32 n = ARRAY_SIZE(storm_ports);

	for (u32 i = 0; i < PORT_STORM; i++)
		port_round(t, storm_ports[i % n], i / n);
	return 0;
}

static u32 count_not(const u8 *buf, size_t len, u8 want)
{
	u32 n = 0;

	for (size_t i = 0; i < len; i++)
		n += buf[i] != want;
	return n;
}

/* rep ins/outs: one instruction, thousands of accesses in few exits. */
static u64 string_storm(void *arg)
{
	u32 *bad = arg;
	void *dst = string_buf;
	u32 n = STRING_BYTES;

	memset(string_buf, 0, sizeof(string_buf));
	asm volatile("rep insb" : "+D"(dst), "+c"(n) : "d"((u16)0x80) : "memory");
	*bad += count_not(string_buf, sizeof(string_buf), 0xff);
	memset(string_buf, 0, sizeof(string_buf));
	dst = string_buf;
	n = STRING_BYTES / 2;
	asm volatile("rep insw" : "+D"(dst), "+c"(n) : "d"((u16)0xcfc) : "memory");
	*bad += count_not(string_buf, sizeof(string_buf), 0xff);
	memset(string_buf, 0, sizeof(string_buf));
	dst = string_buf;
	n = STRING_BYTES / 4;
	asm volatile("rep insl" : "+D"(dst), "+c"(n) : "d"((u16)0xfffc) : "memory");
	*bad += count_not(string_buf, sizeof(string_buf), 0xff);
	dst = string_buf;
	n = STRING_BYTES;
	asm volatile("rep outsb" : "+S"(dst), "+c"(n) : "d"((u16)0xfa) : "memory");
	return 0;
}

/*
 * 0xf3..0xf6 spans the results and exit ports, 0xf7..0xf8 the exit and
 * null ports: no device may take part of an access. Were one to, the run
 * would end here (exit port) or a record would be rejected (exit 1).
 */
static u64 straddle_storm(void *arg)
{
	struct io_tally *t = arg;

	for (u32 i = 0; i < 64; i++) {
		outl(0xf3, 0xdeadbeef);
		outw(0xf3, 0xbeef);
		outl(0xf7, 0xdeadbeef);
		outw(0xf7, 0xbeef);
		io_tally(t, 0xf3, 4, inl(0xf3), 0xffffffff);
		io_tally(t, 0xf3, 2, inw(0xf3), 0xffff);
		io_tally(t, 0xf7, 4, inl(0xf7), 0xffffffff);
		io_tally(t, 0xf7, 2, inw(0xf7), 0xffff);
	}
	return 0;
}

/* Devices that only take writes answer reads like an empty bus. */
static u64 write_only_reads(void *arg)
{
	struct io_tally *t = arg;

	io_tally(t, MVM_PORT_RESULTS, 4, inl(MVM_PORT_RESULTS), 0xffffffff);
	io_tally(t, MVM_PORT_EXIT, 4, inl(MVM_PORT_EXIT), 0xffffffff);
	io_tally(t, MVM_PORT_HCALL, 1, inb(MVM_PORT_HCALL), 0xff);
	io_tally(t, MVM_PORT_CTRL, 4, inl(MVM_PORT_CTRL), 0xffffffff);
	io_tally(t, MVM_PORT_NULL, 1, inb(MVM_PORT_NULL), 0);
	return 0;
}

static void ports(void)
{
	struct io_tally storm = { 0 }, straddle = { 0 }, wo = { 0 };
	u32 string_bad = 0;

	run_user(port_storm, &storm, RUN_USER_IRQS_OFF);
	io_report(&storm, "port storm: 4096 reads (+ writes) of 7 unclaimed ports read all ones");
	run_user(string_storm, &string_bad, RUN_USER_IRQS_OFF);
	report_why(!string_bad, "rep insb/insw/insl of 4 KiB from unclaimed ports read all ones",
		   "%u bytes were not 0xff", string_bad);
	run_user(straddle_storm, &straddle, RUN_USER_IRQS_OFF);
	io_report(&straddle, "accesses straddling two port devices reach neither");
	run_user(write_only_reads, &wo, RUN_USER_IRQS_OFF);
	io_report(&wo, "write-only device ports read all ones, the null port 0");
}

static u64 mmio_read(u64 addr, u32 size)
{
	u64 v = 0;

	if (size == 1)
		asm volatile("movb (%1), %b0" : "+q"(v) : "r"(addr) : "memory");
	else if (size == 2)
		asm volatile("movw (%1), %w0" : "+r"(v) : "r"(addr) : "memory");
	else if (size == 4)
		asm volatile("movl (%1), %k0" : "+r"(v) : "r"(addr) : "memory");
	else
		asm volatile("movq (%1), %0" : "+r"(v) : "r"(addr) : "memory");
	return v;
}

static void mmio_write(u64 addr, u32 size, u64 v)
{
	if (size == 1)
		asm volatile("movb %b0, (%1)" : : "q"(v), "r"(addr) : "memory");
	else if (size == 2)
		asm volatile("movw %w0, (%1)" : : "r"(v), "r"(addr) : "memory");
	else if (size == 4)
		asm volatile("movl %k0, (%1)" : : "r"(v), "r"(addr) : "memory");
	else
		asm volatile("movq %0, (%1)" : : "r"(v), "r"(addr) : "memory");
}

struct mmio_job {
	struct io_tally t;
	u64 addrs[5];
	u32 nr;
};

static u64 mmio_storm(void *arg)
{
	struct mmio_job *j = arg;

	for (u32 i = 0; i < MMIO_STORM; i++) {
		u64 addr = j->addrs[i % j->nr];
		u32 size = 1u << ((i / j->nr) % 4);
		u64 ones = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;

		if (i % 8 == 7)
			mmio_write(addr, size, 0x0123456789abcdefull * i);
		io_tally(&j->t, addr, size, mmio_read(addr, size), ones);
	}
	return 0;
}

/* KVM splits an access at the page boundary: each side answers its half. */
static u64 mmio_straddle(void *arg)
{
	u64 addr = MVM_MMIO_NULL + HOSTILE_PAGE - 4;

	(void)arg;
	mmio_write(addr, 8, ~0ull);
	return mmio_read(addr, 8);
}

static void mmio(void)
{
	struct mmio_job j = { .addrs = { 0xc0001000ull, 0xe0000000ull, 0xfed00000ull,
					 0xfffff000ull }, .nr = 4 };
	u64 v;

	/* The first byte past RAM, unless RAM ends where the null page starts. */
	if (hostile_ram_end() != MVM_MMIO_NULL)
		j.addrs[j.nr++] = hostile_ram_end();
	run_user(mmio_storm, &j, RUN_USER_IRQS_OFF);
	io_report(&j.t, "MMIO storm: 2048 reads (+ writes) of unclaimed addresses read all ones");
	v = run_user(mmio_straddle, NULL, RUN_USER_IRQS_OFF);
	report_why(v == 0xffffffff00000000ull,
		   "MMIO qword across the null page and an unclaimed page: 0s, then ones",
		   "read 0x%lx", v);
}

void hostile_io(void)
{
	ports();
	mmio();
}
