#!/usr/bin/env python3
# The lookup cache's miss policy on one CPU, without timing: 256 sets of 4
# ways, bimodal insertion (a miss into a full set replaces way
# inserts % 4 once in 16 such misses), windows of 256 misses, a bypass of
# 4,096 lookups after a window with fewer hits than misses and at least
# half of its misses finding their set full.  Rules:
#   one   the bypass starts after one such window (patches 20-28)
#   two   after two in a row; once a bypass has ended, one more such window
#         starts the next (patch 29)
# Hot sets of H random addresses (uniform sets), looked up round robin,
# each round starting with an empty cache and a fresh window (as each
# round of kprobe_bench does): 3 rounds of 4,000 lookups, and one long
# round of 40,000.  Per H, the mean over 100 hot sets.
# Usage: window-model.py   (about a minute)
import random


def run(sets, lookups, rule):
    cache = [[] for _ in range(256)]
    h = len(sets)
    inserts = w_miss = w_full = w_hits = hits = misses = bypassed = 0
    bypass = 0
    thrashed = False
    bypasses = 0
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
        if rule == "one":
            start = t
        else:
            start = t and thrashed
            thrashed = t
        if start:
            bypass = 4096
            bypasses += 1
    return hits, misses, bypassed, bypasses


def main():
    rnd = random.Random(1)
    print("| H | rule | 3 x 4,000: hits | misses | bypassed | rounds with a bypass "
          "| 40,000: hits | misses | bypassed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for h in (512, 768, 1024, 1280, 1536, 2048, 4096):
        hot = [[rnd.randrange(256) for _ in range(h)] for _ in range(100)]
        for rule in ("one", "two"):
            a = [0, 0, 0, 0]
            b = [0, 0, 0]
            for sets in hot:
                for _ in range(3):
                    r = run(sets, 4000, rule)
                    a[0] += r[0]
                    a[1] += r[1]
                    a[2] += r[2]
                    a[3] += r[3] > 0
                r = run(sets, 40000, rule)
                for j in range(3):
                    b[j] += r[j]
            n = len(hot)
            print("| %d | %s | %.0f | %.0f | %.0f | %.0f%% | %.0f | %.0f | %.0f |"
                  % (h, rule, a[0] / n, a[1] / n, a[2] / n, a[3] / (3 * n) * 100,
                     b[0] / n, b[1] / n, b[2] / n), flush=True)


main()
