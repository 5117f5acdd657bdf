#!/usr/bin/env python3
# Which lookup-cache set an address goes to: candidate set-index functions
# against the hot sets that mass probing makes.  For each candidate and
# key set, the hot keys that find no way in their 4-way set of 256 (what
# a round-robin pass over the hot set misses however the cache inserts);
# 0 is a perfect spread, about 200 of 1,024 is what random placement
# leaves.
#
# Key sets (1,024 hot unless said):
#   stride S      1,024 addresses S bytes apart (the benchmark's functions
#                 are 37 bytes apart); summarised over a sweep of strides:
#                 every one from 1 to 64, every multiple of 8 to 1,024,
#                 and page-sized ones (4,096 +- 16, 8,192, 65,536)
#   random        16-byte aligned addresses, uniform over 64 MiB
#   kallsyms run  1,024 consecutive functions of the running kernel's
#                 text, at 64 offsets (needs a readable /proc/kallsyms)
#   kallsyms pick 1,024 functions picked at random among 40,000
#                 consecutive ones, at 16 offsets
#
# Usage: setidx-eval.py        (about a minute)
import random

M = (1 << 64) - 1
G = 0x61C8864680B583EB          # GOLDEN_RATIO_64 (include/linux/hash.h)


def hash_ptr(a):
    return ((a * G) & M) >> 56


def mul_xs_mul(a):
    x = (a * G) & M
    x ^= x >> 32
    return ((x * G) & M) >> 56


def mul_mid(a):
    # kprobe_cache_set_index() from patch 28: the top byte of the product
    # xored with its bits 32-39
    x = (a * G) & M
    return ((x >> 56) ^ (x >> 32)) & 255


def bits4(a):
    return (a >> 4) & 255


def xor2(a):
    return ((a >> 4) ^ (a >> 12)) & 255


def xor3(a):
    return ((a >> 4) ^ (a >> 12) ^ (a >> 20)) & 255


CANDS = [("hash_ptr", hash_ptr), ("mul_xs_mul", mul_xs_mul),
         ("mul, top ^ middle", mul_mid),
         ("a>>4", bits4), ("a>>4 ^ a>>12", xor2),
         ("a>>4 ^ a>>12 ^ a>>20", xor3)]


def over(keys, h):
    count = [0] * 256
    for a in keys:
        count[h(a)] += 1
    return sum(max(0, v - 4) for v in count)


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


def main():
    base = 0xffffffffc0010000
    strides = (list(range(1, 65)) + list(range(72, 1032, 8)) +
               [4080, 4096, 4112, 8192, 65536])
    rnd = random.Random(1)
    sets = [("stride 37", [[base + 37 * i for i in range(1024)]]),
            ("stride 48", [[base + 48 * i for i in range(1024)]])]
    sets.append(("random", [[base + 16 * k
                             for k in rnd.sample(range(1 << 22), 1024)]
                            for _ in range(16)]))
    ks = kallsyms()
    if ks:
        n = len(ks)
        sets.append(("kallsyms run", [ks[o:o + 1024] for o in
                                      range(0, n - 1024, (n - 1024) // 64)]))
        sets.append(("kallsyms pick",
                     [rnd.sample(ks[o:o + 40000], 1024) for o in
                      range(0, n - 40000, (n - 40000) // 16)]))
    print("| candidate | " + " | ".join(s[0] for s in sets) +
          " | strides: mean | worst (stride) | strides over a third |")
    print("|---" * (len(sets) + 4) + "|")
    for name, h in CANDS:
        row = []
        for _, runs in sets:
            row.append("%.0f" % (sum(over(k, h) for k in runs) / len(runs)))
        res = [(over([base + s * i for i in range(1024)], h), s)
               for s in strides]
        w = max(res)
        row += ["%.0f" % (sum(r[0] for r in res) / len(res)),
                "%d (%d)" % w, "%d" % sum(1 for r in res if r[0] > 1024 // 3)]
        print("| %s | %s |" % (name, " | ".join(row)), flush=True)


main()
