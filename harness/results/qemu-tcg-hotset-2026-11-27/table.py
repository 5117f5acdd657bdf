#!/usr/bin/env python3
# The hook cost (p50, cache on) at one hot probe and at 4,096, and their
# ratio, per path, from the report.md of each boot given.
# Usage: table.py NAME=REPORT_MD...
import re, sys
paths = ['ftrace', 'int3', 'kretprobe', 'opt']
print('| QEMU | ' + ' | '.join('%s 1 -> 4,096 hot' % p for p in paths) + ' |')
print('|---|' + '---|' * len(paths))
for arg in sys.argv[1:]:
    name, f = arg.split('=', 1)
    on = {}
    for l in open(f):
        m = re.match(r'^\| (\w+) \| 1 \| (\d+) \| \d+ \| \d+ \| (\d+) \|', l)
        if m and (m.group(1), m.group(2)) not in on:
            on[(m.group(1), m.group(2))] = int(m.group(3))
    cells = []
    for p in paths:
        a, b = on.get((p, '1')), on.get((p, '4096'))
        cells.append('%d -> %d (%.2fx)' % (a, b, b / a) if a and b else '-')
    print('| %s | %s |' % (name, ' | '.join(cells)))
