// SPDX-License-Identifier: MIT
/* End-of-run output: the results table, --stats, and --json. */
#include <errno.h>
#include <jansson.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hv/hv.h"
#include "vmm/cpuid.h"
#include "vmm/preempt.h"
#include "vmm/fdio.h"
#include "vmm/report.h"
#include "vmm/vcpu.h"
#include "vmm/sandbox.h"
#include "vmm/version.h"

static double cyc_to_ns(const struct vm *vm, double cycles)
{
	return vm->tsc_khz ? cycles * 1e6 / (double)vm->tsc_khz : 0;
}

void report_prepare(void)
{
	/* jansson seeds its hash from /dev/urandom on first use; the sandbox would refuse that open. */
	json_object_seed(0);
}

static const char *guest_kind_name(enum image_kind kind)
{
	static const char *const names[] = {
		[IMAGE_ELF64] = "payload", [IMAGE_MULTIBOOT] = "multiboot", [IMAGE_LINUX] = "linux",
	};

	_Static_assert(sizeof(names) / sizeof(names[0]) == IMAGE_KINDS, "a name for every kind");
	return names[kind];
}

static const char *pv_layout(const struct vm *vm)
{
	switch (vm->cfg.pv) {
	case PV_HYPERV_KVM: return "Hyper-V's leaves at 0x40000000, KVM's at 0x40000100";
	case PV_HYPERV: return vm->kvm_hv.on ? "Hyper-V's leaves alone (KVM's in-kernel Hyper-V)" :
					       "Hyper-V's leaves alone (minivmm's Hyper-V layer)";
	case PV_KVM: return "KVM's leaves alone at 0x40000000";
	default: return "no hypervisor leaves";
	}
}

/* Linux under Hyper-V without TSC_INVARIANT: what it will keep time with. */
static void banner_linux_clock(const struct vm *vm, FILE *f)
{
	fprintf(f, "minivmm: linux: KVM reports no invariant TSC here, so Hyper-V's "
		"TSC_INVARIANT is not offered and Linux marks its TSC unstable; ");
	if (atomic_load(&vm->ref_tsc_page) == VM_REF_TSC_NOT_OFFERED)
		fprintf(f, "the host's clocksource is %s, not the TSC, so KVM keeps no stable "
			"guest TSC and the reference TSC page is not offered either: Linux reads "
			"the ACPI PM timer (a user-space exit per read), sched_clock the TSC\n",
			vm->kvm.clocksource);
	else
		fprintf(f, "it keeps time with the reference TSC page (no exit per read "
			"where KVM reports a stable TSC, else TIME_REF_COUNT, a user-space exit "
			"per read, for sched_clock too)\n");
}

/* Which guest, how it was loaded, and which hypervisor it is shown. */
static void banner_guest(const struct vm *vm, FILE *f)
{
	const struct load_info *im = &vm->image;

	fprintf(f, "minivmm: guest %s, pv %s: %s\n", guest_kind_name(vm->image.kind),
		options_pv_name(vm->cfg.pv), pv_layout(vm));
	if (vm->image.kind != IMAGE_LINUX)
		return;
	fprintf(f, "minivmm: linux: %s, PVH entry 0x%llx, kernel to %llu KiB",
		im->what, (unsigned long long)im->entry.rip,
		(unsigned long long)(im->image_end >> 10));
	if (im->unpack_ns)
		fprintf(f, ", unpacked on the host in %llu ms",
			(unsigned long long)(im->unpack_ns / 1000000));
	fprintf(f, "\n");
	if (vm_hyperv_shown(vm) && !cpuid_tsc_invariant(vm->cpuid))
		banner_linux_clock(vm, f);
}

