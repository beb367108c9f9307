// SPDX-License-Identifier: MIT
/* Parse and validate minivmm's command line before anything touches KVM. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv/tlfs.h"
#include "vmm/errmsg.h"
#include "vmm/linux_cmdline.h"
#include "vmm/options.h"
#include "vmm/payload.h"
#include "vmm/version.h"

enum {
	OPT_HELP = 'h',
	OPT_CPUS = 'c',
	OPT_MEM = 'm',
	OPT_TIMEOUT = 't',
	OPT_STATS = 's',
	OPT_JSON = 'j',
	OPT_ITERS = 'i',
	OPT_VERSION = 0x100,
	OPT_HYPERV,
	OPT_NO_HYPERV,
	OPT_NO_HV_XMM,
	OPT_HV_XMM_PATH,
	OPT_PIN,
	OPT_KVM,
	OPT_NO_SANDBOX,
	OPT_PV,
	OPT_INITRD,
	OPT_HV_HINTS,
	OPT_HV_VP_BASE,
	OPT_PREEMPT,
	OPT_HV_IMPL,
	OPT_HV_SYNIC,
	OPT_QEMU_EXIT,
	OPT_PC_TESTDEV,
	OPT_CPU_FEATURES,
	OPT_CPU_FEATURES_LAX,
	OPT_CPU_VENDOR,
	OPT_NO_PIT,
};

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "iters", required_argument, NULL, OPT_ITERS },
	{ "hyperv", no_argument, NULL, OPT_HYPERV },
	{ "no-hyperv", no_argument, NULL, OPT_NO_HYPERV },
	{ "no-hv-xmm", no_argument, NULL, OPT_NO_HV_XMM },
	{ "hv-xmm-path", required_argument, NULL, OPT_HV_XMM_PATH },
	{ "hv-hints", required_argument, NULL, OPT_HV_HINTS },
	{ "hv-vp-base", required_argument, NULL, OPT_HV_VP_BASE },
	{ "hv-impl", required_argument, NULL, OPT_HV_IMPL },
	{ "hv-synic", no_argument, NULL, OPT_HV_SYNIC },
	{ "preempt", required_argument, NULL, OPT_PREEMPT },
	{ "pin", required_argument, NULL, OPT_PIN },
	{ "kvm", required_argument, NULL, OPT_KVM },
	{ "no-sandbox", no_argument, NULL, OPT_NO_SANDBOX },
	{ "pv", required_argument, NULL, OPT_PV },
	{ "initrd", required_argument, NULL, OPT_INITRD },
	{ "qemu-exit", no_argument, NULL, OPT_QEMU_EXIT },
	{ "pc-testdev", no_argument, NULL, OPT_PC_TESTDEV },
	{ "cpu-features", required_argument, NULL, OPT_CPU_FEATURES },
	{ "cpu-features-lax", no_argument, NULL, OPT_CPU_FEATURES_LAX },
	{ "cpu-vendor", required_argument, NULL, OPT_CPU_VENDOR },
	{ "no-pit", no_argument, NULL, OPT_NO_PIT },
	{ NULL, 0, NULL, 0 },
};

void options_usage(FILE *f)
{
	fprintf(f,
"usage: minivmm [options] [KERNEL] [-- ARGS...]\n"
"\n"
"Boot KERNEL on /dev/kvm and exit with the status it reports. KERNEL is an\n"
"ELF64 payload (minivmm's own ABI, e.g. guest.elf), an ELF32 Multiboot v1\n"
"kernel (e.g. kvm-unit-tests' vmexit.flat; ARGS become its command line) or a\n"
"Linux kernel: a bzImage (xz, zstd or gzip payload, unpacked on the host) or an\n"
"ELF vmlinux with a PVH entry note. A Linux kernel's command line is minivmm's\n"
"default, then ARGS; the default is\n"
"%s\n"
"Without KERNEL (`minivmm`, `minivmm -- ipi`) minivmm boots its own payload:\n"
"$" PAYLOAD_ENV " if set, else " PAYLOAD_NAME " next to the minivmm executable (the\n"
"build tree), else the installed one, %s.\n"
"\n"
"  -c, --cpus N          vCPUs (default 1; up to what KVM allows: its\n"
"                        KVM_CAP_MAX_VCPUS and KVM_CAP_MAX_VCPU_ID; more than\n"
"                        host CPUs is allowed: overcommit)\n"
"  -m, --mem SIZE        guest RAM, bytes or with K/M/G suffix (default 64M,\n"
"                        plus 64K a vCPU past 64; 256M for Multiboot and\n"
"                        Linux kernels; %lluM..%lluM, a multiple of 4K)\n"
"  -t, --timeout SECS    watchdog: stop the run after SECS seconds, dump every\n"
"                        vCPU's registers and stack (just RIP past 4 vCPUs)\n"
"                        and exit 3 (default: none)\n"
"  -s, --stats           print per-vCPU exit counts and VMM-side times at exit\n"
"  -j, --json FILE       write every result record and statistic to FILE\n"
"  -i, --iters N         iterations per benchmark case (default: per suite)\n"
"      --initrd FILE     Linux kernels: the initramfs (the first PVH module);\n"
"                        Multiboot kernels: the one module (kvm-unit-tests\n"
"                        reads its environment from it)\n"
"      --qemu-exit       the exit port's code C ends the run with (C << 1) | 1,\n"
"                        as QEMU's isa-debug-exit does (1 = passed: what\n"
"                        kvm-unit-tests' runner expects; minivmm-qemu sets it)\n"
"      --pc-testdev      Multiboot kernels: QEMU's pc-testdev (scratch ports\n"
"                        0xe0 and 0xe8, page flush at 0xe4, ISA IRQ lines at\n"
"                        0x2000-0x2017, 64 KiB of MMIO scratch at 0xff000000)\n"
"      --no-pit          Multiboot kernels: no PIT (default: KVM's, as firmware\n"
"                        leaves it: channel 0 at 18.2 Hz; QEMU's -machine pit=off)\n"
"      --cpu-features L  CPUID features by QEMU's names, each required (+, the\n"
"                        run is refused where KVM lacks it) or removed (-):\n"
"                        e.g. +x2apic,-pcid,-invpcid\n"
"      --cpu-features-lax\n"
"                        a '+' feature KVM lacks is a warning and the guest\n"
"                        runs without it, as QEMU's -cpu does\n"
"      --cpu-vendor V    CPUID's vendor string (12 characters: GenuineIntel,\n"
"                        AuthenticAMD), so KVM emulates that vendor where it\n"
"                        does (SYSENTER MSRs, SYSCALL); the CPU stays the host's\n"
"      --pv P            the hypervisor the guest sees: 'hyperv' (Hyper-V's\n"
"                        leaves only, minivmm's Hyper-V layer; Linux's default),\n"
"                        'kvm' (KVM's leaves at 0x40000000: kvmclock, steal time;\n"
"                        Multiboot's default), 'hyperv+kvm' (Hyper-V at\n"
"                        0x40000000, KVM at 0x40000100; the payload's default)\n"
"                        or 'none' (no hypervisor leaves)\n"
"      --hyperv          the same as --pv hyperv+kvm\n"
"      --no-hyperv       the same as --pv kvm (no Hyper-V CPUID leaves or MSRs)\n"
"      --no-hv-xmm       do not advertise XMM-fast hypercall input\n"
"      --hv-xmm-path P   how XMM0-5 reach the VMM: 'spill' (the hypercall page\n"
"                        stores them), 'ioctl' (KVM_GET_FPU) or 'auto' (default:\n"
"                        time both at start on this host, take the cheaper)\n"
"      --hv-hints LIST   the Hyper-V recommendations shown: a comma list of\n"
"                        'flush' (remote TLB flush), 'ipi' (cluster IPI), 'ex'\n"
"                        (Ex processor masks), or 'none' (default:\n"
"                        flush,ipi,ex); a guest that heeds them (Linux) takes\n"
"                        its native path for a hint left out\n"
"      --hv-vp-base N    Hyper-V VP indexes start at N, a multiple of 64\n"
"                        (default 0): vCPU i is VP N+i; 64 makes Linux take\n"
"                        the Ex flush and IPI calls at any vCPU count\n"
"                        (kernels only, not the payload)\n"
"      --hv-impl I       who serves the Hyper-V calls and MSRs: 'minivmm' (its\n"
"                        own layer in user space, the default) or 'kvm' (KVM's\n"
"                        in-kernel Hyper-V, where KVM has KVM_CAP_HYPERV; the\n"
"                        guest sees the same CPUID bits, less any KVM lacks)\n"
"      --hv-synic        also show the SynIC and synthetic timers (direct mode\n"
"                        included), served by KVM's Hyper-V: needs --hv-impl kvm\n"
"                        and KVM_CAP_HYPERV_SYNIC2; minivmm's own layer has none\n"
"      --preempt V:H:E[:hidden]\n"
"                        every E, hold each vCPU of the list V out of guest\n"
"                        mode for H (e.g. 1-3:500us:5ms; us, ms or s), with\n"
"                        'preempted' published in its steal-time record\n"
"                        (':hidden': not published, the control run)\n"
"      --kvm PATH        the KVM device (default /dev/kvm)\n"
"      --pin LIST        pin vCPU threads to host CPUs, e.g. 0,1 or 0-1 or 0,0,0,0;\n"
"                        vCPU i gets entry i mod length\n"
"      --no-sandbox      no seccomp filters, no no_new_privs (for debugging;\n"
"                        default: each thread sandboxed once setup is done)\n"
"  -h, --help            this text\n"
"      --version         print the version\n"
"\n"
"Exit status: the kernel's (0 = its tests passed; a Linux guest's poweroff is 0);\n"
"2 = bad option, file or host; 3 = guest crashed (triple fault, emulation\n"
"failure, unhandled exit, a Linux panic) or timed out; 4 = the guest reset\n"
"itself (a Linux reboot); 159 = the sandbox stopped a forbidden system call\n"
"(stderr names it).\n"
"A Multiboot kernel's `outl` to port 0xf4 is its status as is, or with\n"
"--qemu-exit (code << 1) | 1, as under QEMU's isa-debug-exit (1 = passed).\n",
		LINUX_CMDLINE_DEFAULT, payload_installed_path(),
		(unsigned long long)(MVM_RAM_MIN >> 20),
		(unsigned long long)(MVM_RAM_MAX >> 20));
}

/* Every parse error: the reason in err, OPTIONS_ERROR back. */
#define fail(err, errlen, ...) (errmsg(err, errlen, __VA_ARGS__), OPTIONS_ERROR)

