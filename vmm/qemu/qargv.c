// SPDX-License-Identifier: MIT
/* QEMU's command line, as kvm-unit-tests builds it, into minivmm's: see qargv.h. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/cpufeat.h"
#include "vmm/errmsg.h"
#include "vmm/options.h"
#include "vmm/qemu/qargv.h"

#define fail(err, errlen, ...) (errmsg(err, errlen, __VA_ARGS__), QARGV_ERROR)

/* Everything the options say, before minivmm's argv is built from it. */
struct qopts {
	const char *kernel, *initrd, *append;
	unsigned long long mem;		/* bytes; 0: minivmm's default */
	bool pc_testdev, hyperv, no_pit;
	bool kvm_synic_ok;	/* qargv_host: KVM can serve its own SynIC */
	bool hv_kvm_synic;	/* a flag asked for the SynIC, and KVM has one: --hv-impl kvm --hv-synic */
	char hv_said[48];	/* the hv flag the one warning names: the first, or the one taking KVM's */
};

static int add(struct qargv_run *run, char *arg)
{
	if (run->argc >= QARGV_MAX_ARGS)
		return -1;
	run->argv[run->argc++] = arg;
	run->argv[run->argc] = NULL;
	return 0;
}

static void warn(struct qargv_run *run, const char *fmt, const char *what)
{
	if (run->nr_warn < QARGV_MAX_WARN)
		snprintf(run->warn[run->nr_warn++], sizeof(run->warn[0]), fmt, what);
}

/* "-smp 4", "-smp cpus=4", "-smp 4,maxcpus=4": a count; topology is refused. */
static enum qargv_result parse_smp(const char *v, struct qargv_run *run, char *err, size_t errlen)
{
	char *buf = run->cpus;
	const char *n = !strncmp(v, "cpus=", 5) ? v + 5 : v;
	size_t len = strcspn(n, ",");
	const char *rest = n + len;

	if (!len || len >= sizeof(run->cpus) || strspn(n, "0123456789") != len)
		return fail(err, errlen, "-smp '%s': need a vCPU count (e.g. -smp 4)", v);
	memcpy(buf, n, len);
	buf[len] = '\0';
	if (*rest && (strncmp(rest, ",maxcpus=", 9) || strcmp(rest + 9, buf)))
		return fail(err, errlen, "-smp '%s': minivmm has no CPU topology or hotplug; give the count alone", v);
	return QARGV_RUN;
}

/*
 * "-m 256", "-m 2048M", "-m 4g", "-m size=1G": minivmm's --mem sizes, except
 * that a bare number is MiB, as in QEMU (for --mem it is bytes).
 */
static enum qargv_result parse_mem(const char *v, struct qopts *o, char *err, size_t errlen)
{
	const char *n = !strncmp(v, "size=", 5) ? v + 5 : v;
	bool mib = *n && strspn(n, "0123456789") == strlen(n);
	uint64_t size;

	if (options_parse_size(n, &size) || (mib && size > (UINT64_MAX >> 20)))
		return fail(err, errlen, "-m '%s': need a size (e.g. -m 256, -m 2G); minivmm has no memory hotplug", v);
	o->mem = mib ? size << 20 : size;
	return QARGV_RUN;
}

/* hv_synic, hv-stimer, hv_stimer_direct=on ...: a flag only KVM's SynIC can meet. */
static bool hv_synic_flag(const char *p)
{
	static const char *const names[] = { "synic", "stimer", "stimer_direct", "stimer-direct" };
	size_t len = strcspn(p + 3, "=");

	if (p[3 + len] && strcmp(p + 3 + len, "=on"))
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !strncmp(p + 3, names[i], len))
			return true;
	return false;
}

/*
 * An hv flag. hv_passthrough (all of KVM's Hyper-V) and the SynIC flags get
 * KVM's Hyper-V with its SynIC where this KVM has one (--hv-impl kvm
 * --hv-synic); otherwise hv_passthrough, like every other hv flag, gets
 * minivmm's own layer (--hyperv), and a SynIC flag is refused.
 */
static enum qargv_result hv_flag(const char *p, struct qopts *o, char *err, size_t errlen)
{
	bool synic = hv_synic_flag(p), pass = !strcmp(p + 3, "passthrough") ||
					      !strcmp(p + 3, "passthrough=on");

