#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables of harness/peers.sh from the guest's results.log.

Usage: peers_report.py RESULTS_LOG OUTDIR [--title TEXT] [--note TEXT]...

Reads the PEERS lines of the guest script (harness/peers/guest-peers.sh)
and writes OUTDIR/peers.tsv (one row per run) and OUTDIR/peers.md (a
summary per mode, then every run).  The overhead of a run is its p50 (p99)
minus the mean p50 (p99) of the unprobed runs just before and after it in
the same boot, so that drift of the emulator shows up as little as
possible.  Exits 1 when the log holds no run, or any run failed.
"""

import argparse
import re
import statistics
import sys

SCRIPT = "50-peers.sh"
MODE_TEXT = {
    "none": "none (no probe)",
    "kstats-fn": "kstats function (kretprobe)",
    "kstats-sec": "kstats section (2 kprobes)",
    "kstats-tp": "kstats tracepoint pair (raw_syscalls)",
    "bpf-kprobe": "BPF kprobe + kretprobe",
    "bpf-fentry": "BPF fentry + fexit",
    "hist": "ftrace hist trigger + synthetic event",
}
NUMS = ("calls", "n", "p50", "p99", "mean", "min", "max", "samples")


def parse_line(line):
    """The fields of one PEERS line; why= runs to the end of the line."""
    why = ""
    m = re.search(r" why=(.*)$", line)
    if m:
        why = m.group(1).strip()
        line = line[: m.start()]
    run = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    for k in NUMS:
        if k in run:
            run[k] = int(run[k])
    run["why"] = why
    return run


def read_log(path):
    runs, diags, rc, inside = [], [], None, False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line == "### BEGIN " + SCRIPT:
                inside = True
            elif line.startswith("### END " + SCRIPT):
                inside = False
                rc = line.rsplit("rc=", 1)[-1]
            elif inside and line.startswith("PEERS "):
                runs.append(parse_line(line))
            elif inside and line.startswith("# "):
                diags.append(line[2:])
    return runs, diags, rc


def baselines(runs):
    """Mean p50 and p99 of the unprobed runs around each run."""
    for i, r in enumerate(runs):
        if r["mode"] == "none" or r.get("status") != "ok":
            continue
        near = []
        for step in (-1, 1):
            j = i + step
            while 0 <= j < len(runs):
                if runs[j]["mode"] == "none" and runs[j].get("status") == "ok":
                    near.append(runs[j])
                    break
                j += step
        if not near:
            continue
        r["base_p50"] = statistics.mean(x["p50"] for x in near)
        r["base_p99"] = statistics.mean(x["p99"] for x in near)
        r["over_p50"] = r["p50"] - r["base_p50"]
        r["over_p99"] = r["p99"] - r["base_p99"]


def fmt(v, nd=0):
    if v is None or v == "":
        return "-"
    if isinstance(v, float) and nd:
        return f"{v:,.{nd}f}"
    return f"{round(v):,}"


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("outdir")
    ap.add_argument("--title", default="Per-call overhead of one probed function")
    ap.add_argument("--note", action="append", default=[])
    a = ap.parse_args()

    runs, diags, rc = read_log(a.log)
    if not runs:
        print(f"peers_report: no PEERS line in {a.log}", file=sys.stderr)
        return 1
    baselines(runs)

    cols = ["mode", "round", "calls", "n", "p50", "p99", "mean", "min", "max",
            "base_p50", "base_p99", "over_p50", "over_p99", "samples",
            "status", "why"]
    with open(f"{a.outdir}/peers.tsv", "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in runs:
            f.write("\t".join(
                (f"{r[c]:.1f}" if isinstance(r.get(c), float) else str(r.get(c, "")))
                for c in cols) + "\n")

    order = []
    for r in runs:
        if r["mode"] not in order:
            order.append(r["mode"])
    fn_over = med(r.get("over_p50") for r in runs if r["mode"] == "kstats-fn")

    md = [f"# {a.title}", ""]
    md += [f"- {n}" for n in a.note]
    md += [f"- guest: {d}" for d in diags
           if re.match(r"(kernel|clocksource|BTF|section mode|tracepoint mode|fentry mode|bpf-\w+: funclat)", d)]
    md += ["", "Median over the rounds, ns per call as seen from user space "
           "(clock_gettime around each syscall(SYS_getpid)); overhead = "
           "the run minus the mean of the unprobed runs on either side of it; "
           "samples = what the mode's own histogram counted, of the calls made "
           "while it was attached.", "",
           "| mode | p50 | p99 | mean | overhead p50 | overhead p99 | "
           "overhead p50 / kstats function | samples / calls | status |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    failed = 0
    for mode in order:
        rs = [r for r in runs if r["mode"] == mode]
        ok = [r for r in rs if r.get("status") == "ok"]
        states = sorted({r.get("status", "?") for r in rs})
        failed += sum(1 for r in rs if r.get("status") == "FAIL")
        name = MODE_TEXT.get(mode, mode)
        if not ok:
            why = next((r["why"] for r in rs if r["why"]), "")
            if "skip" in states:
                # For the caller: a mode that did not run is no pass.
                print(f"skipped: {mode}: {why}")
            md.append(f"| {name} | - | - | - | - | - | - | - | "
                      f"{'/'.join(states)}: {why} |")
            continue
        op50 = med(r.get("over_p50") for r in ok)
        op99 = med(r.get("over_p99") for r in ok)
        ratio = "-"
        if mode != "none" and op50 is not None and fn_over:
            ratio = f"{op50 / fn_over:.2f}x"
        if mode == "none":
            cnt = f"{len(ok)} runs, p50 {min(r['p50'] for r in ok):,}-{max(r['p50'] for r in ok):,}"
        else:
            cnt = (f"{sum(r['samples'] for r in ok):,} / "
                   f"{sum(r['calls'] for r in ok):,}")
        md.append(
            f"| {name} | {fmt(med(r['p50'] for r in ok))} | "
            f"{fmt(med(r['p99'] for r in ok))} | {fmt(med(r['mean'] for r in ok))} | "
            f"{fmt(op50) if mode != 'none' else '-'} | "
            f"{fmt(op99) if mode != 'none' else '-'} | {ratio} | {cnt} | "
            f"{'/'.join(states)} |")

    md += ["", "Every run, in boot order:", "",
           "| # | mode | round | p50 | p99 | mean | overhead p50 | "
           "overhead p99 | calls | samples | status |",
           "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for i, r in enumerate(runs, 1):
        st = r.get("status", "?") + (f": {r['why']}" if r["why"] else "")
        md.append(
            f"| {i} | {r['mode']} | {r.get('round', '')} | {fmt(r.get('p50'))} | "
            f"{fmt(r.get('p99'))} | {fmt(r.get('mean'))} | {fmt(r.get('over_p50'))} | "
            f"{fmt(r.get('over_p99'))} | {fmt(r.get('calls'))} | "
            f"{fmt(r.get('samples')) if r['mode'] != 'none' else '-'} | {st} |")
    md += ["", f"Guest script exit status: {rc}."]
    with open(f"{a.outdir}/peers.md", "w") as f:
        f.write("\n".join(md) + "\n")
    if failed or rc != "0":
        print(f"peers_report: {failed} failed runs, guest rc={rc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
