#!/usr/bin/env python3
# Where QEMU's time goes while the guest measures one hot probe and while
# it measures 4,096: perf's cpu-clock samples of the QEMU process, split at
# the host times at which QEMU wrote the guest's progress lines to the
# results file (perf also records QEMU's write() and writev() calls: the
# n-th byte of that file is the n-th byte QEMU wrote to its descriptor).
# Usage: profile.py PERF_DATA RESULTS_LOG
import collections, os, re, subprocess, sys

data, log = sys.argv[1:3]
raw = open(log, 'rb').read()

out = subprocess.run(['perf', 'script', '-i', data, '-F', 'time,event,ip,sym,dso,trace'],
                     capture_output=True, text=True, check=True).stdout
writes = collections.defaultdict(list)   # fd -> [(time, end offset)]
samples = []
for l in out.splitlines():
    # write() gives its byte count; QEMU's serial port writes its file
    # with one writev() per byte, whose vector of one element has no
    # length in the trace: it counts as one byte, which the check of the
    # total below confirms.
    m = re.match(r'^\s*([0-9.]+):\s+syscalls:sys_enter_write:.*fd: 0x([0-9a-f]+).*count: 0x([0-9a-f]+)', l)
    if not m:
        m = re.match(r'^\s*([0-9.]+):\s+syscalls:sys_enter_writev:.*fd: 0x([0-9a-f]+).*vlen: 0x(0*1)\b', l)
    if m:
        fd = int(m.group(2), 16)
        n = int(m.group(3), 16)
        end = (writes[fd][-1][1] if writes[fd] else 0) + n
        writes[fd].append((float(m.group(1)), end))
        continue
    m = re.match(r'^\s*([0-9.]+):\s+cpu-clock\S*:\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$', l)
    if m:
        samples.append((float(m.group(1)), m.group(2), m.group(3)))
# The results file's descriptor: the one that wrote its size, give or
# take the last few bytes (the guest's last line may not be complete
# when the file is copied).
fds = [fd for fd, w in writes.items() if abs(w[-1][1] - len(raw)) <= 64]
if len(fds) != 1:
    sys.exit('no single descriptor wrote %d bytes: %s' %
             (len(raw), {fd: w[-1][1] for fd, w in writes.items()}))
w = writes[fds[0]]

def host_time(offset):
    """When QEMU wrote the byte at offset of the results file."""
    for t, end in w:
        if end > offset:
            return t
    return w[-1][0]

marks = []
pos = 0
for line in raw.split(b'\n'):
    m = re.match(rb'^# \[\s*([0-9.]+)s\] (.*)', line)
    if m:
        marks.append((host_time(pos + len(line)), m.group(2).decode()))
    pos += len(line) + 1

def first(pat):
    return min(t for t, s in marks if re.search(pat, s))

def last(pat):
    return max(t for t, s in marks if re.search(pat, s))

# H = 1: from the fill probes' registration to the end of the first
# measurement; H = 4,096: from the last path armed with 4,096 to the end
# of the second measurement (every path is armed before any is measured).
windows = [('H=1', first(r'fill probes registered'), first(r'measured')),
           ('H=4096', last(r': 4096 probes armed'), last(r'measured'))]

CATS = [
    ('TB lookup (jump cache, hash table)',
     r'^(helper_lookup_tb_ptr|tb_htable_lookup|qht_lookup_custom|tb_lookup_cmp|'
     r'qht_.*|tb_cmp|cpu_get_tb_cpu_state|tb_jmp_cache.*|tb_lookup|'
     r'tb_jmp_cache_clear_page|tcg_flush_jmp_cache)$'),
    ('softmmu TLB (fill, flush, page walk)',
     r'^(tlb_fill|x86_cpu_tlb_fill|mmu_translate|get_physical_address|'
     r'tlb_set_page.*|victim_tlb_hit|probe_access.*|ptw_.*|'
     r'address_space_translate.*|flatview_.*|x86_ld.*_phys|tlb_flush.*|'
     r'tlb_reset_dirty.*|get_page_addr_code.*|handle_mmu_fault|'
     r'cpu_ld.*_code.*|tlb_mmu_resize_locked|memset.*|__memset.*)$'),
    ('load/store slow paths',
     r'^(helper_(le|be)_(ld|st).*|helper_ret_.*|load_helper|store_helper|'
     r'full_(le|be)_.*|do_(ld|st).*mmu.*|cpu_(ld|st).*_mmu.*|'
     r'address_space_(ld|st).*|io_readx|io_writex)$'),
    ('translation', r'^(tb_gen_code|gen_intermediate_code|translator_.*|disas_insn|'
     r'tcg_.*|i386_tr_.*|gen_.*|la_.*|liveness_.*|reachable_code_pass)$'),
]

def cat(sym, dso):
    if re.search(r'perf-[0-9]+\.map', dso):
        return 'guest code (translated blocks)'
    for name, pat in CATS:
        if re.match(pat, sym):
            return name
    return 'other'

print('results file: descriptor %d, %d writes' % (fds[0], len(w)))
# Both windows make the same calls (the same LOOPS, probed and twin): a
# sample's worth of host time is comparable between them.
secs = {}
for name, a, b in windows:
    c = collections.Counter()
    for t, sym, dso in samples:
        if a <= t <= b:
            c[(sym, dso)] += 1
    n = sum(c.values())
    print('## %s: %.2f s of host time, %d samples' % (name, b - a, n))
    if not n:
        continue
    cc = collections.Counter()
    for (s, d), k in c.items():
        cc[cat(s, d)] += k
    for cname, k in cc.most_common():
        print('  %-40s %5.1f%%' % (cname, 100.0 * k / n))
    print('  top symbols:')
    for (s, d), k in c.most_common(15):
        print('    %-40s %5.1f%%  %s' % (s[:40], 100.0 * k / n, os.path.basename(d)[:24]))
    per = (b - a) / n
    secs[name] = ({k: v * per for k, v in cc.items()},
                  {s: v * per for (s, d), v in c.items()})
if len(secs) == 2:
    (c1, s1), (c2, s2) = secs['H=1'], secs['H=4096']
    grow = sum(c2.values()) - sum(c1.values())
    print('## host seconds, H=1 -> H=4096, and the share of the growth')
    for k in sorted(set(c1) | set(c2), key=lambda k: -(c2.get(k, 0) - c1.get(k, 0))):
        d = c2.get(k, 0) - c1.get(k, 0)
        print('  %-40s %6.2f -> %6.2f  %+6.2f  %5.1f%%' % (k, c1.get(k, 0), c2.get(k, 0), d, 100 * d / grow))
    print('  top symbols:')
    top = sorted(set(s1) | set(s2), key=lambda k: -(s2.get(k, 0) - s1.get(k, 0)))[:8]
    for k in top:
        d = s2.get(k, 0) - s1.get(k, 0)
        print('    %-38s %6.2f -> %6.2f  %+6.2f  %5.1f%%' % (k[:38], s1.get(k, 0), s2.get(k, 0), d, 100 * d / grow))
