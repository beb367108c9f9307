// SPDX-License-Identifier: MIT
/* The fake host of the hv/ unit tests (tests/unit/hv_fake.h). */
#include <stdlib.h>
#include <string.h>

#include "tests/unit/hv_fake.h"


static bool ram_range_ok(uint64_t gpa, size_t len)
{
	return len <= RAM_SIZE && gpa <= RAM_SIZE - len;
}

static int fake_read_gpa(void *opaque, uint64_t gpa, void *dst, size_t len)
{
	struct fake_host *f = opaque;

	__atomic_add_fetch(&f->reads, 1, __ATOMIC_RELAXED);
	if (!ram_range_ok(gpa, len))
		return -1;
	memcpy(dst, f->ram + gpa, len);
	return 0;
}

static int fake_write_gpa(void *opaque, uint64_t gpa, const void *src, size_t len)
{
	struct fake_host *f = opaque;

	f->writes++;
	if (!ram_range_ok(gpa, len))
		return -1;
	memcpy(f->ram + gpa, src, len);
	return 0;
}

static int fake_read_xmm(void *opaque, unsigned int vcpu, uint8_t xmm[HV_HCALL_XMM_COUNT][16])
{
	struct fake_host *f = opaque;

	f->xmm_reads++;
	if (f->xmm_ret || vcpu >= NR_VCPUS)
		return -1;
	memcpy(xmm, f->xmm[vcpu], sizeof(f->xmm[vcpu]));
	return 0;
}

static int fake_flush_vcpus(void *opaque, unsigned int caller, const struct hv_vpmask *set)
{
	struct fake_host *f = opaque;

	pthread_mutex_lock(&f->lock);
	f->flushes++;
	f->flush_caller = caller;
	f->flushed = *set;
	pthread_mutex_unlock(&f->lock);
	return f->flush_ret;
}

static int fake_send_ipi(void *opaque, const struct hv_vpmask *set, uint32_t vector)
{
	struct fake_host *f = opaque;

	pthread_mutex_lock(&f->lock);
	f->ipis++;
	f->ipi_set = *set;
	f->ipi_vector = vector;
	pthread_mutex_unlock(&f->lock);
	return f->ipi_ret;
}

static void fake_guest_crash(void *opaque, unsigned int vcpu, const uint64_t p[HV_CRASH_PARAMS])
{
	struct fake_host *f = opaque;

	f->crashes++;
	f->crash_vcpu = vcpu;
	memcpy(f->crash_p, p, sizeof(f->crash_p));
}

static int fake_read_clock(void *opaque, unsigned int vcpu, uint64_t *tsc, uint64_t *ns)
{
	struct fake_host *f = opaque;

	f->clock_reads++;
	if (f->clock_ret || vcpu >= NR_VCPUS)
		return -1;
	*tsc = f->tsc[vcpu];
	*ns = f->ns;
	return 0;
}

static bool fake_tsc_stable(void *opaque)
{
	const struct fake_host *f = opaque;

	return f->tsc_stable;
}

const struct hv_host_ops fake_ops = {
	.read_gpa = fake_read_gpa,
	.write_gpa = fake_write_gpa,
	.read_xmm = fake_read_xmm,
	.flush_vcpus = fake_flush_vcpus,
	.send_ipi = fake_send_ipi,
	.guest_crash = fake_guest_crash,
	.read_clock = fake_read_clock,
	.tsc_stable = fake_tsc_stable,
};

struct fake_host *fake_new(void)
{
	struct fake_host *f = calloc(1, sizeof(*f));

	ck_assert_ptr_nonnull(f);
	f->ram = calloc(1, RAM_SIZE);
	ck_assert_ptr_nonnull(f->ram);
	pthread_mutex_init(&f->lock, NULL);
	return f;
}

void fake_free(struct fake_host *f)
{
	pthread_mutex_destroy(&f->lock);
	free(f->ram);
	free(f);
}

void fake_put(struct fake_host *f, uint64_t gpa, const uint64_t *q, size_t n)
{
	ck_assert(ram_range_ok(gpa, n * 8));
	memcpy(f->ram + gpa, q, n * 8);
}

void fake_set_xmm(struct fake_host *f, unsigned int vcpu, const uint64_t *q, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		memcpy(&f->xmm[vcpu][i / 2][(i % 2) * 8], &q[i], 8);
}



struct hv_config fake_cfg(enum cfg_kind kind)
{
	struct hv_config cfg = {
		.nr_vcpus = NR_VCPUS,
		.xmm_input = true,
		.flush_hint = true,
		.ipi_hint = true,
		.ex_hint = true,
	};

	switch (kind) {
	case CFG_FULL:
		break;
	case CFG_NOXMM:
		cfg.xmm_input = false;
		break;
	case CFG_SMALL:
		cfg.nr_vcpus = NR_SMALL;
		break;
	case CFG_NOHINTS:
		cfg.flush_hint = cfg.ipi_hint = cfg.ex_hint = false;
		break;
	case CFG_NOEX:
		cfg.ex_hint = false;
		break;
	}
	return cfg;
}

struct hv *fake_hv(struct fake_host *f, const struct hv_config *cfg)
{
	struct hv *hv = hv_create(cfg, &fake_ops, f);

