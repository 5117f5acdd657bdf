// SPDX-License-Identifier: GPL-2.0
/*
 * kmulti BPF_OBJ ADDR_LIST CMD [ARG...]: the BPF kprobe_multi peer of
 * harness/massetup.  Loads count_hit of BPF_OBJ (kmulti.bpf.c), attaches
 * it with one kprobe_multi link to every address of ADDR_LIST (one hex
 * address per line, as available_filter_functions_addrs gives them),
 * runs CMD while it is attached, then destroys the link.  Prints
 *
 *   KM n=N attach_s=S armed_s=S detach_s=S hits=H
 *
 * (seconds by CLOCK_MONOTONIC; hits: the program's count while CMD ran).
 * Exits non-zero, saying why on stderr, when anything fails.  Linked
 * static, for the initramfs of the test guest.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define TOOL_NAME "kmulti"
#include "libbpf_tool.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long *read_addrs(const char *path, size_t *n)
{
	unsigned long *a = NULL, v;
	size_t cap = 0;
	char line[256];
	FILE *f = fopen(path, "r");

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx", &v) != 1)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			a = realloc(a, cap * sizeof(*a));
			if (!a)
				break;
		}
		a[(*n)++] = v;
	}
	fclose(f);
	return a;
}

/* The sum of the per-CPU counts of the hits map. */
static long long total_hits(struct bpf_map *map)
{
	int ncpu = libbpf_num_possible_cpus();
	unsigned long long *v;
	long long sum = 0;
	unsigned int key = 0;
	int i;

	if (ncpu <= 0)
		return -1;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -1;
	if (bpf_map_lookup_elem(bpf_map__fd(map), &key, v)) {
		free(v);
		return -1;
	}
	for (i = 0; i < ncpu; i++)
		sum += v[i];
	free(v);
	return sum;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct bpf_program *prog;
	struct bpf_link *link;
	struct bpf_object *obj;
	struct bpf_map *map;
	double t0, t1, t2, t3;
	unsigned long *addrs;
	long long before;
	int status, err;
	size_t n;
	pid_t pid;

	if (argc < 4)
		return fail("usage: kmulti BPF_OBJ ADDR_LIST CMD [ARG...]");
	libbpf_set_print(libbpf_log);
	addrs = read_addrs(argv[2], &n);
	if (!addrs || !n)
		return fail("no addresses in %s", argv[2]);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj)
		return fail("cannot open %s: %s", argv[1], strerror(errno));
	err = bpf_object__load(obj);
	if (err)
		return fail("cannot load %s: %s", argv[1], strerror(-err));
	prog = bpf_object__find_program_by_name(obj, "count_hit");
	map = bpf_object__find_map_by_name(obj, "hits");
	if (!prog || !map)
		return fail("%s has no count_hit or no hits", argv[1]);

	opts.addrs = addrs;
	opts.cnt = n;
	t0 = now();
	link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &opts);
	t1 = now();
	if (!link)
		return fail("cannot attach to %zu addresses: %s", n,
			    strerror(errno));
	before = total_hits(map);

	pid = fork();
	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (!pid) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return fail("waitpid: %s", strerror(errno));
	t2 = now();
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return fail("%s failed", argv[3]);

	before = total_hits(map) - before;
	bpf_link__destroy(link);
	t3 = now();
	printf("KM n=%zu attach_s=%.2f armed_s=%.2f detach_s=%.2f hits=%lld\n",
	       n, t1 - t0, t2 - t1, t3 - t2, before);
	bpf_object__close(obj);
	return 0;
}