/* "64M", "1G", "4096": bytes; rejects junk, overflow and zero. */
int options_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (*end == 'i' && shift)	/* accept "MiB"-ish "Mi" */
		end++;
	if (*end == 'B' && shift)
		end++;
	if (*end || v == 0 || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || *end || *out > max)
		return -1;
	return 0;
}

/* "0,1", "0-3", "1,1,1": a list of host CPUs, ranges expanded in order. */
int options_parse_cpulist(const char *s, int *cpus, unsigned int max, unsigned int *n)
{
	char buf[1024], *tok, *save = NULL;

	if (strlen(s) >= sizeof(buf) || !*s)
		return -1;
	strcpy(buf, s);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long lo, hi;
		char *dash = strchr(tok, '-');

		if (dash)
			*dash = '\0';
		if (parse_uint(tok, 4095, &lo))
			return -1;
		hi = lo;
		if (dash && (parse_uint(dash + 1, 4095, &hi) || hi < lo))
			return -1;
		for (; lo <= hi; lo++) {
			if (*n >= max)
				return -1;
			cpus[(*n)++] = (int)lo;
		}
	}
	return *n ? 0 : -1;
}

/* Join payload args with single spaces; refuse rather than truncate. */
static int join_cmdline(int argc, char **argv, char *out, size_t outlen)
{
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < argc; i++) {
		size_t len = strlen(argv[i]);

		if (used + len + (i ? 1 : 0) + 1 > outlen)
			return -1;
		if (i)
			out[used++] = ' ';
		memcpy(out + used, argv[i], len + 1);
		used += len;
	}
	return 0;
}

