// SPDX-License-Identifier: MIT
/*
 * The payload a run without KERNEL boots. In the build tree guest.elf sits
 * next to ./minivmm; installed, it lives under $(PREFIX)/lib/minivmm, a
 * path compiled in here (the Makefile rebuilds this file when PREFIX changes).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/errmsg.h"
#include "vmm/payload.h"

#ifndef MVM_PAYLOAD_PATH
#define MVM_PAYLOAD_PATH "/usr/local/lib/minivmm/" PAYLOAD_NAME
#endif

const char *payload_installed_path(void)
{
	return MVM_PAYLOAD_PATH;
}

static int readable_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, R_OK);
}

static int copy_path(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
	if (strlen(path) >= outlen)
		return errmsg(err, errlen, "payload path '%s' is longer than %zu bytes", path,
			      outlen - 1);
	strcpy(out, path);
	return 0;
}

int payload_find(const char *env, const char *exe, const char *installed,
		 char *out, size_t outlen, char *err, size_t errlen)
{
	char beside[PATH_MAX] = "";
	const char *slash = exe ? strrchr(exe, '/') : NULL;

	if (env && *env)
		return copy_path(env, out, outlen, err, errlen);
	if (slash && (size_t)snprintf(beside, sizeof(beside), "%.*s/%s", (int)(slash - exe), exe,
				      PAYLOAD_NAME) < sizeof(beside) && readable_file(beside))
		return copy_path(beside, out, outlen, err, errlen);
	if (installed && readable_file(installed))
		return copy_path(installed, out, outlen, err, errlen);
	return errmsg(err, errlen,
		      "no KERNEL given and no payload found: looked for %s (next to minivmm) and %s "
		      "(installed); give a KERNEL or set " PAYLOAD_ENV,
		      beside[0] ? beside : PAYLOAD_NAME, installed ? installed : "(none)");
}

int payload_default(char *out, size_t outlen, char *err, size_t errlen)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0)
		exe[n] = '\0';
	return payload_find(getenv(PAYLOAD_ENV), n > 0 ? exe : NULL, MVM_PAYLOAD_PATH,
			    out, outlen, err, errlen);
}