	if (synic && !o->kvm_synic_ok)
		return fail(err, errlen, "-cpu ...,%s: minivmm's own Hyper-V layer has no SynIC or synthetic timers, and this KVM has no in-kernel SynIC (KVM_CAP_HYPERV and KVM_CAP_HYPERV_SYNIC2)", p);
	/* build() warns once, naming the flag that decided which layer serves. */
	if ((synic || pass) && o->kvm_synic_ok && !o->hv_kvm_synic) {
		o->hv_kvm_synic = true;
		snprintf(o->hv_said, sizeof(o->hv_said), "%s", p);
	} else if (!o->hyperv) {
		snprintf(o->hv_said, sizeof(o->hv_said), "%s", p);
	}
	o->hyperv = true;
	return QARGV_RUN;
}

/* A -cpu property other than a feature flag: what it means here. */
static enum qargv_result cpu_property(const char *p, struct qopts *o, struct qargv_run *run,
				      char *err, size_t errlen)
{
	if (!strncmp(p, "hv_", 3) || !strncmp(p, "hv-", 3))
		return hv_flag(p, o, err, errlen);
	/* --cpu-vendor's own rule judges the string; the message names QEMU's form. */
	if (!strncmp(p, "vendor=", 7)) {
		if (cpufeat_parse_vendor(p + 7, run->vendor, err, errlen))
			return fail(err, errlen, "-cpu ...,%s: a vendor is 12 printable characters (GenuineIntel, AuthenticAMD)", p);
		return QARGV_RUN;
	}
	/* What minivmm does anyway: the host's physical address width, every feature KVM has. */
	if (!strcmp(p, "host-phys-bits") || !strcmp(p, "host-phys-bits=on") ||
	    !strcmp(p, "migratable=no") || !strcmp(p, "migratable=off") ||
	    !strcmp(p, "check") || !strcmp(p, "enforce"))
		return QARGV_RUN;
	return fail(err, errlen, "-cpu property '%s': minivmm offers the host's CPUID with features added or removed (+flag, -flag), nothing else", p);
}

/* "+flag", "-flag", "flag=on" or "flag=off": a -cpu feature flag. */
static bool is_cpu_flag(const char *p)
{
	const char *eq = strchr(p, '=');

	if (eq)
		return eq > p && (!strcmp(eq, "=on") || !strcmp(eq, "=off"));
	return (p[0] == '+' || p[0] == '-') && p[1];
}

/* One feature flag of -cpu (is_cpu_flag()), appended for --cpu-features. */
static enum qargv_result cpu_flag(const char *p, struct qargv_run *run, char *err, size_t errlen)
{
	char one[64];
	size_t used = strlen(run->features);
	const char *eq = strchr(p, '=');

	if (eq)
		snprintf(one, sizeof(one), "%c%.*s", eq[2] == 'n' ? '+' : '-', (int)(eq - p), p);
	else
		snprintf(one, sizeof(one), "%s", p);
	if (used + strlen(one) + 2 > sizeof(run->features))
		return fail(err, errlen, "-cpu: too many feature flags");
	snprintf(run->features + used, sizeof(run->features) - used, "%s%s", used ? "," : "", one);
	return QARGV_RUN;
}

/*
 * "-cpu MODEL[,+flag,-flag,prop=value...]": host and max are what minivmm
 * shows (KVM's CPUID); any other model is taken as host, with a warning.
 */
static enum qargv_result parse_cpu(const char *v, struct qopts *o, struct qargv_run *run,
				   char *err, size_t errlen)
{
	char buf[512], *tok, *save = NULL;
	bool first = true;

	if (strlen(v) >= sizeof(buf) || !*v)
		return fail(err, errlen, "-cpu '%s': need a model (host, max) and flags", v);
	strcpy(buf, v);
	run->features[0] = run->vendor[0] = '\0';	/* the last -cpu counts, as in QEMU */
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), first = false) {
		enum qargv_result r;

		if (first) {
			if (strcmp(tok, "host") && strcmp(tok, "max"))
				warn(run, "-cpu %s: minivmm shows the host's CPUID (as -cpu host), not this model's", tok);
			continue;
		}
		/* hv_x=on is an hv flag, not a CPUID feature to add. */
		r = is_cpu_flag(tok) && strncmp(tok, "hv_", 3) && strncmp(tok, "hv-", 3) ?
			    cpu_flag(tok, run, err, errlen) : cpu_property(tok, o, run, err, errlen);
		if (r != QARGV_RUN)
			return r;
	}
	return QARGV_RUN;
}