static void config_defaults(struct vm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_vcpus = 1;
	cfg->mem_size = VMM_DEFAULT_MEM;
	cfg->kvm_path = "/dev/kvm";
	cfg->hv_xmm = true;
	cfg->hv_hints = VMM_HV_HINTS_ALL;
	cfg->xmm_path = XMM_PATH_AUTO;
	cfg->sandbox = true;
}

int options_pin_cpu(const struct vm_config *cfg, unsigned int index)
{
	return cfg->nr_pin ? cfg->pin[index % cfg->nr_pin] : -1;
}

uint64_t options_default_mem(unsigned int nr_vcpus)
{
	uint64_t mem = VMM_DEFAULT_MEM;

	if (nr_vcpus > 64)
		mem += (uint64_t)(nr_vcpus - 64) * VMM_DEFAULT_MEM_PER_VCPU;
	/* A count no KVM takes is refused later, naming KVM's limit: keep RAM legal. */
	return mem < MVM_RAM_MAX ? mem : MVM_RAM_MAX;
}

static enum options_result parse_mem(const char *arg, struct vm_config *cfg,
				     char *err, size_t errlen)
{
	if (options_parse_size(arg, &cfg->mem_size))
		return fail(err, errlen, "--mem '%s': not a size (e.g. 64M, 1G, 16777216)", arg);
	if (cfg->mem_size % MVM_PAGE_SIZE)
		return fail(err, errlen, "--mem %s: not a multiple of 4 KiB", arg);
	if (cfg->mem_size < MVM_RAM_MIN)
		return fail(err, errlen, "--mem %s: below the minimum of %llu MiB", arg,
			    (unsigned long long)(MVM_RAM_MIN >> 20));
	if (cfg->mem_size > MVM_RAM_MAX)
		return fail(err, errlen,
			    "--mem %s: above the maximum of %llu MiB (RAM must end below the MMIO window at 0x%llx)",
			    arg, (unsigned long long)(MVM_RAM_MAX >> 20),
			    (unsigned long long)MVM_RAM_MAX);
	return OPTIONS_OK;
}

