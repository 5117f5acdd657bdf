#!/usr/bin/env python3
# How the lookup cache's set index, hash_ptr(addr, 8) (hash_64: multiply
# by GOLDEN_RATIO_64, keep the top 8 bits), spreads H consecutive benchmark
# functions of a fixed size over the 256 sets.  The stride is the distance
# between kpb_fn_N symbols in test_kprobe_bench.ko (nm -n): 37 bytes in the
# distribution-like build of 2026-11-26.  A set holds 4 entries: addresses
# in sets of more than 4 miss on every round-robin pass.
import collections
import sys

G = 0x61C8864680B583EB
M = (1 << 64) - 1
stride = int(sys.argv[1]) if len(sys.argv) > 1 else 37
base = 0xffffffffc0010000  # any module address: the spread depends on the stride
for h in (256, 1024):
    sets = collections.Counter((((base + k * stride) * G) & M) >> 56 for k in range(h))
    fit = sum(n for n in sets.values() if n <= 4)
    print(f"stride {stride}, H={h}: {len(sets)} of 256 sets used, "
          f"largest {max(sets.values())}, {fit} of {h} addresses in sets of <= 4")
