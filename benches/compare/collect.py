#!/usr/bin/env python3
"""Reads criterion's medians (ns) under $CARGO_TARGET_DIR/criterion into a CSV line set.

Usage: collect.py RUN_LABEL >> results/runs.csv   (columns: run,group,bench,median_ns)
"""
import json, os, sys, pathlib

root = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", "target")) / "criterion"
label = sys.argv[1]
for est in sorted(root.glob("**/new/estimates.json")):
    bench = json.loads((est.parent / "benchmark.json").read_text())
    median = json.loads(est.read_text())["median"]["point_estimate"]
    print(f'{label},"{bench["group_id"]}","{bench["function_id"]}",{median:.3f}')
