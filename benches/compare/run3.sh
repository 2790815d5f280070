#!/bin/sh
# Three full benchmark runs, medians collected into results/runs.csv.
set -e
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
echo "run,group,bench,median_ns" > results/runs.csv
for run in 1 2 3; do
    rm -rf "$CARGO_TARGET_DIR/criterion"
    cargo bench --bench compare
    ./collect.py "$run" >> results/runs.csv
done