static enum options_result parse_pin(const char *arg, struct vm_config *cfg,
				     char *err, size_t errlen)
{
	if (options_parse_cpulist(arg, cfg->pin, VMM_PIN_MAX, &cfg->nr_pin)) {
		cfg->nr_pin = 0;
		return fail(err, errlen, "--pin '%s': not a CPU list of at most %u entries (e.g. 0,1 or 0-3 or 0,0,0)",
			    arg, VMM_PIN_MAX);
	}
	return OPTIONS_OK;
}

static const char *const pv_names[] = {
	[PV_DEFAULT] = "default",
	[PV_HYPERV_KVM] = "hyperv+kvm",
	[PV_HYPERV] = "hyperv",
	[PV_KVM] = "kvm",
	[PV_NONE] = "none",
};

const char *options_hv_impl_name(enum hv_impl impl)
{
	return impl == HV_IMPL_KVM ? "kvm" : "minivmm";
}

const char *options_pv_name(enum pv_personality pv)
{
	return (unsigned int)pv < sizeof(pv_names) / sizeof(pv_names[0]) ? pv_names[pv] : "?";
}

/* --pv, --hyperv and --no-hyperv name one choice: saying two different ones is an error. */
static enum options_result set_pv(struct vm_config *cfg, enum pv_personality pv,
				  const char *opt, char *err, size_t errlen)
{
	if (cfg->pv != PV_DEFAULT && cfg->pv != pv)
		return fail(err, errlen, "%s asks for personality '%s', but '%s' was already given",
			    opt, options_pv_name(pv), options_pv_name(cfg->pv));
	cfg->pv = pv;
	return OPTIONS_OK;
}

