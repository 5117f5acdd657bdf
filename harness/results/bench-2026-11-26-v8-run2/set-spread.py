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
stride = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 37
base = 0xffffffffc0010000  # any module address: the spread depends on the stride
for h in (256, 1024):
    sets = collections.Counter((((base + k * stride) * G) & M) >> 56 for k in range(h))
    fit = sum(n for n in sets.values() if n <= 4)
    print(f"stride {stride}, H={h}: {len(sets)} of 256 sets used, "
          f"largest {max(sets.values())}, {fit} of {h} addresses in sets of <= 4")

# With --survey: for strides 1-256 (the same base), how many of 1,024
# consecutive functions land in sets of at most 4, with this index and with
# an xor-folded one (the top 32 bits of the product folded into 8); and the
# same for 1,024 random addresses (50 seeded draws).
if "--survey" in sys.argv:
    import random
    import statistics

    def cur(a):
        return ((a * G) & M) >> 56

    def fold(a):
        h = ((a * G) & M) >> 32
        return (h ^ (h >> 8) ^ (h >> 16) ^ (h >> 24)) & 255

    def fits(keys):
        sets = collections.Counter(keys)
        return sum(n for n in sets.values() if n <= 4)

    for name, f in (("hash_ptr", cur), ("xor-folded", fold)):
        r = [fits(f(base + k * s) for k in range(1024)) for s in range(1, 257)]
        print(f"{name}: strides 1-256, H=1024: min {min(r)}, "
              f"median {statistics.median(r)}, max {max(r)}")
    random.seed(1)
    r = [fits(random.randrange(256) for _ in range(1024)) for _ in range(50)]
    print(f"random: min {min(r)}, median {statistics.median(r)}, max {max(r)}")
