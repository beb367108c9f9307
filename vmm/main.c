// SPDX-License-Identifier: MIT
/* minivmm: boot an ELF payload on /dev/kvm and report what it measured. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/dev/devices.h"
#include "vmm/exitstatus.h"
#include "vmm/options.h"
#include "vmm/payload.h"
#include "vmm/report.h"
#include "vmm/vm.h"

int main(int argc, char **argv)
{
	static struct vm vm;	/* large (per-vCPU stats): keep it off the stack */
	static char payload[4096];
	struct vm_config cfg;
	char err[512];
	bool fits;
	int status;

	switch (options_parse(argc, argv, &cfg, err, sizeof(err))) {
	case OPTIONS_EXIT:
		return EXITSTATUS_OK;
	case OPTIONS_ERROR:
		fprintf(stderr, "minivmm: %s\n", err);
		return EXITSTATUS_HOST_ERROR;
	case OPTIONS_OK:
		break;
	}
	if (!cfg.elf_path) {	/* no KERNEL: the default payload (vmm/payload.c) */
		if (payload_default(payload, sizeof(payload), err, sizeof(err))) {
			fprintf(stderr, "minivmm: %s\n", err);
			return EXITSTATUS_HOST_ERROR;
		}
		cfg.elf_path = payload;
		printf("minivmm: no KERNEL given: booting %s\n", payload);
	}
	if (vm_create(&vm, &cfg, err, sizeof(err))) {
		fprintf(stderr, "minivmm: %s\n", err);
		vm_destroy(&vm);
		return EXITSTATUS_HOST_ERROR;
	}
	/* Opened now: the sandbox lets the main thread write files, not open them. */
	if (cfg.json_path &&
	    (vm.json_fd = open(cfg.json_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
		fprintf(stderr, "minivmm: cannot write %s: %s\n", cfg.json_path, strerror(errno));
		vm_destroy(&vm);
		return EXITSTATUS_HOST_ERROR;
	}
	report_prepare();
	report_banner(&vm, stdout);
	status = vm_run(&vm);
	ratelimit_summary(&vm.guest_msgs, stderr);
	report_results(&vm, stdout);
	if (cfg.stats)
		report_stats(&vm, stdout);
	if (vm.json_fd >= 0 && report_json(&vm, cfg.json_path, status) && !status)
		status = EXITSTATUS_HOST_ERROR;
	/* A pass with rejected records is a failure, in QEMU's words too under --qemu-exit. */
	if (vm.results.rejected && status == exit_dev_status(0, cfg.qemu_exit, &fits)) {
		status = exit_dev_status(EXITSTATUS_GUEST_FAILED, cfg.qemu_exit, &fits);
		fprintf(stderr, "minivmm: %llu result record(s) were rejected; exiting %d\n",
			(unsigned long long)vm.results.rejected, status);
	}
	fflush(stdout);
	vm_destroy(&vm);
	return status;
}