/* --hv-impl kvm: what KVM serves, and what it cannot show that minivmm would. */
static void banner_kvm_hv(const struct vm *vm, FILE *f)
{
	const struct hv_cpuid_leaf *feat = &vm->kvm_hv.leaves[HV_CPUID_FEATURES - HV_CPUID_VENDOR_AND_MAX];
	char hints[32], lacks[160];

	options_hints_name(vm->cfg.hv_hints, hints, sizeof(hints));
	kvm_hv_describe_lacks(&vm->kvm_hv, lacks, sizeof(lacks));
	/* kvm_hv_open() demands KVM_CAP_HYPERV_ENFORCE_CPUID: always on. */
	fprintf(f, ", served by KVM's in-kernel Hyper-V (hints %s, xmm input %s, enforce_cpuid on",
		hints, feat->edx & HV_X64_HYPERCALL_XMM_INPUT_AVAILABLE ? "on" : "off");
	if (vm->cfg.hv_vp_base)
		fprintf(f, ", VP indexes %u-%u", vm->cfg.hv_vp_base,
			vm->cfg.hv_vp_base + vm->cfg.nr_vcpus - 1);
	if (feat->eax & HV_MSR_SYNIC_AVAILABLE)
		fprintf(f, ", SynIC%s", feat->eax & HV_MSR_SYNTIMER_AVAILABLE ?
			(feat->edx & HV_STIMER_DIRECT_MODE_AVAILABLE ?
			 " and synthetic timers, direct mode too" : " and synthetic timers") : "");
	if (lacks[0])
		fprintf(f, "; not shown, KVM lacks %s", lacks);
	fprintf(f, ")");
}

void report_banner(const struct vm *vm, FILE *f)
{
	const struct kvm_host *k = &vm->kvm;
	bool over = vm->cfg.nr_vcpus > k->host_cpus;

	fprintf(f, "minivmm %s: kvm backend %s, host kernel %s, %s\n", vmm_version(),
		kvm_backend_name(k->backend), k->kernel, k->cpu_model);
	fprintf(f, "minivmm: %u vCPU%s on %u host CPU%s%s, %llu MiB, TSC %llu.%03llu MHz, hyperv %s",
		vm->cfg.nr_vcpus, vm->cfg.nr_vcpus == 1 ? "" : "s", k->host_cpus,
		k->host_cpus == 1 ? "" : "s", over ? " (overcommitted)" : "",
		(unsigned long long)(vm->mem.size >> 20), (unsigned long long)(vm->tsc_khz / 1000),
		(unsigned long long)(vm->tsc_khz % 1000), vm_hyperv_shown(vm) ? "on" : "off");
	if (vm->kvm_hv.on)
		banner_kvm_hv(vm, f);
	if (vm->hv) {
		char hints[32];

		options_hints_name(vm->cfg.hv_hints, hints, sizeof(hints));
		fprintf(f, " (hints %s, xmm input %s, path %s", hints, vm->cfg.hv_xmm ? "on" : "off",
			vm->cfg.xmm_path == XMM_PATH_SPILL ? "spill" : "ioctl");
		if (vm->cfg.hv_vp_base)
			fprintf(f, ", VP indexes %u-%u", vm->cfg.hv_vp_base,
				vm->cfg.hv_vp_base + vm->cfg.nr_vcpus - 1);
		fprintf(f, ")");
	}
	fprintf(f, "%s\n", vm->hypercall_quirk_off ? "" : "; vmcall quirk NOT disabled");
	fprintf(f, "minivmm: sandbox %s\n", sandbox_banner(vm));
	if (vm->cfg.cpu_vendor[0])
		fprintf(f, "minivmm: CPUID vendor %s (--cpu-vendor; the CPU is the host's)\n",
			vm->cfg.cpu_vendor);
	if (vm->cfg.preempt.nr) {
		char what[160];

		preempt_describe(&vm->cfg.preempt, what, sizeof(what));
		fprintf(f, "minivmm: preempt: %s%s\n", what, vm->cfg.preempt.hidden ? "" :
			" (KVM_VCPU_PREEMPTED published where the guest registered steal time)");
	}
	banner_guest(vm, f);
	if (vm->hv) {
		char why[160];

		xmm_calib_describe(vm, why, sizeof(why));
		fprintf(f, "minivmm: xmm path %s: %s\n",
			vm->cfg.xmm_path == XMM_PATH_SPILL ? "spill" : "ioctl", why);
	}
	fflush(f);
}