	ck_assert_ptr_nonnull(hv);
	return hv;
}

struct hv *fake_hv_enabled(struct fake_host *f, const struct hv_config *cfg)
{
	struct hv *hv = fake_hv(f, cfg);

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, OS_ID), HV_MSR_OK);
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      PAGE_GPA | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	return hv;
}

struct hv_hcall_out fake_call(struct hv *hv, uint64_t rcx, uint64_t rdx, uint64_t r8)
{
	struct hv_hcall_in in = { .rcx = rcx, .rdx = rdx, .r8 = r8 };
	struct hv_hcall_out out;

	memset(&out, 0xa5, sizeof(out));
	hv_hypercall(hv, CALLER, &in, &out);
	return out;
}


const uint8_t fake_page_plain[] = { 0xe6, MVM_PORT_HCALL, 0xc3 };

const uint8_t fake_page_spill[] = {
	0xf7, 0xc1, 0x00, 0x00, 0x01, 0x00, 0x74, 0x06, 0x66, 0x83, 0xf9, 0x0b, 0x75, 0x03,
	0xe6, MVM_PORT_HCALL, 0xc3,
	0x48, 0x8d, 0x64, 0x24, 0x80,
	0xf3, 0x0f, 0x7f, 0x04, 0x24,
	0xf3, 0x0f, 0x7f, 0x4c, 0x24, 0x10,
	0xf3, 0x0f, 0x7f, 0x54, 0x24, 0x20,
	0xf3, 0x0f, 0x7f, 0x5c, 0x24, 0x30,
	0xf3, 0x0f, 0x7f, 0x64, 0x24, 0x40,
	0xf3, 0x0f, 0x7f, 0x6c, 0x24, 0x50,
	0xe6, MVM_PORT_HCALL,
	0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00,
	0xc3,
};

const size_t fake_page_plain_len = sizeof(fake_page_plain);
const size_t fake_page_spill_len = sizeof(fake_page_spill);

static void check_set(const char *row, const char *what, const struct hv_vpmask *got,
		      const uint64_t want[3])
{
	size_t i;

	for (i = 0; i < sizeof(got->bits) / sizeof(got->bits[0]); i++) {
		uint64_t w = i < 3 ? want[i] : 0;

		ck_assert_msg(got->bits[i] == w, "%s: %s bank %zu is %#llx, want %#llx",
			      row, what, i, (unsigned long long)got->bits[i],
			      (unsigned long long)w);
	}
}

static void check_outcome(const struct hc_row *r, const struct fake_host *f,
			  const struct hv_hcall_out *out)
{
	ck_assert_msg(out->inject_ud == r->ud, "%s: inject_ud %d", r->name, out->inject_ud);
	ck_assert_msg(out->enc == r->enc, "%s: encoding %d, want %d", r->name, out->enc, r->enc);
	ck_assert_msg(out->code == (r->rcx & 0xffff), "%s: code %#x", r->name, out->code);
	if (r->ud) {
		ck_assert_msg(out->rax == 0, "%s: rax %#llx with #UD", r->name,
			      (unsigned long long)out->rax);
	} else {
		ck_assert_msg((out->rax & ~RESULT_MASK) == 0, "%s: stray rax bits %#llx",
			      r->name, (unsigned long long)out->rax);
		ck_assert_msg((out->rax & 0xffff) == r->status, "%s: status %#llx, want %#x",
			      r->name, (unsigned long long)(out->rax & 0xffff), r->status);
		ck_assert_msg(out->rax >> 32 == r->reps, "%s: reps %llu, want %u", r->name,
			      (unsigned long long)(out->rax >> 32), r->reps);
	}
	ck_assert_msg(f->flushes == (r->flush ? 1u : 0u), "%s: %u flushes", r->name,
		      f->flushes);
	if (r->flush) {
		ck_assert_msg(f->flush_caller == CALLER, "%s: caller %u", r->name,
			      f->flush_caller);
		check_set(r->name, "flush", &f->flushed, r->flush_set);
	}
	ck_assert_msg(f->ipis == (r->ipi ? 1u : 0u), "%s: %u IPI calls", r->name, f->ipis);
	if (r->ipi) {
		ck_assert_msg(f->ipi_vector == r->vector, "%s: vector %#x", r->name,
			      f->ipi_vector);
		check_set(r->name, "IPI", &f->ipi_set, r->ipi_set);
	}
}


void fake_run_row(const struct hc_row *r)
{
	struct hv_config cfg = fake_cfg(r->cfg);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);
	struct hv_hcall_out out;

	if (r->nmem)
		fake_put(f, r->rdx, r->mem, r->nmem);
	fake_set_xmm(f, CALLER, r->xmm, 12);
	out = fake_call(hv, r->rcx, r->rdx, r->r8);
	check_outcome(r, f, &out);
	/* XMM are fetched only for an XMM-fast call that got that far. */
	if (r->enc != HV_ENC_XMM_FAST || r->ud)
		ck_assert_msg(f->xmm_reads == 0, "%s: read XMM", r->name);
	hv_destroy(hv);
	fake_free(f);
}
