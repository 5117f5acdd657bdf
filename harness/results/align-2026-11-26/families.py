#!/usr/bin/env python3
# Runs of equal functions in real kernel text and where the lookup cache
# would put them: for each family of generated functions in the running
# kernel's /proc/kallsyms (needs root), the number of functions, their
# most common stride, and the first 1,024 (or all) of them placed by
# hash_ptr() (the cache's set index), by the fold of
# rejected-set-index-fold.patch and by two multiplications
# (kprobe_addr_hash()): addresses without a way in their 4-way set of
# 256 (random addresses: about 200 of 1,024).
# Also the longest runs of text symbols at one stride.
# Usage: families.py
import re
import statistics

M = (1 << 64) - 1
G = 0x61C8864680B583EB


def hash_ptr(a):
    return ((a * G) & M) >> 56


def fold(a):
    x = (a * G) & M
    return ((x >> 56) ^ (x >> 32)) & 255


def mul_xs_mul(a):
    x = (a * G) & M
    x ^= x >> 32
    return ((x * G) & M) >> 56


def over(keys, h):
    c = [0] * 256
    for k in keys:
        c[h(k)] += 1
    return sum(max(0, v - 4) for v in c)


syms = []
with open("/proc/kallsyms") as f:
    for line in f:
        a, t, n = line.split()[:3]
        if t in "tT" and a.startswith("ffffffff8"):
            syms.append((int(a, 16), n))
print("| family | functions | stride (mode) | hash_ptr | fold | two multiplications |")
print("|---|---|---|---|---|---|")
for pat in ("bpf_lsm_", "__probestub_", "__traceiter_", "__bpf_trace_",
            "__x64_sys_", "trace_event_raw_event_", "perf_trace_"):
    ks = sorted({a for a, n in syms if re.match(pat, n)})[:1024]
    st = statistics.mode(ks[i + 1] - ks[i] for i in range(len(ks) - 1))
    print("| %s | %d | %d | %d | %d | %d |" % (pat, len(ks), st, over(ks, hash_ptr),
                                             over(ks, fold), over(ks, mul_xs_mul)))
addrs = {}
for a, n in syms:
    addrs.setdefault(a, n)
a = sorted(addrs)
runs = []
cur = 1
for i in range(2, len(a)):
    if a[i] - a[i - 1] == a[i - 1] - a[i - 2]:
        cur += 1
    else:
        runs.append((cur + 1, a[i - 1] - a[i - 2], addrs[a[i - cur - 1]]))
        cur = 1
runs.sort(reverse=True)
print()
print("longest runs of text symbols at one stride (with __pfx_ symbols):")
for r in runs[:6]:
    print("  %5d symbols, %3d bytes apart, from %s" % r)