static enum options_result parse_pv(const char *arg, struct vm_config *cfg,
				    char *err, size_t errlen)
{
	for (unsigned int pv = PV_HYPERV_KVM; pv <= PV_NONE; pv++)
		if (!strcmp(arg, pv_names[pv]))
			return set_pv(cfg, (enum pv_personality)pv, "--pv", err, errlen);
	return fail(err, errlen, "--pv '%s': need 'hyperv', 'kvm', 'hyperv+kvm' or 'none'", arg);
}

static const struct {
	const char *name;
	unsigned int bit;
} hint_names[] = {
	{ "flush", VMM_HV_HINT_FLUSH },
	{ "ipi", VMM_HV_HINT_IPI },
	{ "ex", VMM_HV_HINT_EX },
};

void options_hints_name(unsigned int hints, char *out, size_t outlen)
{
	size_t used = 0;

	snprintf(out, outlen, "none");
	for (unsigned int i = 0; i < sizeof(hint_names) / sizeof(hint_names[0]); i++)
		if ((hints & hint_names[i].bit) && used < outlen)
			used += (size_t)snprintf(out + used, outlen - used, "%s%s",
						 used ? "," : "", hint_names[i].name);
}

/* "flush,ipi", "ex", "none": each name once; "none" alone. */
static enum options_result parse_hints(const char *arg, struct vm_config *cfg,
				       char *err, size_t errlen)
{
	char buf[64], *tok, *save = NULL;
	unsigned int hints = 0;

	if (!strcmp(arg, "none")) {
		cfg->hv_hints = 0;
		cfg->hv_hints_given = true;
		return OPTIONS_OK;
	}
	if (!*arg || strlen(arg) >= sizeof(buf))
		return fail(err, errlen, "--hv-hints '%s': need a comma list of flush, ipi, ex, or 'none'",
			    arg);
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int i, n = sizeof(hint_names) / sizeof(hint_names[0]);

		for (i = 0; i < n && strcmp(tok, hint_names[i].name); i++)
			;
		if (i == n)
			return fail(err, errlen, "--hv-hints '%s': unknown hint '%s' (flush, ipi, ex, or 'none' alone)",
				    arg, tok);
		if (hints & hint_names[i].bit)
			return fail(err, errlen, "--hv-hints '%s': '%s' named twice", arg, tok);
		hints |= hint_names[i].bit;
	}
	/* strtok_r skips empty fields: ",flush" or "flush,,ipi" must not pass as a list. */
	if (arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
		return fail(err, errlen, "--hv-hints '%s': an empty name in the list", arg);
	cfg->hv_hints = hints;
	cfg->hv_hints_given = true;
	return OPTIONS_OK;
}

/* "500us", "5ms", "1s": microseconds into *us; -1 for anything else or 0. */
static int parse_duration_us(const char *s, uint64_t *us)
{
	static const struct { const char *suffix; uint64_t mul; } units[] = {
		{ "us", 1 }, { "ms", 1000 }, { "s", 1000000 },
	};
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || !v)
		return -1;
	for (unsigned int i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (v > UINT64_MAX / units[i].mul)
			return -1;
		*us = v * units[i].mul;
		return 0;
	}
	return -1;
}

#define PREEMPT_USAGE "need VCPUS:HOLD:EVERY[:hidden], e.g. 1-3:500us:5ms (durations in us, ms or s)"