static const char *unit_name(uint32_t unit)
{
	return unit == MVM_UNIT_PER_SEC ? "/s" : "cyc";
}

static void sum_stats(const struct vm *vm, struct vcpu_stats *all);

/* The VMM-side histogram a record's vmm_kind/vmm_code names, or NULL. */
static const struct lat_hist *vmm_side(const struct vcpu_stats *all, const struct mvm_result *r)
{
	unsigned int enc = r->vmm_code >> 16;

	switch (r->vmm_kind) {
	case MVM_VMM_PIO_NULL:
		return &all->kind[STATS_PIO_NULL];
	case MVM_VMM_MMIO_NULL:
		return &all->kind[STATS_MMIO_NULL];
	case MVM_VMM_MSR_USER:
		return &all->kind[STATS_MSR];
	case MVM_VMM_HCALL:
		if (enc >= HV_ENC_COUNT)
			return NULL;
		return &all->hcall[stats_hcall_slot((uint16_t)r->vmm_code)][enc].lat;
	default:
		return NULL;
	}
}

static void print_row(const struct vm *vm, const struct vcpu_stats *all,
		      const struct mvm_result *r, FILE *f)
{
	const struct results *res = &vm->results;
	const struct lat_hist *h = all ? vmm_side(all, r) : NULL;
	char body[24], ratio[48];

	results_format_body(r, body, sizeof(body));
	results_format_ratio(r, ratio, sizeof(ratio));
	fprintf(f, "%-10s %-28s %-12s %-9s %3u %4u %8llu %9llu %9llu %9llu %9llu %-3s %8llu %9s",
		r->suite, r->name, r->variant, r->state[0] ? r->state : "-", r->cpl, r->nr_vcpus,
		(unsigned long long)r->iters,
		(unsigned long long)r->min, (unsigned long long)r->median,
		(unsigned long long)r->p99, (unsigned long long)r->mean, unit_name(r->unit),
		(unsigned long long)r->overhead, body);
	if (r->unit == MVM_UNIT_CYCLES)
		fprintf(f, " %9.0f", cyc_to_ns(vm, (double)r->median));
	else
		fprintf(f, " %9s", "-");
	if (h && h->count)
		fprintf(f, " %8.0f", cyc_to_ns(vm, (double)lat_percentile(h, 50)));
	else
		fprintf(f, " %8s", "-");
	/* The guest's own ratio from interleaved rounds; none is derived here. */
	if (ratio[0] && r->baseline_id <= res->n) {
		const struct mvm_result *b = &res->recs[r->baseline_id - 1];

		fprintf(f, "  %s %s %s%s%s (%u rounds)", ratio, b->name, b->variant,
			b->state[0] ? " " : "", b->state, r->rounds);
	}
	fputc('\n', f);
}

void report_results(const struct vm *vm, FILE *f)
{
	const struct results *res = &vm->results;
	struct vcpu_stats *all;
	const char *suite = "";

	if (!res->n)
		return;
	all = calloc(1, sizeof(*all));	/* NULL: rows go without the VMM-side column */
	if (all)
		sum_stats(vm, all);
	fprintf(f, "\nresults (backend %s, %u vCPUs, TSC %llu kHz; cycles are guest TSC per iteration, loop\n"
		"included; loop: the empty loop's median in the same rounds; body: median over rounds of\n"
		"row minus loop, or 'in noise'; ratio: the guest's median over rounds of body/baseline body\n"
		"[interquartile range]; vmm-ns: minivmm's own median for the row's exit kind, whole run)\n",
		kvm_backend_name(vm->kvm.backend), vm->cfg.nr_vcpus, (unsigned long long)vm->tsc_khz);
	for (size_t i = 0; i < res->n; i++) {
		const struct mvm_result *r = &res->recs[i];

		if (strcmp(suite, r->suite)) {
			suite = r->suite;
			fprintf(f, "%-10s %-28s %-12s %-9s %3s %4s %8s %9s %9s %9s %9s %-3s %8s %9s %9s %8s  %s\n",
				"suite", "case", "variant", "state", "cpl", "cpus", "iters", "min", "median",
				"p99", "mean", "", "loop", "body", "median-ns", "vmm-ns",
				"ratio [IQR] vs baseline");
		}
		print_row(vm, all, r, f);
	}
	free(all);
	if (res->rejected)
		fprintf(f, "%llu record(s) rejected (see stderr)\n",
			(unsigned long long)res->rejected);
}

