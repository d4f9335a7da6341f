/* host.h - what build/host/unittests (tests/host/unittests.c) shares with the test files: the
 * device trees given with --dtb, and a file reader. Host only: never in kernel code. */
#ifndef HOST_H
#define HOST_H

#include <stddef.h>

/* The --dtb FILE arguments, in command-line order (host_nr_dtbs may be 0). */
extern const char **host_dtb_files;
extern int host_nr_dtbs;

/* Whole file in a malloc()ed buffer of exactly *size bytes (so ASan catches overreads);
 * NULL (with a message on stderr) if it cannot be read. */
void *host_read_file(const char *path, size_t *size);

#endif
