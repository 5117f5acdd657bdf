// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_write - write each argument to a file in a single write() and
 * print, one line per argument, "OK" or the name of the errno it failed
 * with ("EINVAL", "ENOENT", ...).  The shell's echo reports errors as text
 * and may split or join writes; the kstats selftests need the exact errno
 * of each write.
 *
 * Usage: kstats_write [-f FILE] [-e] ARG...
 *   -f FILE  the file to write (default /sys/kernel/debug/kstats/_control),
 *            opened once for all the arguments
 *   -e       decode \n, \r, \t, \\ and \xHH in the arguments first (\x00 gives
 *            a NUL byte inside the write)
 *
 * Exit status: 0 if every write succeeded, 1 if one failed, 2 on a usage
 * or open error.
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kstats_errno.h"

#define DEFAULT_FILE	"/sys/kernel/debug/kstats/_control"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decodes the escapes of @s into @out; returns the length, or -1. */
static long decode(const char *s, char *out)
{
	long n = 0;
	int hi, lo;

	while (*s) {
		if (*s != '\\') {
			out[n++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n':
			out[n++] = '\n';
			s++;
			break;
		case 't':
			out[n++] = '\t';
			s++;
			break;
		case 'r':
			out[n++] = '\r';
			s++;
			break;
		case '\\':
			out[n++] = '\\';
			s++;
			break;
		case 'x':
			hi = hex_digit(s[1]);
			lo = hi < 0 ? -1 : hex_digit(s[2]);
			if (lo < 0)
				return -1;
			out[n++] = (char)(hi << 4 | lo);
			s += 3;
			break;
		default:
			return -1;
		}
	}
	return n;
}

static void bad_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-f FILE] [-e] ARG...\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *file = DEFAULT_FILE;
	int escapes = 0, failed = 0;
	char name[16], *buf;
	long len;
	int fd, opt, i;

	while ((opt = getopt(argc, argv, "f:e")) != -1) {
		switch (opt) {
		case 'f':
			file = optarg;
			break;
		case 'e':
			escapes = 1;
			break;
		default:
			bad_usage(argv[0]);
		}
	}
	if (optind >= argc)
		bad_usage(argv[0]);

	fd = open(file, O_WRONLY);
	if (fd < 0) {
		perror(file);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		len = strlen(argv[i]);
		buf = malloc(len + 1);
		if (!buf) {
			perror("malloc");
			return 2;
		}
		if (escapes) {
			len = decode(argv[i], buf);
			if (len < 0) {
				fprintf(stderr, "bad escape in '%s'\n",
					argv[i]);
				return 2;
			}
		} else {
			memcpy(buf, argv[i], len);
		}
		errno = 0;
		if (write(fd, buf, len) == len) {
			puts("OK");
		} else {
			/* A short write counts as a failure too. */
			int err = errno ? errno : EIO;

			puts(kstats_errno_name(err, name, sizeof(name)));
			failed = 1;
		}
		free(buf);
	}
	close(fd);
	return failed;
}