static void sum_stats(const struct vm *vm, struct vcpu_stats *all)
{
	memset(all, 0, sizeof(*all));
	for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++) {
		const struct vcpu_stats *s = &vm->vcpus[i].stats;

		for (unsigned int k = 0; k < STATS_KINDS; k++)
			lat_merge(&all->kind[k], &s->kind[k]);
		for (unsigned int r = 0; r < STATS_EXIT_REASONS; r++)
			all->exits[r] += s->exits[r];
		all->kvm_hv_synic_exits += s->kvm_hv_synic_exits;
		for (unsigned int c = 0; c < STATS_HCALL_SLOTS; c++)
			for (unsigned int e = 0; e < HV_ENC_COUNT; e++) {
				const struct hcall_stats *src = &s->hcall[c][e];
				struct hcall_stats *dst = &all->hcall[c][e];

				lat_merge(&dst->lat, &src->lat);
				dst->ud += src->ud;
				for (unsigned int st = 0; st < STATS_HCALL_STATUS_BUCKETS; st++)
					dst->status[st] += src->status[st];
			}
	}
}

static void print_lat(const struct vm *vm, FILE *f, const char *name, const struct lat_hist *h)
{
	fprintf(f, "  %-40s %9llu %8.0f %8.0f %8.0f %8.0f\n", name, (unsigned long long)h->count,
		cyc_to_ns(vm, (double)h->min), cyc_to_ns(vm, (double)lat_percentile(h, 50)),
		cyc_to_ns(vm, (double)h->sum / (double)h->count), cyc_to_ns(vm, (double)h->max));
}

static void print_pvtime(const struct vm *vm, FILE *f, const struct vcpu *v)
{
	int64_t steal = pvtime_steal_ns(v);

	if (steal < 0)
		fprintf(f, " steal=off");
	else
		fprintf(f, " steal=%.3fms", (double)steal / 1e6);
	fprintf(f, " preempted-episodes=%llu held=%.3fms pv-flush-deferred=%llu\n",
		(unsigned long long)v->pv.episodes, cyc_to_ns(vm, (double)v->pv.held_cycles) / 1e6,
		(unsigned long long)v->pv.flush_deferred);
}

static void print_exit_counts(const struct vm *vm, FILE *f)
{
	fprintf(f, "\nexits per vCPU:\n");
	for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++) {
		const struct vcpu_stats *s = &vm->vcpus[i].stats;

		fprintf(f, "  vCPU %u:", i);
		for (unsigned int r = 0; r < STATS_EXIT_REASONS; r++)
			if (s->exits[r])
				fprintf(f, " %s=%llu", stats_exit_name(r), (unsigned long long)s->exits[r]);
		fprintf(f, " flushes=%llu kicks=%llu", (unsigned long long)s->flushes_done,
			(unsigned long long)s->kicks_sent);
		print_pvtime(vm, f, &vm->vcpus[i]);
	}
	fprintf(f, "  unclaimed port/MMIO accesses: %llu\n",
		(unsigned long long)atomic_load(&vm->bus.unclaimed));
	fprintf(f, "  guest-provoked messages not printed (over %u per kind):", RATELIMIT_BURST);
	for (unsigned int k = 0; k < GMSG_KINDS; k++)
		fprintf(f, " %s=%llu", ratelimit_kind_key(k),
			(unsigned long long)ratelimit_suppressed(&vm->guest_msgs, k));
	fputc('\n', f);
}