static enum options_result parse_preempt(const char *arg, struct vm_config *cfg,
					 char *err, size_t errlen)
{
	static int list[VMM_PREEMPT_VCPUS_MAX];
	char buf[256], *hold, *every, *flag;
	uint64_t hold_us, every_us;
	unsigned int n;

	if (strlen(arg) >= sizeof(buf))
		return fail(err, errlen, "--preempt: too long; " PREEMPT_USAGE);
	strcpy(buf, arg);
	hold = strchr(buf, ':');
	every = hold ? strchr(hold + 1, ':') : NULL;
	flag = every ? strchr(every + 1, ':') : NULL;
	if (!every || (flag && (strcmp(flag, ":hidden") || strchr(flag + 1, ':'))))
		return fail(err, errlen, "--preempt '%s': " PREEMPT_USAGE, arg);
	*hold++ = '\0';
	*every++ = '\0';
	if (flag)
		*flag = '\0';
	if (options_parse_cpulist(buf, list, VMM_PREEMPT_VCPUS_MAX, &n))
		return fail(err, errlen, "--preempt '%s': '%s' is not a vCPU list (e.g. 1-3 or 1,3)",
			    arg, buf);
	if (parse_duration_us(hold, &hold_us) || hold_us > VMM_PREEMPT_HOLD_MAX_US)
		return fail(err, errlen, "--preempt '%s': hold '%s': need 1us..%us", arg, hold,
			    VMM_PREEMPT_HOLD_MAX_US / 1000000);
	if (parse_duration_us(every, &every_us) || every_us > VMM_PREEMPT_EVERY_MAX_US)
		return fail(err, errlen, "--preempt '%s': period '%s': need 1us..%us", arg, every,
			    VMM_PREEMPT_EVERY_MAX_US / 1000000);
	if (every_us <= hold_us)
		return fail(err, errlen, "--preempt '%s': the period must be longer than the hold", arg);
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int j = 0; j < i; j++)
			if (list[j] == list[i])
				return fail(err, errlen, "--preempt '%s': vCPU %d named twice", arg, list[i]);
		cfg->preempt.vcpu[i] = (uint16_t)list[i];
	}
	cfg->preempt.nr = n;
	cfg->preempt.hidden = flag != NULL;
	cfg->preempt.hold_us = (uint32_t)hold_us;
	cfg->preempt.every_us = (uint32_t)every_us;
	return OPTIONS_OK;
}

