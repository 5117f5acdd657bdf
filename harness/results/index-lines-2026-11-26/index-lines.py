#!/usr/bin/env python3
# Where the index's cold lookup spends cache lines beyond its three (the
# index word, the slot, the kprobe): a model of get_kprobe()'s index as
# patches 15 and 21 build it (hash_ptr(addr, bits + 3), the top bits pick
# the first slot, the low three are the tag; linear probing; the array
# grows when more than 3/4 of it is filled, to order_base_2(2 * probes)
# slots; aligned to its size, 8 slots per 64-byte line), filled with the
# host harness's addresses (distinct, random, 16-byte aligned kernel text
# addresses). For H hot probes picked at random it counts, per lookup,
# the kprobes of other addresses read because their tag matched, and the
# extra slot lines read because the probe sequence crossed into the next
# line. Then the same with the array kept at most half full.
# Usage: index-lines.py (no arguments; about 10 s)
import random

G = 0x61C8864680B583EB
M = (1 << 64) - 1
TAG_BITS = 3


def hash_ptr(a, bits):
    return ((a * G) & M) >> (64 - bits)


def model(n, h, seed, grow_num, grow_den):
    rng = random.Random(seed)
    addrs = [0xffffffff81000000 + 16 * k for k in rng.sample(range(1 << 22), n)]
    size = bits = 0
    for i in range(1, n + 1):
        if i * grow_den > size * grow_num:
            bits = max(6, (2 * i - 1).bit_length())
            size = 1 << bits
    slots = [None] * size
    for a in addrs:
        x = hash_ptr(a, bits + TAG_BITS)
        i = x >> TAG_BITS
        while slots[i] is not None:
            i = (i + 1) & (size - 1)
        slots[i] = (a, x & ((1 << TAG_BITS) - 1))
    false_tags = crossings = 0
    for a in rng.sample(addrs, h):
        x = hash_ptr(a, bits + TAG_BITS)
        i, tag = x >> TAG_BITS, x & ((1 << TAG_BITS) - 1)
        lines = set()
        while True:
            lines.add(i // 8)
            if slots[i][0] == a:
                break
            false_tags += slots[i][1] == tag
            i = (i + 1) & (size - 1)
        crossings += len(lines) - 1
    return size, false_tags / h, crossings / h


for name, num, den in (("grows past 3/4 (the series)", 3, 4),
                       ("grows past 1/2", 1, 2)):
    print(name)
    for n in (1000, 10000, 40000, 44096):
        r = [model(n, min(n, 4096), s, num, den) for s in range(3)]
        size = r[0][0]
        ft = sum(x[1] for x in r) / 3
        cr = sum(x[2] for x in r) / 3
        print(f"  N={n:6d} slots={size:7d} load={n / size:.2f} "
              f"bytes/probe={8 * size / n:5.1f} false-tag kprobe reads={ft:.3f} "
              f"line crossings={cr:.3f} lines={3 + ft + cr:.3f}")