void report_stats(const struct vm *vm, FILE *f)
{
	struct vcpu_stats *all = calloc(1, sizeof(*all));
	char name[64];

	if (!all)
		return;
	sum_stats(vm, all);
	print_exit_counts(vm, f);
	fprintf(f, "\nVMM-side time per user-space exit (KVM_RUN return to re-entry, host TSC):\n");
	fprintf(f, "  %-40s %9s %8s %8s %8s %8s\n", "kind", "count", "min-ns", "med-ns", "mean-ns", "max-ns");
	for (unsigned int k = 0; k < STATS_KINDS; k++)
		if (all->kind[k].count)
			print_lat(vm, f, stats_kind_name(k), &all->kind[k]);
	for (unsigned int c = 0; c < STATS_HCALL_SLOTS; c++)
		for (unsigned int e = 0; e < HV_ENC_COUNT; e++) {
			const struct hcall_stats *h = &all->hcall[c][e];
			const char *cn = hv_call_name(stats_hcall_slot_code(c));

			if (!h->lat.count)
				continue;
			snprintf(name, sizeof(name), "hv %s/%s", cn ? cn : "other", hv_encoding_name(e));
			print_lat(vm, f, name, &h->lat);
			fprintf(f, "  %-40s success=%llu invalid-input=%llu alignment=%llu other=%llu #UD=%llu\n", "",
				(unsigned long long)h->status[0], (unsigned long long)h->status[3],
				(unsigned long long)h->status[4],
				(unsigned long long)(h->lat.count - h->status[0] - h->status[3] - h->status[4] - h->ud),
				(unsigned long long)h->ud);
		}
	if (vm->kvm_hv.on)
		fprintf(f, "  Hyper-V hypercalls: served inside KVM (--hv-impl kvm), not timed or "
			"counted here; %llu reached minivmm (KVM_EXIT_HYPERV)\n",
			(unsigned long long)(all->exits[KVM_EXIT_HYPERV] - all->kvm_hv_synic_exits));
	if (vm->cfg.hv_synic)
		fprintf(f, "  SynIC control writes KVM reported (KVM_EXIT_HYPERV_SYNIC): %llu\n",
			(unsigned long long)all->kvm_hv_synic_exits);
	free(all);
}

static json_t *lat_json(const struct vm *vm, const struct lat_hist *h)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f}", "count", (json_int_t)h->count,
			 "min_ns", cyc_to_ns(vm, (double)h->min),
			 "median_ns", cyc_to_ns(vm, (double)lat_percentile(h, 50)),
			 "p99_ns", cyc_to_ns(vm, (double)lat_percentile(h, 99)),
			 "mean_ns", h->count ? cyc_to_ns(vm, (double)h->sum / (double)h->count) : 0.0,
			 "max_ns", cyc_to_ns(vm, (double)h->max));
}

/* A ratio in the JSON: a number, null for "none", or the string "inf". */
static json_t *ratio_json(const struct mvm_result *r, uint32_t v)
{
	if (!(r->flags & MVM_RESULT_RATIO))
		return json_null();
	if (v == MVM_RATIO_INF)
		return json_string("inf");
	return json_real((double)v / MVM_RATIO_ONE);
}

/* ABI 4: the block medians per round, in cycles (minivmm-compare's samples). */
static json_t *rounds_json(const uint64_t *v, uint32_t rounds)
{
	json_t *a = json_array();

	for (uint32_t k = 0; k < rounds && k < MVM_RESULT_ROUNDS_MAX; k++)
		json_array_append_new(a, json_integer((json_int_t)v[k]));
	return a;
}

/*
 * The VMM-side statistic a record maps to, by the names the "vmm" section
 * uses: its key there, and for a hypercall the call and encoding of its
 * row in vmm.hypercalls. Scripts read these instead of decoding vmm_code.
 */
