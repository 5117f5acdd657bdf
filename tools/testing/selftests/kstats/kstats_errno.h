/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of the errnos that kstats/_control returns, for the kstats
 * selftests: the scripts compare them as text.
 */
#ifndef KSTATS_ERRNO_H
#define KSTATS_ERRNO_H

#include <errno.h>
#include <stdio.h>

#define KSTATS_ERRNO_NAME(e)	{ e, #e }

static const struct {
	int err;
	const char *name;
} kstats_errno_names[] = {
	KSTATS_ERRNO_NAME(EPERM),
	KSTATS_ERRNO_NAME(ENOENT),
	KSTATS_ERRNO_NAME(EIO),
	KSTATS_ERRNO_NAME(E2BIG),
	KSTATS_ERRNO_NAME(EAGAIN),
	KSTATS_ERRNO_NAME(ENOMEM),
	KSTATS_ERRNO_NAME(EACCES),
	KSTATS_ERRNO_NAME(EFAULT),
	KSTATS_ERRNO_NAME(EBUSY),
	KSTATS_ERRNO_NAME(EEXIST),
	KSTATS_ERRNO_NAME(ENODEV),
	KSTATS_ERRNO_NAME(EINVAL),
	KSTATS_ERRNO_NAME(ENOSPC),
	KSTATS_ERRNO_NAME(ERANGE),
	KSTATS_ERRNO_NAME(ENAMETOOLONG),
	KSTATS_ERRNO_NAME(EILSEQ),
	KSTATS_ERRNO_NAME(EOPNOTSUPP),
};

/* The symbolic name of @err, or "E<number>" in @buf for the others. */
static inline const char *kstats_errno_name(int err, char *buf, size_t size)
{
	size_t i;

	if (!err)
		return "OK";
	for (i = 0; i < sizeof(kstats_errno_names) /
			sizeof(kstats_errno_names[0]); i++)
		if (kstats_errno_names[i].err == err)
			return kstats_errno_names[i].name;
	snprintf(buf, size, "E%d", err);
	return buf;
}

#endif /* KSTATS_ERRNO_H */
