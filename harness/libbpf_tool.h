/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the harness's static libbpf tools (peers/funclat.c,
 * massetup/kmulti.c) share: define TOOL_NAME, then include this after
 * <bpf/libbpf.h>.
 */
#ifndef KSERIES_LIBBPF_TOOL_H
#define KSERIES_LIBBPF_TOOL_H

#include <stdarg.h>
#include <stdio.h>

/* Say why on stderr, prefixed with the tool's name; returns 1. */
static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, TOOL_NAME ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* libbpf's own messages: warnings and errors only, on stderr. */
static int libbpf_log(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

#endif
