// SPDX-License-Identifier: MIT
#include <errno.h>
#include <unistd.h>

#include "vmm/fdio.h"

int fdio_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;	/* write(2) never returns 0 for len > 0; do not spin */
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
