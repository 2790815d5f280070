#!/usr/bin/env python3
"""Markdown tables from results/runs.csv (collect.py's output over several runs):
per benchmark the median of each run's median (ns) with min-max, and the
ratios the issue's targets name, each computed per run, reported as median (min-max)."""
import csv, statistics, sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else "results/runs.csv")))
t = defaultdict(dict)  # (group, bench) -> run -> ns
for r in rows:
    t[(r["group"], r["bench"])][r["run"]] = float(r["median_ns"])
runs = sorted({r["run"] for r in rows})

def fmt(x):
    return f"{x:.3g}" if x < 10 else f"{x:.0f}" if x >= 100 else f"{x:.1f}"

def spread(vals):
    return f"{fmt(statistics.median(vals))} ({fmt(min(vals))}–{fmt(max(vals))})"

print(f"| group | benchmark | ns/request, median of {len(runs)} runs (min–max) |")
print("|---|---|---|")
for (g, b), per in t.items():
    print(f"| {g} | {b} | {spread([per[r] for r in runs])} |")

def ratio(num, den, label):
    try:
        vals = [t[num][r] / t[den][r] for r in runs]
    except KeyError:
        return
    print(f"| {label} | {spread(vals)} |")

print()
print(f"| ratio (computed per run) | median of {len(runs)} runs (min–max) |")
print("|---|---|")
S, F = "standard: success", "standard: one failure then success"
A, AT = "adaptive: success, limiter off", "adaptive: success, limiter on after a throttle"
for th in ("1 thread", "2 threads"):
    ratio((S, f"aws-smithy-runtime/{th}"), (S, f"rebound/{th}"), f"standard success: aws-smithy-runtime / rebound, {th}")
    ratio((S, f"rebound/{th}"), ("floor", f"AtomicU64::fetch_add relaxed/{th}"), f"standard success: rebound / fetch_add, {th}")
    ratio((S, f"tower TpsBudget deposit/{th}"), (S, f"rebound/{th}"), f"standard success: tower TpsBudget deposit / rebound, {th}")
    ratio((F, f"aws-smithy-runtime/{th}"), (F, f"rebound/{th}"), f"one failure then success: aws-smithy-runtime / rebound, {th}")
    ratio((A, f"aws-smithy-runtime/{th}"), (A, f"rebound/{th}"), f"adaptive success (limiter off): aws-smithy-runtime / rebound, {th}")
    ratio((A, f"rebound/{th}"), (S, f"rebound/{th}"), f"adaptive success (limiter off) / standard success, rebound, {th}")
    ratio((A, f"aws-smithy-runtime/{th}"), (A, f"rebound, CoarseClock/{th}"), f"adaptive success (limiter off): aws-smithy-runtime / rebound on CoarseClock, {th}")
    ratio((A, f"rebound, CoarseClock/{th}"), (S, f"rebound/{th}"), f"adaptive success (limiter off) on CoarseClock / standard success, rebound, {th}")
    ratio((A, f"aws-smithy-runtime/{th}"), (A, f"rebound, TickingClock/{th}"), f"adaptive success (limiter off): aws-smithy-runtime / rebound on TickingClock, {th}")
    ratio((A, f"rebound, TickingClock/{th}"), (S, f"rebound/{th}"), f"adaptive success (limiter off) on TickingClock / standard success, rebound, {th}")
    ratio((A, f"rebound, constant clock (floor)/{th}"), (S, f"rebound/{th}"), f"adaptive success (limiter off) on a constant clock (floor) / standard success, rebound, {th}")
    R = "aws-smithy-runtime, bag+context reused"
    ratio((S, f"{R}/{th}"), (S, f"rebound/{th}"), f"standard success: aws-smithy-runtime (bag+context reused) / rebound, {th}")
    ratio((F, f"{R}/{th}"), (F, f"rebound/{th}"), f"one failure then success: aws-smithy-runtime (bag+context reused) / rebound, {th}")
    ratio((A, f"{R}/{th}"), (A, f"rebound/{th}"), f"adaptive success (limiter off): aws-smithy-runtime (bag+context reused) / rebound, {th}")
C = "classification"
ratio((C, "derive(RetryInfo): classify"), (C, "hand-written RetryInfo: classify"), "classify: derive / hand-written")
ratio((C, "derive(RetryInfo): one failure then success"), (C, "hand-written RetryInfo: one failure then success"), "one failure then success: derive / hand-written")
E = "executor"
ratio((E, "Retry::run: success"), (E, "strategy driven by hand: success"), "success: Retry::run / strategy by hand")
ratio((E, "Retry::run: one failure then success"), (E, "strategy driven by hand: one failure then success"), "one failure then success: Retry::run / strategy by hand")
