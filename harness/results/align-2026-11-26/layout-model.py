#!/usr/bin/env python3
# The benchmark's hot sets in the lookup cache, without timing: the probe
# addresses of each path's hot set (the kpb_fn_ symbols of a built
# test_kprobe_bench.ko, at 8 random page-aligned load addresses), placed
# by hash_ptr() (the cache's set index) or by the alternative of
# rejected-set-index-fold.patch, run through the cache's miss policy as
# the benchmark runs them: 3 rounds of 4,000 lookups, round robin over
# 1,024 hot probes, each round starting with an empty cache; bypass rule
# "one" (a thrashing window starts it, patches 20-28) or "two" (two in a
# row, patch 29).  Also the addresses without a way in their set.
# Usage: layout-model.py test_kprobe_bench.ko|SYMBOLS.nm [ENDBR_PLUS_FENTRY]
#   SYMBOLS.nm: nm's listing of the module (kept here: sites-37.nm, sites-48.nm)
#   ENDBR_PLUS_FENTRY: bytes from a site to its int3 probe (default 9)
import random
import subprocess
import sys

M = (1 << 64) - 1
G = 0x61C8864680B583EB


def hash_ptr(a):
    return ((a * G) & M) >> 56


def fold(a):
    x = (a * G) & M
    return ((x >> 56) ^ (x >> 32)) & 255


def run(sets, lookups, rule):
    cache = [[] for _ in range(256)]
    h = len(sets)
    inserts = w_miss = w_full = w_hits = hits = misses = bypassed = 0
    bypass = 0
    thrashed = False
    for k in range(lookups):
        i = k % h
        s = sets[i]
        if bypass:
            bypass -= 1
            bypassed += 1
            continue
        if i in cache[s]:
            hits += 1
            continue
        misses += 1
        c = cache[s]
        full = len(c) >= 4
        if not full:
            c.append(i)
            inserts += 1
        elif w_full % 16 == 0:
            c[inserts % 4] = i
            inserts += 1
        w_full += full
        w_miss += 1
        if w_miss < 256:
            continue
        t = hits - w_hits < 256 and w_full >= 128
        w_miss = w_full = 0
        w_hits = hits
        start = t if rule == "one" else t and thrashed
        thrashed = t
        if start:
            bypass = 4096
    return hits, misses, bypassed


def main():
    ko = sys.argv[1]
    d = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    off = {}
    if ko.endswith(".nm"):
        with open(ko) as f:
            lines = f.read().splitlines()
    else:
        lines = subprocess.run(["nm", ko], capture_output=True, text=True,
                               check=True).stdout.splitlines()
    for line in lines:
        f = line.split()
        if len(f) == 3 and f[2].startswith("kpb_fn_") and f[2][7:].isdigit():
            off[int(f[2][7:])] = int(f[0], 16)
    print("%s: kpb_fn_0..2 at %s" % (ko, [hex(off[i]) for i in range(3)]))
    rnd = random.Random(2)
    bases = [0xffffffffa0000000 + 4096 * rnd.randrange(1 << 14)
             for _ in range(8)]
    print("| path | set index | rule | addresses without a way | hits of 12,000 | bypassed |")
    print("|---|---|---|---|---|---|")
    for path, g, delta in (("ftrace", 0, 0), ("int3", 1, d), ("kretprobe", 3, 0)):
        for hn, h in (("hash_ptr", hash_ptr), ("fold", fold)):
            for rule in ("one", "two"):
                over, hits, byp = [], [], []
                for b in bases:
                    sets = [h(b + off[g * 4096 + i] + delta) for i in range(1024)]
                    cnt = [0] * 256
                    for s in sets:
                        cnt[s] += 1
                    over.append(sum(max(0, c - 4) for c in cnt))
                    r = [run(sets, 4000, rule) for _ in range(3)]
                    hits.append(sum(x[0] for x in r))
                    byp.append(sum(x[2] for x in r))
                print("| %s | %s | %s | %d-%d | %d-%d | %d-%d |"
                      % (path, hn, rule, min(over), max(over), min(hits),
                         max(hits), min(byp), max(byp)), flush=True)


main()
