// SPDX-License-Identifier: GPL-2.0
/*
 * One BPF kprobe_multi program that counts its hits, attached by kmulti
 * to the functions of a list (libbpf's attach_kprobe_multi: one link).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

SEC("kprobe.multi")
int count_hit(void *ctx)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&hits, &key);

	if (v)
		(*v)++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
