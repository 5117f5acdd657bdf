# Instructions and taken branches of get_kprobe_cached() along its hit and
# bypass paths, in this directory's listings (the series) and in those of
# ../miss-out-of-line-2026-11-27 (patch 32 with unlikely(), identical to
# the series with -Os); address ranges read off the listings.
# Usage: python3 count.py
import os, re
here = os.path.dirname(os.path.abspath(__file__))
old = os.path.join(here, '..', 'miss-out-of-line-2026-11-27')
def load(f):
    ins = []
    for l in open(f):
        m = re.match(r'^\s+([0-9a-f]+):\t(\S+)', l)
        if m:
            ins.append((int(m.group(1), 16), m.group(2)))
    return ins
def count(f, ranges):
    ins = load(f)
    addrs = [x for x, o in ins]
    n = taken = 0
    for i, (a, b) in enumerate(ranges):
        n += len([x for x in addrs if int(a, 16) <= x <= int(b, 16)])
        # the next range does not start right after this one: the branch
        # that ends this one is taken
        if i + 1 < len(ranges):
            after = addrs[addrs.index(int(b, 16)) + 1]
            taken += int(ranges[i + 1][0], 16) != after
    return n, taken
P = [
    ('-O2 hit, unlikely()', os.path.join(old, 'patch32-O2.txt'),
     [('2f0', '318'), ('31a', '361'), ('3a4', '3a8'), ('36d', '386')]),
    ('-O2 hit, likely()', os.path.join(here, 'get_kprobe_cached-O2.txt'),
     [('2f0', '310'), ('326', '36d'), ('39b', '39f'), ('379', '391')]),
    ('-O2 bypass, unlikely()', os.path.join(old, 'patch32-O2.txt'),
     [('2f0', '318'), ('38b', '39a')]),
    ('-O2 bypass, likely()', os.path.join(here, 'get_kprobe_cached-O2.txt'),
     [('2f0', '321')]),
    ('-Os hit, likely()', os.path.join(here, 'get_kprobe_cached-Os.txt'),
     [('2f3', '313'), ('329', '376'), ('381', '38f'), ('396', '39e')]),
    ('-Os bypass, likely()', os.path.join(here, 'get_kprobe_cached-Os.txt'),
     [('2f3', '324')]),
]
for name, f, r in P:
    n, t = count(f, r)
    print('%-24s instructions %2d  taken branches before the exit %d' % (name, n, t))
