/* SPDX-License-Identifier: MIT */
/* Whole writes to a file descriptor: a signal or a short write never drops bytes. */
#ifndef VMM_FDIO_H
#define VMM_FDIO_H

#include <stddef.h>

/* Write all `len` bytes, retrying EINTR and short writes; 0, or -1 with errno. */
int fdio_write_all(int fd, const void *buf, size_t len);

#endif