static void record_vmm_names(json_t *o, const struct mvm_result *r)
{
	static const enum stats_kind kinds[] = {
		[MVM_VMM_PIO_NULL] = STATS_PIO_NULL, [MVM_VMM_MMIO_NULL] = STATS_MMIO_NULL,
		[MVM_VMM_MSR_USER] = STATS_MSR, [MVM_VMM_HCALL] = STATS_HCALL,
	};
	const char *call, *enc;

	if (r->vmm_kind == MVM_VMM_NONE || r->vmm_kind >= sizeof(kinds) / sizeof(kinds[0])) {
		json_object_set_new(o, "vmm_stat", json_null());
		return;
	}
	json_object_set_new(o, "vmm_stat", json_string(stats_kind_name(kinds[r->vmm_kind])));
	if (r->vmm_kind != MVM_VMM_HCALL)
		return;
	call = hv_call_name((uint16_t)r->vmm_code);
	enc = (r->vmm_code >> 16) < HV_ENC_COUNT ? hv_encoding_name(r->vmm_code >> 16) : NULL;
	json_object_set_new(o, "call", json_string(call ? call : "other"));
	json_object_set_new(o, "encoding", enc ? json_string(enc) : json_null());
}

static json_t *record_json(const struct vm *vm, const struct mvm_result *r)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:i, s:i}",
			      "suite", r->suite, "case", r->name, "variant", r->variant,
			      "cpl", (int)r->cpl, "vcpus", (int)r->nr_vcpus, "targets", (int)r->targets,
			      "unit", r->unit == MVM_UNIT_PER_SEC ? "per_second" : "cycles",
			      "iters", (json_int_t)r->iters, "min", (json_int_t)r->min,
			      "median", (json_int_t)r->median, "p90", (json_int_t)r->p90,
			      "p99", (json_int_t)r->p99, "max", (json_int_t)r->max,
			      "mean", (json_int_t)r->mean, "overhead", (json_int_t)r->overhead,
			      "median_ns", r->unit == MVM_UNIT_CYCLES ? cyc_to_ns(vm, (double)r->median) : 0.0,
			      "baseline", (json_int_t)r->baseline_id,
			      /* which VMM-side statistic (under "vmm") this row's exit is */
			      "vmm_kind", (int)r->vmm_kind, "vmm_code", (int)r->vmm_code);

	if (!o)
		return NULL;
	/* The targets' state while timed: a field of its own, never part of "case". */
	json_object_set_new(o, "state", r->state[0] ? json_string(r->state) : json_null());
	json_object_set_new(o, "id", json_integer(r->id));
	record_vmm_names(o, r);
	json_object_set_new(o, "body", r->flags & MVM_RESULT_BODY ?
			    json_integer((json_int_t)r->body) : json_null());
	json_object_set_new(o, "in_noise", json_boolean(r->flags & MVM_RESULT_IN_NOISE));
	json_object_set_new(o, "rounds", json_integer(r->rounds));
	json_object_set_new(o, "ratio", ratio_json(r, r->ratio));
	json_object_set_new(o, "ratio_lo", ratio_json(r, r->ratio_lo));
	json_object_set_new(o, "ratio_hi", ratio_json(r, r->ratio_hi));
	json_object_set_new(o, "round_medians", rounds_json(r->round_median, r->rounds));
	json_object_set_new(o, "round_loop_medians", rounds_json(r->round_loop, r->rounds));
	return o;
}

/* How the XMM path was chosen; the measured times when auto timed them. */
static json_t *xmm_calib_json(const struct vm *vm)
{
	const struct xmm_calib *c = &vm->xmm_calib;
	char why[160];

	xmm_calib_describe(vm, why, sizeof(why));
	if (!c->done || c->untimed)
		return json_pack("{s:s}", "why", why);
	/* An unresolved spill cost is null, not a measured 0. */
	return json_pack("{s:s, s:o, s:I, s:I}", "why", why,
			 "guest_spill_ns", c->spill_resolved ? json_integer((json_int_t)c->spill_ns) :
							       json_null(),
			 "vmm_walk_ns", (json_int_t)c->walk_ns,
			 "kvm_get_fpu_ns", (json_int_t)c->get_fpu_ns);
}

static const char *ref_tsc_name(const struct vm *vm)
{
	static const char *const names[] = {
		[VM_REF_TSC_UNUSED] = "unused", [VM_REF_TSC_VALID] = "valid",
		[VM_REF_TSC_INVALID] = "invalid", [VM_REF_TSC_NOT_OFFERED] = "not_offered",
	};

	int state = atomic_load(&vm->ref_tsc_page);

	/* KVM's own page: its validity is KVM's business, minivmm never sees it. */
	if (vm->kvm_hv.on && state != VM_REF_TSC_NOT_OFFERED)
		return "kvm";
	return names[state];
}

