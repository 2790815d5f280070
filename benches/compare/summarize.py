#!/usr/bin/env python3
"""The tables of BENCHMARKS.md from results/runs.csv (collect.py's output over
several runs): each cell is the min-max of the runs' criterion medians (ns per
request); each ratio is computed within a run, then given as min-max."""
import csv, sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else "results/runs.csv")))
t = defaultdict(dict)  # (group, bench) -> run -> ns
for r in rows:
    t[(r["group"], r["bench"])][r["run"]] = float(r["median_ns"])
runs = sorted({r["run"] for r in rows})


def fmt(x):
    return f"{x:.3g}" if x < 10 else f"{x:.0f}" if x >= 100 else f"{x:.1f}"


def cell(group, bench):
    per = t.get((group, bench))
    if not per:
        return "—"
    vals = [per[r] for r in runs]
    lo, hi = min(vals), max(vals)
    return fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)}–{fmt(hi)}"


def ratio(num, den):
    try:
        vals = [t[num][r] / t[den][r] for r in runs]
    except KeyError:
        return "—"
    return f"{min(vals):.1f}–{max(vals):.1f}×"


S, F = "standard: success", "standard: one failure then success"
A, AT = "adaptive: success, limiter off", "adaptive: success, limiter on after a throttle"
AWS, REUSED = "aws-smithy-runtime", "aws-smithy-runtime, bag+context reused"
print(f"| path | threads | rebound | aws-smithy-runtime | aws, bag+context reused | tower `TpsBudget` | floor | aws / rebound |")
print("|---|---|---|---|---|---|---|---|")
for label, group, rebound, tower, floor in [
    ("standard: success", S, "rebound", "tower TpsBudget deposit", "AtomicU64::fetch_add relaxed"),
    ("standard: one failure then success", F, "rebound", "tower TpsBudget withdraw+deposit", None),
    ("adaptive: success, limiter off (default clock)", A, "rebound", None, None),
    ("adaptive: success, limiter off, `CoarseClock`", A, "rebound, CoarseClock", None, None),
    ("adaptive: success, limiter off, `SystemClock`", A, "rebound, SystemClock", None, None),
    ("adaptive: success, limiter on (virtual clock)", AT, "rebound (virtual clock +1 ms/request)", None, None),
]:
    for th in ("1 thread", "2 threads"):
        aws = "—" if group == AT else cell(group, f"{AWS}/{th}")
        reused = "—" if group == AT else cell(group, f"{REUSED}/{th}")
        tw = cell(group, f"{tower}/{th}") if tower else "—"
        fl = cell("floor", f"{floor}/{th}") if floor else "—"
        r = "—" if group == AT else ratio((group, f"{AWS}/{th}"), (group, f"{rebound}/{th}"))
        print(f"| {label} | {th[0]} | {cell(group, f'{rebound}/{th}')} | {aws} | {reused} | {tw} | {fl} | {r} |")

print()
print("| other paths (1 thread) | ns/request |")
print("|---|---|")
C, E = "classification", "executor"
for group, bench in [
    (C, "hand-written RetryInfo: classify"),
    (C, "derive(RetryInfo): classify"),
    (E, "strategy driven by hand: success"),
    (E, "Retry::run: success"),
    (E, "strategy driven by hand: one failure then success"),
    (E, "Retry::run: one failure then success"),
    (E, "direct call (no strategy)"),
]:
    print(f"| {group}: {bench} | {cell(group, bench)} |")
