// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histogram of one kernel function, the way bcc's funclatency and
 * bpftrace's hist() build it: the entry stores bpf_ktime_get_ns() in a
 * hash map under the task's pid_tgid, the return looks it up, deletes it
 * and adds one to a per-CPU array slot indexed by log2 of the delta.
 *
 * Two pairs of programs share the maps: kprobe + kretprobe, and fentry +
 * fexit.  funclat.c loads one pair; their targets are set at run time
 * (bpf_program__attach_kprobe(), bpf_program__set_attach_target()), so
 * the sections name none.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#define FUNCLAT_SLOTS 64

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FUNCLAT_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} hist SEC(".maps");

/* Position of the highest set bit (0 for 0 and 1), without a loop. */
static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

static __always_inline void on_entry(void)
{
	__u64 key = bpf_get_current_pid_tgid();
	__u64 ts = bpf_ktime_get_ns();

	bpf_map_update_elem(&start, &key, &ts, BPF_ANY);
}

static __always_inline void on_return(void)
{
	__u64 key = bpf_get_current_pid_tgid();
	__u64 *tsp, *cnt, delta;
	__u32 slot;

	tsp = bpf_map_lookup_elem(&start, &key);
	if (!tsp)
		return;
	delta = bpf_ktime_get_ns() - *tsp;
	bpf_map_delete_elem(&start, &key);
	slot = log2_u64(delta);
	if (slot >= FUNCLAT_SLOTS)
		slot = FUNCLAT_SLOTS - 1;
	cnt = bpf_map_lookup_elem(&hist, &slot);
	if (cnt)
		*cnt += 1;
}

SEC("kprobe")
int funclat_kprobe(void *ctx)
{
	on_entry();
	return 0;
}

SEC("kretprobe")
int funclat_kretprobe(void *ctx)
{
	on_return();
	return 0;
}

SEC("fentry")
int funclat_fentry(__u64 *ctx)
{
	on_entry();
	return 0;
}

SEC("fexit")
int funclat_fexit(__u64 *ctx)
{
	on_return();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
