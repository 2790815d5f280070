"""Runs the reference OCC simulator for the comparison in ../README.md.

Usage: python3 run_reference.py PATH/TO/backoff_simulator.py [TRIALS] [SEED] > ref.csv

The reference (aws-samples/aws-arch-backoff-simulator, src/backoff_simulator.py,
Python 2) is not part of this repository. Its model is used unchanged: this
script only executes the file without its `run()` call (and with `xrange`
aliased for Python 3), then calls its own `setup_sim` / `run_sim` for 10..50
clients, TRIALS trials each, seeding Python's `random` with SEED. It prints
our CSV format with unrounded means (the reference's own `run()` truncates
them to integers and uses 100 trials and 10..190 clients).
"""

import builtins
import random
import sys


class _Discard:
    def write(self, _text):
        pass


def main():
    path = sys.argv[1]
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    source = open(path).read().replace("\nrun()", "\n")
    builtins.xrange = range
    model = {}
    exec(compile(source, path, "exec"), model)
    random.seed(seed)
    print("clients,algorithm,mean_time_ms,mean_calls")
    for clients in (10, 20, 30, 40, 50):
        for cls, name in model["backoff_types"]:
            stats = model["Stats"]()
            total_time = 0.0
            for _ in range(trials):
                queue, stats = model["setup_sim"](clients, cls, _Discard(), stats)
                total_time += model["run_sim"](queue)
            print("%d,%s,%.3f,%.3f" % (clients, name, total_time / trials, stats.calls / trials), flush=True)


if __name__ == "__main__":
    main()
