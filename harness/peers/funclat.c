// SPDX-License-Identifier: GPL-2.0
/*
 * funclat kprobe|fentry FUNC BPF_OBJ: latency histogram of the kernel
 * function FUNC with the programs of funclat.bpf.c, attached as a
 * kprobe + kretprobe pair or as fentry + fexit (the latter needs the
 * kernel's BTF, /sys/kernel/btf/vmlinux, which libbpf reads).
 *
 * Loads and attaches, prints "ready MODE FUNC jited=0|1" (1: both programs
 * run as native code), then waits until its standard
 * input reaches end of file or it gets SIGTERM or SIGINT; then prints the
 * log2 histogram (ns) and "total=N", the number of samples, and exits 0.
 * Anything that fails to open, load or attach is reported on stderr with
 * a non-zero exit.  Linked static, for the initramfs of the test guest.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define TOOL_NAME "funclat"
#include "libbpf_tool.h"

#define FUNCLAT_SLOTS 64

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static struct bpf_program *find_prog(struct bpf_object *obj, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, name);

	if (!p)
		fail("no program %s in the object", name);
	return p;
}

/* The program runs as native code (the JIT translated it). */
static int jited(struct bpf_program *p)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return 0;
	return info.jited_prog_len > 0;
}

/* Block until stdin closes or a signal asks to stop. */
static void wait_for_end(void)
{
	char buf[256];
	ssize_t r;

	while (!stop) {
		r = read(STDIN_FILENO, buf, sizeof(buf));
		if (r == 0)
			break;
		if (r < 0 && errno != EINTR) {
			fail("reading stdin: %s", strerror(errno));
			break;
		}
	}
}

static int print_hist(struct bpf_object *obj)
{
	unsigned long long total = 0, sum;
	char range[48];
	struct bpf_map *map;
	int ncpu, fd, cpu;
	__u64 *vals;
	__u32 slot;

	map = bpf_object__find_map_by_name(obj, "hist");
	if (!map)
		return fail("no map hist in the object");
	fd = bpf_map__fd(map);
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return fail("cannot count the possible CPUs (%d)", ncpu);
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return fail("out of memory");
	printf("%-4s %-26s %12s\n", "log2", "ns", "count");
	for (slot = 0; slot < FUNCLAT_SLOTS; slot++) {
		if (bpf_map_lookup_elem(fd, &slot, vals)) {
			free(vals);
			return fail("reading slot %u: %s", slot, strerror(errno));
		}
		sum = 0;
		for (cpu = 0; cpu < ncpu; cpu++)
			sum += vals[cpu];
		if (!sum)
			continue;
		/* Slot k holds deltas in [2^k, 2^(k+1)); slot 0 also holds 0. */
		snprintf(range, sizeof(range), "[%llu, %llu)",
			 slot ? 1ull << slot : 0ull,
			 slot < 63 ? 1ull << (slot + 1) : ~0ull);
		printf("%-4u %-26s %12llu\n", slot, range, sum);
		total += sum;
	}
	printf("total=%llu\n", total);
	free(vals);
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_program *entry, *ret, *p;
	struct bpf_link *links[2] = { NULL, NULL };
	struct bpf_object *obj;
	struct sigaction sa;
	const char *mode, *func, *path, *en, *rn;
	int fentry, err, rc = 1, i;

	if (argc != 4)
		return fail("usage: funclat kprobe|fentry FUNC BPF_OBJ") + 1;
	mode = argv[1];
	func = argv[2];
	path = argv[3];
	if (!strcmp(mode, "kprobe"))
		fentry = 0;
	else if (!strcmp(mode, "fentry"))
		fentry = 1;
	else
		return fail("unknown mode '%s' (kprobe or fentry)", mode) + 1;

	libbpf_set_print(libbpf_log);
	/* Unbuffered: "ready" must reach a file or pipe at once. */
	setvbuf(stdout, NULL, _IONBF, 0);

	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		return fail("cannot open %s: %s", path, strerror(errno));

	en = fentry ? "funclat_fentry" : "funclat_kprobe";
	rn = fentry ? "funclat_fexit" : "funclat_kretprobe";
	entry = find_prog(obj, en);
	ret = find_prog(obj, rn);
	if (!entry || !ret)
		goto out;
	/* Load only the pair of this mode. */
	bpf_object__for_each_program(p, obj) {
		if (p != entry && p != ret)
			bpf_program__set_autoload(p, false);
	}
	if (fentry) {
		for (i = 0; i < 2; i++) {
			p = i ? ret : entry;
			err = bpf_program__set_attach_target(p, 0, func);
			if (err) {
				fail("%s: no BTF target %s: %s%s", bpf_program__name(p),
				     func, strerror(-err),
				     access("/sys/kernel/btf/vmlinux", R_OK) ?
				     " (no /sys/kernel/btf/vmlinux: kernel without CONFIG_DEBUG_INFO_BTF?)" : "");
				goto out;
			}
		}
	}
	err = bpf_object__load(obj);
	if (err) {
		fail("cannot load %s (%s mode, %s): %s", path, mode, func,
		     strerror(-err));
		goto out;
	}

	if (fentry) {
		links[0] = bpf_program__attach_trace(entry);
		err = libbpf_get_error(links[0]);
		if (!err) {
			links[1] = bpf_program__attach_trace(ret);
			err = libbpf_get_error(links[1]);
		}
	} else {
		links[0] = bpf_program__attach_kprobe(entry, false, func);
		err = libbpf_get_error(links[0]);
		if (!err) {
			links[1] = bpf_program__attach_kprobe(ret, true, func);
			err = libbpf_get_error(links[1]);
		}
	}
	if (err) {
		for (i = 0; i < 2; i++) {
			if (libbpf_get_error(links[i]))
				links[i] = NULL;
		}
		fail("cannot attach %s to %s: %s", mode, func, strerror(-err));
		goto out;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the signal must interrupt the read(). */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	printf("ready %s %s jited=%d\n", mode, func, jited(entry) && jited(ret));
	wait_for_end();

	/* Detach first so the histogram no longer moves while it is read. */
	for (i = 1; i >= 0; i--) {
		bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
	rc = print_hist(obj);
out:
	for (i = 1; i >= 0; i--)
		bpf_link__destroy(links[i]);
	bpf_object__close(obj);
	return rc;
}
