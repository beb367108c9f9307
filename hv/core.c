// SPDX-License-Identifier: MIT
/*
 * Lifetime of the Hyper-V layer: one struct hv per VM, holding the
 * configuration, the host callbacks and the MSR state.
 */
#include <errno.h>
#include <stdlib.h>

#include "hv/internal.h"

static bool hv_config_valid(const struct hv_config *cfg, const struct hv_host_ops *ops)
{
	if (!cfg || !ops)
		return false;
	if (cfg->nr_vcpus == 0 || cfg->nr_vcpus > HV_MAX_VP_INDEX)
		return false;
	if (cfg->vp_base % 64 || cfg->vp_base > HV_MAX_VP_INDEX - cfg->nr_vcpus)
		return false;
	if (!ops->read_gpa || !ops->write_gpa || !ops->flush_vcpus || !ops->send_ipi)
		return false;
	/* XMM-fast input needs a way to fetch XMM0-5 (or their spill). */
	if (cfg->xmm_input && !ops->read_xmm)
		return false;
	/*
	 * A zero LAPIC frequency would leave Linux with no timer. The TSC
	 * rate may come later (hv_set_tsc_hz): KVM tells it only once a vCPU
	 * exists, and the vCPUs need the CPUID leaves made here.
	 */
	if (cfg->freq_msrs && !cfg->apic_hz)
		return false;
	if (cfg->crash_msrs && !ops->guest_crash)
		return false;
	if (cfg->ref_time && (!ops->read_clock || !ops->tsc_stable))
		return false;
	return true;
}

struct hv *hv_create(const struct hv_config *cfg, const struct hv_host_ops *ops, void *opaque)
{
	struct hv *hv;

	if (!hv_config_valid(cfg, ops)) {
		errno = EINVAL;
		return NULL;
	}
	hv = calloc(1, sizeof(*hv));
	if (!hv)
		return NULL;
	hv->cfg = *cfg;
	hv->ops = *ops;
	hv->opaque = opaque;
	if (cfg->vp_assist) {
		hv->vp_assist = calloc(cfg->nr_vcpus, sizeof(*hv->vp_assist));
		if (!hv->vp_assist) {
			free(hv);
			return NULL;
		}
	}
	errno = pthread_mutex_init(&hv->msr_lock, NULL);
	if (errno) {
		free(hv->vp_assist);
		free(hv);
		return NULL;
	}
	return hv;
}

void hv_set_xmm_spill(struct hv *hv, bool spill)
{
	hv->cfg.xmm_spill = spill;
}

void hv_destroy(struct hv *hv)
{
	if (!hv)
		return;
	pthread_mutex_destroy(&hv->msr_lock);
	free(hv->vp_assist);
	free(hv);
}

const char *hv_encoding_name(enum hv_encoding enc)
{
	switch (enc) {
	case HV_ENC_REGULAR:
		return MVM_HV_ENC_NAME_REGULAR;
	case HV_ENC_FAST:
		return MVM_HV_ENC_NAME_FAST;
	case HV_ENC_XMM_FAST:
		return MVM_HV_ENC_NAME_XMM_FAST;
	default:
		return NULL;
	}
}