static json_t *env_json(const struct vm *vm)
{
	bool shown = vm_hyperv_shown(vm);
	char hints[32];
	json_t *env;

	options_hints_name(vm->cfg.hv_hints, hints, sizeof(hints));
	env = json_pack("{s:s, s:s, s:s, s:s, s:I, s:i, s:i, s:b, s:I, s:b, s:s, s:s, s:s, s:o}",
			 "minivmm", vmm_version(), "backend", kvm_backend_name(vm->kvm.backend),
			 "host_kernel", vm->kvm.kernel, "cpu_model", vm->kvm.cpu_model,
			 "tsc_khz", (json_int_t)vm->tsc_khz, "vcpus", (int)vm->cfg.nr_vcpus,
			 "host_cpus", (int)vm->kvm.host_cpus,
			 "overcommitted", vm->cfg.nr_vcpus > vm->kvm.host_cpus,
			 "mem_bytes", (json_int_t)vm->mem.size, "hyperv", vm_hyperv_shown(vm),
			 "pv", options_pv_name(vm->cfg.pv), "guest", guest_kind_name(vm->image.kind),
			 "xmm_path", vm->cfg.xmm_path == XMM_PATH_SPILL ? "spill" : "ioctl",
			 "xmm_path_choice", xmm_calib_json(vm));
	if (env && vm->cfg.preempt.nr) {
		json_t *list = json_array();

		for (unsigned int i = 0; i < vm->cfg.preempt.nr; i++)
			json_array_append_new(list, json_integer(vm->cfg.preempt.vcpu[i]));
		json_object_set_new(env, "preempt", json_pack("{s:o, s:I, s:I, s:I}", "vcpus", list,
			"hold_us", (json_int_t)vm->cfg.preempt.hold_us,
			"every_us", (json_int_t)vm->cfg.preempt.every_us,
			"rounds", (json_int_t)vm->preempt_rounds));
	} else if (env) {
		json_object_set_new(env, "preempt", json_null());
	}
	/* What CPUID 0x40000004 recommended; null where no Hyper-V was shown. */
	if (env)
		json_object_set_new(env, "hv_hints", shown ? json_string(hints) : json_null());
	if (env)
		json_object_set_new(env, "hv_impl", shown ?
				    json_string(options_hv_impl_name(vm->cfg.hv_impl)) : json_null());
	if (env)
		json_object_set_new(env, "hv_vp_base", shown ? json_integer(vm->cfg.hv_vp_base) :
							       json_null());
	if (env)
		json_object_set_new(env, "ref_tsc_page", shown ? json_string(ref_tsc_name(vm)) :
								 json_null());
	return env;
}

static json_t *vcpus_json(const struct vm *vm)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++) {
		const struct vcpu *v = &vm->vcpus[i];
		int64_t steal = pvtime_steal_ns(v);
		json_t *exits = json_object();

		for (unsigned int r = 0; r < STATS_EXIT_REASONS; r++)
			if (v->stats.exits[r])
				json_object_set_new(exits, stats_exit_name(r),
						    json_integer((json_int_t)v->stats.exits[r]));
		json_array_append_new(a, json_pack("{s:i, s:o, s:o, s:I, s:f, s:I, s:I, s:I}",
			"vcpu", (int)i, "exits", exits,
			"steal_ns", steal < 0 ? json_null() : json_integer(steal),
			"preempted_episodes", (json_int_t)v->pv.episodes,
			"held_ms", cyc_to_ns(vm, (double)v->pv.held_cycles) / 1e6,
			"pv_flush_deferred", (json_int_t)v->pv.flush_deferred,
			"flushes", (json_int_t)v->stats.flushes_done,
			"kicks", (json_int_t)v->stats.kicks_sent));
	}
	return a;
}