/* "-machine [pc,]accel=kvm,pit=off": the pc machine on KVM; no other keys. */
static enum qargv_result parse_machine(const char *v, struct qopts *o, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;

	if (strlen(v) >= sizeof(buf))
		return fail(err, errlen, "-machine: too long");
	strcpy(buf, v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "pit=off")) {
			o->no_pit = true;
			continue;
		}
		if (!strcmp(tok, "accel=kvm") || !strcmp(tok, "pit=on") || !strcmp(tok, "pc") ||
		    !strcmp(tok, "type=pc"))
			continue;
		if (!strncmp(tok, "accel=", 6))
			return fail(err, errlen, "-machine %s: minivmm runs on KVM only", tok);
		return fail(err, errlen, "-machine '%s': minivmm is one pc-like machine (accel=kvm and pit=on|off are all it takes)", tok);
	}
	return QARGV_RUN;
}

/* "-device pc-testdev", "-device isa-debug-exit,iobase=0xf4,iosize=0x4": nothing else. */
static enum qargv_result parse_device(const char *v, struct qopts *o, char *err, size_t errlen)
{
	if (!strcmp(v, "help") || !strcmp(v, "?"))
		return QARGV_DEVICES;
	if (!strcmp(v, "pc-testdev")) {
		o->pc_testdev = true;
		return QARGV_RUN;
	}
	/* The exit port is always there and always QEMU's convention: --qemu-exit. */
	if (!strcmp(v, "isa-debug-exit") || !strcmp(v, "isa-debug-exit,iobase=0xf4,iosize=0x4") ||
	    !strcmp(v, "isa-debug-exit,iobase=0xf4,iosize=4"))
		return QARGV_RUN;
	return fail(err, errlen, "-device '%s': minivmm has no such device (it has pc-testdev and isa-debug-exit,iobase=0xf4,iosize=0x4)", v);
}

/* Options with a value that minivmm has nothing to do with, but whose value is harmless. */
static enum qargv_result parse_fixed(const char *opt, const char *v, char *err, size_t errlen)
{
	static const struct { const char *opt, *value; } ok[] = {
		{ "serial", "stdio" }, { "display", "none" }, { "accel", "kvm" },
		{ "global", "kvm-pit.lost_tick_policy=discard" },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(opt, ok[i].opt)) {
			if (!strcmp(v, ok[i].value))
				return QARGV_RUN;
			return fail(err, errlen, "-%s '%s': minivmm-qemu takes only -%s %s", opt, v,
				    opt, ok[i].value);
		}
	return fail(err, errlen, "-%s %s: not something minivmm can do", opt, v);
}

static enum qargv_result parse_valued(const char *opt, const char *v, struct qopts *o,
				      struct qargv_run *run, char *err, size_t errlen)
{
	if (!strcmp(opt, "kernel"))
		o->kernel = v;
	else if (!strcmp(opt, "initrd"))
		o->initrd = v;
	else if (!strcmp(opt, "append"))
		o->append = v;
	else if (!strcmp(opt, "smp"))
		return parse_smp(v, run, err, errlen);
	else if (!strcmp(opt, "m"))
		return parse_mem(v, o, err, errlen);
	else if (!strcmp(opt, "cpu"))
		return parse_cpu(v, o, run, err, errlen);
	else if (!strcmp(opt, "machine") || !strcmp(opt, "M"))
		return parse_machine(v, o, err, errlen);
	else if (!strcmp(opt, "device"))
		return parse_device(v, o, err, errlen);
	else
		return parse_fixed(opt, v, err, errlen);
	return QARGV_RUN;
}

static bool takes_value(const char *opt)
{
	static const char *const valued[] = {
		"kernel", "initrd", "append", "smp", "m", "cpu", "machine", "M", "device",
		"serial", "display", "accel", "global", "chardev", "mon", "incoming", "drive",
		"netdev", "name", "overcommit", "object", "bios", "L",
	};

	for (size_t i = 0; i < sizeof(valued) / sizeof(valued[0]); i++)
		if (!strcmp(opt, valued[i]))
			return true;
	return false;
}

static enum qargv_result parse_flag(const char *opt, char *err, size_t errlen)
{
	if (!strcmp(opt, "h") || !strcmp(opt, "help"))
		return QARGV_HELP;
	if (!strcmp(opt, "version"))
		return QARGV_VERSION;
	/* minivmm never reboots (a reset exits 4), has no default devices to drop, is KVM. */
	if (!strcmp(opt, "no-reboot") || !strcmp(opt, "nodefaults") || !strcmp(opt, "enable-kvm") ||
	    !strcmp(opt, "nographic") || !strcmp(opt, "no-user-config"))
		return QARGV_RUN;
	return fail(err, errlen, "-%s: not a QEMU option minivmm-qemu takes (see minivmm-qemu --help)", opt);
}