static enum options_result parse_one(int opt, const char *arg, struct vm_config *cfg,
				     char *err, size_t errlen)
{
	unsigned long long v;

	switch (opt) {
	case OPT_CPUS:
		/* Above this KVM's limits: refused at VM creation, naming the limit. */
		if (parse_uint(arg, VMM_CPUS_PARSE_MAX, &v) || v == 0)
			return fail(err, errlen, "--cpus '%s': need a whole number from 1 to %u",
				    arg, VMM_CPUS_PARSE_MAX);
		cfg->nr_vcpus = (unsigned int)v;
		return OPTIONS_OK;
	case OPT_MEM:
		cfg->mem_given = true;
		return parse_mem(arg, cfg, err, errlen);
	case OPT_TIMEOUT:
		if (parse_uint(arg, 86400, &v) || v == 0)
			return fail(err, errlen, "--timeout '%s': need seconds from 1 to 86400", arg);
		cfg->timeout_s = (unsigned int)v;
		return OPTIONS_OK;
	case OPT_ITERS:
		if (parse_uint(arg, 100000000, &v) || v == 0)
			return fail(err, errlen, "--iters '%s': need a whole number from 1 to 100000000", arg);
		cfg->iters = (unsigned int)v;
		return OPTIONS_OK;
	case OPT_STATS: cfg->stats = true; return OPTIONS_OK;
	case OPT_JSON: cfg->json_path = arg; return OPTIONS_OK;
	case OPT_HYPERV: return set_pv(cfg, PV_HYPERV_KVM, "--hyperv", err, errlen);
	case OPT_NO_HYPERV: return set_pv(cfg, PV_KVM, "--no-hyperv", err, errlen);
	case OPT_PV: return parse_pv(arg, cfg, err, errlen);
	case OPT_INITRD: cfg->initrd_path = arg; return OPTIONS_OK;
	case OPT_QEMU_EXIT: cfg->qemu_exit = true; return OPTIONS_OK;
	case OPT_PC_TESTDEV: cfg->pc_testdev = true; return OPTIONS_OK;
	case OPT_CPU_FEATURES_LAX: cfg->cpu_features_lax = true; return OPTIONS_OK;
	case OPT_NO_PIT: cfg->no_pit = true; return OPTIONS_OK;
	case OPT_CPU_VENDOR:
		return cpufeat_parse_vendor(arg, cfg->cpu_vendor, err, errlen) ? OPTIONS_ERROR : OPTIONS_OK;
	case OPT_CPU_FEATURES:
		return cpufeat_parse(arg, &cfg->cpu_features, err, errlen) ? OPTIONS_ERROR : OPTIONS_OK;
	case OPT_NO_HV_XMM: cfg->hv_xmm = false; return OPTIONS_OK;
	case OPT_HV_SYNIC: cfg->hv_synic = true; return OPTIONS_OK;
	case OPT_HV_HINTS: return parse_hints(arg, cfg, err, errlen);
	case OPT_HV_VP_BASE:
		if (parse_uint(arg, HV_MAX_VP_INDEX - 64, &v) || v % 64)
			return fail(err, errlen, "--hv-vp-base '%s': need a multiple of 64 from 0 to %u",
				    arg, HV_MAX_VP_INDEX - 64);
		cfg->hv_vp_base = (unsigned int)v;
		cfg->hv_vp_base_given = true;
		return OPTIONS_OK;
	case OPT_HV_IMPL:
		if (strcmp(arg, "minivmm") && strcmp(arg, "kvm"))
			return fail(err, errlen, "--hv-impl '%s': need 'minivmm' or 'kvm'", arg);
		cfg->hv_impl = strcmp(arg, "kvm") ? HV_IMPL_MINIVMM : HV_IMPL_KVM;
		cfg->hv_impl_given = true;
		return OPTIONS_OK;
	case OPT_PREEMPT: return parse_preempt(arg, cfg, err, errlen);
	case OPT_PIN: return parse_pin(arg, cfg, err, errlen);
	case OPT_KVM: cfg->kvm_path = arg; return OPTIONS_OK;
	case OPT_NO_SANDBOX: cfg->sandbox = false; return OPTIONS_OK;
	case OPT_HV_XMM_PATH:
		if (!strcmp(arg, "ioctl"))
			cfg->xmm_path = XMM_PATH_IOCTL;
		else if (!strcmp(arg, "spill"))
			cfg->xmm_path = XMM_PATH_SPILL;
		else if (!strcmp(arg, "auto"))
			cfg->xmm_path = XMM_PATH_AUTO;
		else
			return fail(err, errlen, "--hv-xmm-path '%s': need 'auto', 'spill' or 'ioctl'",
				    arg);
		return OPTIONS_OK;
	default:
		return fail(err, errlen, "internal: unhandled option %d", opt);
	}
}

enum options_result options_parse(int argc, char **argv, struct vm_config *cfg,
				  char *err, size_t errlen)
{
	int opt, after_last = 1;
	enum options_result r;

	config_defaults(cfg);
	err[0] = '\0';
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option, so payload args pass through. */
	while ((opt = getopt_long(argc, argv, "+:hc:m:t:sj:i:", long_opts, NULL)) != -1) {
		if (opt == OPT_HELP) {
			options_usage(stdout);
			return OPTIONS_EXIT;
		}
		if (opt == OPT_VERSION) {
			printf("minivmm %s\n", vmm_version());
			return OPTIONS_EXIT;
		}
		if (opt == '?')
			return fail(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
		if (opt == ':')
			return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		r = parse_one(opt, optarg, cfg, err, errlen);
		if (r != OPTIONS_OK)
			return r;
		after_last = optind;
	}
	/* No KERNEL (nothing left, or getopt just ate a "--"): elf_path NULL, the default payload. */
	if (optind < argc && optind == after_last)
		cfg->elf_path = argv[optind++];
	if (cfg->elf_path && optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	else if (cfg->elf_path && optind < argc)
		return fail(err, errlen, "unexpected '%s' after the payload: put payload args after '--'",
			    argv[optind]);
	if (join_cmdline(argc - optind, argv + optind, cfg->cmdline, sizeof(cfg->cmdline)))
		return fail(err, errlen, "kernel arguments exceed %d bytes", VMM_ARGS_MAX - 1);
	return OPTIONS_OK;
}
