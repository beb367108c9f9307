/* SPDX-License-Identifier: MIT */
#ifndef VMM_VERSION_H
#define VMM_VERSION_H

/* The git revision minivmm was built from ("unknown" outside a checkout). */
const char *vmm_version(void);

#endif
