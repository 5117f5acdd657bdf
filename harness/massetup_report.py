#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mass setup table: massetup_report.py LABEL=LOG [LABEL=LOG...]

Reads the "MS n=N phase=P s=S ..." lines that harness/massetup/
guest-massetup.sh prints (a boot's results.log or make massetup's
massetup.txt), one log per kernel, and prints one markdown table: per N,
per kernel, per kind (kprobe events, fprobe events, BPF kprobe_multi),
the seconds of each phase, and the hits counted in the armed loop; after
the kprobe events' define (one write per event on one open file, as perf
probe does), what a shell loop writing the same lines to a tmpfs file
takes (what a shell script adds).  Exits 1 when a log has no MS line.
"""
import re
import sys

KINDS = [
    # name, (define, enable, armed, disable, remove), idle phase
    ("kprobe events", ("define", "enable", "armed", "disable", "remove"), "idle"),
    ("fprobe events", ("fprobe-define", "fprobe-enable", "fprobe-armed",
                       "fprobe-disable", "fprobe-remove"), "idle"),
    ("BPF kprobe_multi", ("kmulti-attach", None, "kmulti-armed", None,
                          "kmulti-detach"), "loop-forked"),
]


def parse(path):
    """{n: {phase: (seconds, {key: value})}} and {n: {peer: why skipped}}"""
    phases, skipped = {}, {}
    with open(path, errors="replace") as f:
        for line in f:
            if not line.startswith("MS "):
                continue
            kv = dict(re.findall(r"(\S+?)=(\S+)", line))
            if "n" not in kv:
                continue
            n = int(kv["n"])
            if "phase" in kv and "s" in kv:
                phases.setdefault(n, {})[kv["phase"]] = (kv["s"], kv)
            elif "skipped" in kv:
                skipped.setdefault(n, {})[kv.get("peer", "?")] = kv["skipped"]
    return phases, skipped


def main(argv):
    logs = []
    for arg in argv:
        label, _, path = arg.partition("=")
        if not path:
            sys.exit(f"usage: {sys.argv[0]} LABEL=LOG [LABEL=LOG...]")
        logs.append((label, *parse(path)))
    bad = [label for label, phases, _ in logs if not phases]
    if bad:
        print(f"massetup_report: no MS lines for {', '.join(bad)}",
              file=sys.stderr)
        return 1
    print("| N | kernel | kind | define / attach | enable | syscall loop "
          "armed (idle), hits | disable | remove / detach |")
    print("|---|---|---|---|---|---|---|---|")
    ns = sorted({n for _, phases, _ in logs for n in phases})
    for n in ns:
        for label, phases, skipped in logs:
            p = phases.get(n, {})
            for kind, cols, idle in KINDS:
                if not any(c in p for c in cols if c):
                    why = skipped.get(n, {}).get(
                        "fprobe" if kind.startswith("fprobe") else "kprobe_multi")
                    if why and kind != "kprobe events":
                        print(f"| {n:,} | {label} | {kind} | not run: {why} "
                              "| | | | |")
                    continue
                cells = []
                for i, c in enumerate(cols):
                    if c is None:
                        cells.append("-")
                        continue
                    s = p.get(c, ("?", {}))[0]
                    if i == 0:
                        extra = p.get(c, ("", {}))[1]
                        count = extra.get("events") or extra.get("functions")
                        if count and int(count) != n:
                            s += f" ({count} placed)"
                        if c == "define" and "define-shell" in p:
                            s += f", shell {p['define-shell'][0]}"
                    if i == 2 and idle in p:
                        s += f" ({p[idle][0]})"
                    if i == 2 and "hits" in p.get(c, ("", {}))[1]:
                        s += f", {int(p[c][1]['hits']):,} hits"
                    cells.append(s)
                print(f"| {n:,} | {label} | {kind} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