static json_t *vmm_json(const struct vm *vm)
{
	struct vcpu_stats *all = calloc(1, sizeof(*all));
	json_t *o = json_object(), *hc = json_array();

	if (!all)
		return o;
	sum_stats(vm, all);
	for (unsigned int k = 0; k < STATS_KINDS; k++)
		if (all->kind[k].count)
			json_object_set_new(o, stats_kind_name(k), lat_json(vm, &all->kind[k]));
	for (unsigned int c = 0; c < STATS_HCALL_SLOTS; c++)
		for (unsigned int e = 0; e < HV_ENC_COUNT; e++) {
			const struct hcall_stats *h = &all->hcall[c][e];
			const char *cn = hv_call_name(stats_hcall_slot_code(c));
			json_t *row;

			if (!h->lat.count)
				continue;
			row = lat_json(vm, &h->lat);
			json_object_set_new(row, "call", json_string(cn ? cn : "other"));
			json_object_set_new(row, "encoding", json_string(hv_encoding_name(e)));
			json_object_set_new(row, "success", json_integer((json_int_t)h->status[0]));
			json_object_set_new(row, "ud", json_integer((json_int_t)h->ud));
			json_array_append_new(hc, row);
		}
	json_object_set_new(o, "hypercalls", hc);
	/* Who served them: with "kvm" the list holds only what KVM passed up. */
	json_object_set_new(o, "hypercalls_served_by",
			    json_string(vm->kvm_hv.on ? "kvm" : "minivmm"));
	json_object_set_new(o, "vcpus", vcpus_json(vm));
	free(all);
	return o;
}

static json_t *suppressed_json(const struct vm *vm)
{
	json_t *o = json_object();

	for (unsigned int k = 0; k < GMSG_KINDS; k++)
		json_object_set_new(o, ratelimit_kind_key(k),
				    json_integer((json_int_t)ratelimit_suppressed(&vm->guest_msgs, k)));
	return o;
}


/*
 * The document, or NULL: json_pack() returns NULL for a string that is not
 * UTF-8 (a host string such as the CPU model; guest names are checked when
 * the record arrives) or when out of memory, and set_new/append_new refuse
 * a NULL value. A document with a hole would read as complete.
 */
static json_t *report_doc(const struct vm *vm, int exit_status)
{
	json_t *root = json_object(), *recs = json_array();
	int bad = !root || !recs;

	for (size_t i = 0; i < vm->results.n && !bad; i++)
		bad = json_array_append_new(recs, record_json(vm, &vm->results.recs[i]));
	bad |= json_object_set_new(root, "abi_version", json_integer(MVM_ABI_VERSION));
	bad |= json_object_set_new(root, "environment", env_json(vm));
	bad |= json_object_set_new(root, "results", recs);
	bad |= json_object_set_new(root, "vmm", vmm_json(vm));
	bad |= json_object_set_new(root, "exit_status", json_integer(exit_status));
	bad |= json_object_set_new(root, "rejected_records",
				   json_integer((json_int_t)vm->results.rejected));
	bad |= json_object_set_new(root, "suppressed_messages", suppressed_json(vm));
	bad |= json_object_set_new(root, "unclaimed_accesses",
				   json_integer((json_int_t)atomic_load(&vm->bus.unclaimed)));
	if (bad) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* To vm->json_fd (main.c opened it before the sandbox), which this closes. */
int report_json(const struct vm *vm, const char *path, int exit_status)
{
	json_t *root = report_doc(vm, exit_status);
	char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
	bool built = root != NULL;
	int ret;

	json_decref(root);
	errno = ENOMEM;
	ret = text ? fdio_write_all(vm->json_fd, text, strlen(text)) : -1;
	free(text);
	/* close() too reports a failed write-back (NFS, a full disk). */
	if (close(vm->json_fd))
		ret = -1;
	if (ret && !built)
		fprintf(stderr, "minivmm: cannot write %s: a value would not go into JSON "
			"(not UTF-8, or out of memory)\n", path);
	else if (ret)
		fprintf(stderr, "minivmm: cannot write %s: %s\n", path, strerror(errno));
	return ret;
}