static enum qargv_result parse_args(int argc, char **argv, struct qopts *o, struct qargv_run *run,
				    char *err, size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i];
		enum qargv_result r;

		if (opt[0] != '-' || !opt[1])
			return fail(err, errlen, "'%s': minivmm-qemu takes no disk images (only -kernel)", opt);
		opt += opt[1] == '-' ? 2 : 1;	/* QEMU takes -opt and --opt alike */
		if (!takes_value(opt)) {
			r = parse_flag(opt, err, errlen);
		} else if (i + 1 >= argc) {
			return fail(err, errlen, "-%s needs a value", opt);
		} else {
			r = parse_valued(opt, argv[++i], o, run, err, errlen);
		}
		if (r != QARGV_RUN)
			return r;
	}
	return QARGV_RUN;
}

static enum qargv_result build(struct qopts *o, struct qargv_run *run, char *err, size_t errlen)
{
	static char s_qemu_exit[] = "--qemu-exit", s_cpus[] = "--cpus", s_mem[] = "--mem",
		    s_initrd[] = "--initrd", s_testdev[] = "--pc-testdev", s_hyperv[] = "--hyperv",
		    s_features[] = "--cpu-features", s_no_pit[] = "--no-pit", s_lax[] = "--cpu-features-lax", s_vendor[] = "--cpu-vendor", s_dashes[] = "--", s_minivmm[] = "minivmm",
		    s_hv_impl[] = "--hv-impl", s_kvm[] = "kvm", s_synic[] = "--hv-synic";
	int bad = 0;

	if (!o->kernel)
		return fail(err, errlen, "no -kernel: minivmm-qemu boots a kernel given with -kernel FILE");
	run->kernel = o->kernel;
	bad |= add(run, s_minivmm) | add(run, s_qemu_exit);
	if (run->cpus[0])
		bad |= add(run, s_cpus) | add(run, run->cpus);
	if (o->mem) {
		snprintf(run->mem, sizeof(run->mem), "%llu", o->mem);
		bad |= add(run, s_mem) | add(run, run->mem);
	}
	if (o->initrd)
		bad |= add(run, s_initrd) | add(run, (char *)o->initrd);
	if (o->pc_testdev)
		bad |= add(run, s_testdev);
	if (o->no_pit)
		bad |= add(run, s_no_pit);
	if (o->hyperv)
		bad |= add(run, s_hyperv);
	if (o->hv_kvm_synic) {
		bad |= add(run, s_hv_impl) | add(run, s_kvm) | add(run, s_synic);
		warn(run, "-cpu ...,%s: the guest gets KVM's own Hyper-V with its SynIC and synthetic timers (--hv-impl kvm --hv-synic)", o->hv_said);
	} else if (o->hyperv) {
		warn(run, "-cpu ...,%s: the guest gets minivmm's own Hyper-V layer (--hyperv), whatever the hv flags ask", o->hv_said);
	}
	/* QEMU warns of a '+' flag the host lacks and runs on: so does minivmm, lax. */
	if (run->features[0])
		bad |= add(run, s_features) | add(run, run->features) | add(run, s_lax);
	if (run->vendor[0])
		bad |= add(run, s_vendor) | add(run, run->vendor);
	bad |= add(run, (char *)o->kernel);
	if (o->append && *o->append)
		bad |= add(run, s_dashes) | add(run, (char *)o->append);
	return bad ? fail(err, errlen, "internal: more than %d minivmm arguments", QARGV_MAX_ARGS)
		   : QARGV_RUN;
}

enum qargv_result qargv_translate(int argc, char **argv, const struct qargv_host *host,
				  struct qargv_run *run, char *err, size_t errlen)
{
	struct qopts o = { .kvm_synic_ok = host->kvm_synic };
	enum qargv_result r;

	memset(run, 0, sizeof(*run));
	err[0] = '\0';
	r = parse_args(argc, argv, &o, run, err, errlen);
	return r == QARGV_RUN ? build(&o, run, err, errlen) : r;
}

const char *qargv_device_list(void)
{
	return "Misc devices:\n"
	       "name \"isa-debug-exit\", bus ISA (always there, at 0xf4: exit (code << 1) | 1)\n"
	       "name \"pc-testdev\", bus ISA\n";
}
