#!/usr/bin/env python3
# How evenly candidate hashes spread probe addresses over the index's
# slots and the lookup cache's sets.  hash_ptr() (one multiplication by
# the golden ratio, the top bits kept) turns addresses at a fixed stride
# into a Weyl sequence: even for most strides, clustered for some.
#
# For each hash and key set:
#   index:  mean slots read per successful lookup (linear probing, 3 tag
#           bits below the slot bits, as kprobe_index) for 4,097 keys in
#           8,192 slots and 44,096 keys in 65,536 slots (the two sizes of
#           the benchmark's N = 1 and N = 40,000 phases with H = 4,096);
#   cache:  hot keys that do not fit in their 4-way set of 256, for hot
#           sets of 512 and 1,024 consecutive keys (what a round-robin
#           loop over the hot set misses on every pass).
# Key sets: fixed strides (37 bytes: the benchmark's functions), random
# 16-byte aligned addresses, and runs of consecutive functions of the
# running kernel's text from /proc/kallsyms (when it is readable; the
# figures then depend on that kernel), at 8 offsets, averaged.
#
# With --sweep: every stride that is a multiple of 8 up to 1,024 and every
# odd one below 64, fixed keys from 0xffffffffc0010000; per hash the mean
# and worst index cost and cache overflow, and the stride of the worst.
#
# Usage: hash-eval.py [--quick | --sweep]   (seconds; --sweep half a minute)
import random
import sys

M = (1 << 64) - 1
G = 0x61C8864680B583EB          # GOLDEN_RATIO_64 (include/linux/hash.h)


def hash_ptr(a, bits):
    return ((a * G) & M) >> (64 - bits)


def mul_xs_mul(a, bits):
    # multiply, fold the high half into the low, multiply again
    x = (a * G) & M
    x ^= x >> 32
    return ((x * G) & M) >> (64 - bits)


def xs_mul(a, bits):
    # fold before the one multiplication
    x = a ^ (a >> 16)
    return ((x * G) & M) >> (64 - bits)


def fmix64(a, bits):
    # MurmurHash3's 64-bit finalizer
    x = a
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & M
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & M
    x ^= x >> 33
    return x >> (64 - bits)


def xs(shift):
    def f(a, bits):
        x = a ^ (a >> shift)
        return ((x * G) & M) >> (64 - bits)
    return f


HASHES = [("hash_ptr", hash_ptr), ("xs_mul", xs_mul),
          ("mul_xs_mul", mul_xs_mul), ("fmix64", fmix64)]
SWEEP = [("hash_ptr", hash_ptr), ("xs8_mul", xs(8)), ("xs12_mul", xs(12)),
         ("xs16_mul", xs(16)), ("xs20_mul", xs(20)),
         ("mul_xs_mul", mul_xs_mul)]


def index_len(keys, bits, h):
    size = 1 << bits
    mask = size - 1
    slots = [None] * size
    first = {}
    for a in keys:
        i = h(a, bits + 3) >> 3
        first[a] = i
        while slots[i] is not None:
            i = (i + 1) & mask
        slots[i] = a
    tot = 0
    for a in keys:
        i = first[a]
        n = 1
        while slots[i] != a:
            i = (i + 1) & mask
            n += 1
        tot += n
    return tot / len(keys)


def cache_over(keys, h):
    count = {}
    for a in keys:
        s = h(a, 8)
        count[s] = count.get(s, 0) + 1
    return sum(max(0, v - 4) for v in count.values())


def kallsyms():
    try:
        with open("/proc/kallsyms") as f:
            addrs = sorted({int(l.split()[0], 16) for l in f
                            if l.split()[1] in ("t", "T")
                            and l.split()[0].startswith("ffffffff8")})
    except OSError:
        return None
    if len(addrs) < 50000 or addrs[0] == 0:
        return None
    return addrs


def sweep():
    base = 0xffffffffc0010000
    strides = list(range(8, 1032, 8)) + list(range(1, 64, 2))
    print("| hash | index 44,096/65,536 mean | worst (stride) "
          "| index 4,097/8,192 worst (stride) "
          "| cache over, H=1,024, mean | worst (stride) |")
    print("|---|---|---|---|---|---|")
    for hname, h in SWEEP:
        res = []
        for st in strides:
            k = [base + st * i for i in range(44096)]
            res.append((index_len(k, 16, h), index_len(k[:4097], 13, h),
                        cache_over(k[:1024], h), st))
        w = max(res)
        w2 = max(res, key=lambda r: r[1])
        w3 = max(res, key=lambda r: r[2])
        print("| %s | %.2f | %.2f (%d) | %.2f (%d) | %.0f | %d (%d) |"
              % (hname, sum(r[0] for r in res) / len(res), w[0], w[3],
                 w2[1], w2[3], sum(r[2] for r in res) / len(res),
                 w3[2], w3[3]), flush=True)


def main():
    if "--sweep" in sys.argv:
        sweep()
        return
    quick = "--quick" in sys.argv
    base = 0xffffffffc0010000
    sets = []
    for stride in ((37, 48) if quick else (16, 32, 37, 48, 64, 80, 96)):
        sets.append(("stride %d" % stride,
                     [[base + stride * i for i in range(44096)]]))
    rnd = random.Random(1)
    sets.append(("random 16-aligned",
                 [[base + 16 * k for k in rnd.sample(range(1 << 22), 44096)]
                  for _ in range(1 if quick else 4)]))
    ks = kallsyms()
    if ks:
        offs = [len(ks) * j // 8 for j in range(2 if quick else 8)]
        sets.append(("kallsyms runs",
                     [ks[o:o + 44096] if o + 44096 <= len(ks)
                      else ks[-44096:] for o in offs]))
    print("| keys | hash | index 4,097/8,192 | index 44,096/65,536 "
          "| cache over, H=512 | cache over, H=1,024 |")
    print("|---|---|---|---|---|---|")
    for name, runs in sets:
        for hname, h in HASHES:
            r = [0.0] * 4
            for keys in runs:
                r[0] += index_len(keys[:4097], 13, h)
                r[1] += index_len(keys, 16, h)
                r[2] += cache_over(keys[:512], h)
                r[3] += cache_over(keys[:1024], h)
            r = [v / len(runs) for v in r]
            print("| %s | %s | %.2f | %.2f | %.0f | %.0f |"
                  % (name, hname, r[0], r[1], r[2], r[3]), flush=True)


main()
