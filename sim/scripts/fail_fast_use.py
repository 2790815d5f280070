#!/usr/bin/env python3
"""How much of a fail-fast send bucket's rate Poisson demand can spend.

A token bucket refilled at `mu` tokens/s, holding at most max(mu, 1) tokens
(botocore's), fed Poisson arrivals at `lam`/s; an arrival without a whole
token is refused. Prints the share of the refill rate spent.

    fail_fast_use.py                 # equal rates: demand 1.1, 1.33, 1.5, 2x the rate
    fail_fast_use.py RATIOS_FILE     # one line per sample: each client's rate / its demand

The second form is how sim/README.md's "Why, measured" figure (93.2%) was
made: the per-client send rates of the 30-client, 2R, gentle fail-fast run
(seed 1) were printed from the simulator's per-bin sample (a temporary
print, not kept), divided by each client's demand (200/30 per second).
"""
import random
import sys


def spent(mu, lam, seconds=200_000.0, seed=1):
    """Share of the refill rate `mu` that arrivals at `lam` spend."""
    rng = random.Random(seed)
    capacity = max(mu, 1.0)
    t = tokens = 0.0
    granted = 0
    while t < seconds:
        gap = rng.expovariate(lam)
        t += gap
        tokens = min(capacity, tokens + gap * mu)
        if tokens >= 1.0:
            tokens -= 1.0
            granted += 1
    return granted / (mu * seconds)


def main():
    demand = 200 / 30
    if len(sys.argv) < 2:
        for ratio in (1.1, 1.33, 1.5, 2.0):
            print(f"demand {ratio}x the rate: {spent(demand / ratio, demand):.4f}")
        return
    used = total = 0.0
    for line in open(sys.argv[1]):
        for ratio in map(float, line.split()):
            mu = ratio * demand
            share = spent(mu, demand, seconds=3000.0) if ratio < 1 else demand / mu
            used += share * mu
            total += mu
    print(f"spent {used / total:.3f} of the summed rate")


if __name__ == "__main__":
    main()
