"""Replays an adaptive client's trace through botocore's own adaptive-mode classes.

Usage: python3 botocore_trace.py outage_trace.csv [STRATEGY] > replay.csv

botocore is not part of this repository: install it (`pip install botocore`,
or `pip download --no-deps botocore` and put the unpacked wheel on
PYTHONPATH). Its classes are used unchanged: `ClientRateLimiter`,
`TokenBucket`, `CubicCalculator` and `RateClocker` (botocore.retries.adaptive,
bucket, throttling), wired as
`botocore.retries.adaptive.register_retry_handler` wires them, on a fake
clock that reads the trace's times, with a throttling detector that reads
the trace's verdict.

The trace (`rebound-sim outage --out DIR` writes DIR/outage_trace.csv) holds
every attempt client 0 sent and every answer it got, with rebound's send
rate after each. For each run of STRATEGY (default "adaptive (AWS-exact)")
this script feeds the same answers to botocore's limiter at the same times,
and at each send asks botocore's bucket for a token without blocking, as
its before-send hook would. It prints, per run: the responses, how many
times botocore's fill rate differs from rebound's send rate while the
limiter is on (and the largest relative difference), whether the limiter
turns on at the same response, how many of the sends botocore's bucket
would have held back, and botocore's rate when the service recovers
(RECOVERY seconds, default 20).
"""

import csv
import sys

from botocore.exceptions import CapacityNotAvailableError
from botocore.retries import adaptive, bucket, throttling


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def current_time(self):
        return self.now

    def sleep(self, amount):
        raise AssertionError("the replay never blocks")


class TraceVerdict:
    """Stands in for botocore's ThrottlingErrorDetector: the trace says."""

    def __init__(self):
        self.throttled = False

    def is_throttling_error(self, **kwargs):
        return self.throttled


def botocore_limiter(clock, verdict):
    """botocore.retries.adaptive.register_retry_handler's wiring, on `clock`."""
    rate_adjustor = throttling.CubicCalculator(
        starting_max_rate=0, start_time=clock.current_time()
    )
    token_bucket = bucket.TokenBucket(max_rate=1, clock=clock)
    rate_clocker = adaptive.RateClocker(clock)
    limiter = adaptive.ClientRateLimiter(
        rate_adjustor=rate_adjustor,
        rate_clocker=rate_clocker,
        token_bucket=token_bucket,
        throttling_detector=verdict,
        clock=clock,
    )
    return limiter, token_bucket


def replay(events, recovery):
    clock = FakeClock()
    verdict = TraceVerdict()
    limiter, token_bucket = botocore_limiter(clock, verdict)
    stats = {
        "responses": 0,
        "sends": 0,
        "held_back": 0,
        "rate_compared": 0,
        "rate_differs": 0,
        "worst_rel_diff": 0.0,
        "on_mismatch": 0,
        "rate_at_recovery": None,
        "rebound_at_recovery": None,
    }
    rebound_rate = None
    for time, event, send_rate in events:
        if stats["rate_at_recovery"] is None and time >= recovery:
            stats["rate_at_recovery"] = token_bucket.max_rate if limiter._enabled else "off"
            stats["rebound_at_recovery"] = rebound_rate if rebound_rate is not None else "off"
        clock.now = time
        if event == "send":
            stats["sends"] += 1
            if limiter._enabled:
                try:
                    token_bucket.acquire(block=False)
                except CapacityNotAvailableError:
                    stats["held_back"] += 1
            continue
        verdict.throttled = event == "throttle"
        limiter.on_receiving_response()
        stats["responses"] += 1
        rebound_rate = send_rate
        if (send_rate is not None) != limiter._enabled:
            stats["on_mismatch"] += 1
        if send_rate is not None and limiter._enabled:
            stats["rate_compared"] += 1
            ours = token_bucket.max_rate
            if ours != send_rate:
                stats["rate_differs"] += 1
                rel = abs(ours - send_rate) / max(abs(send_rate), 1e-300)
                stats["worst_rel_diff"] = max(stats["worst_rel_diff"], rel)
    return stats


def main():
    path = sys.argv[1]
    strategy = sys.argv[2] if len(sys.argv) > 2 else "adaptive (AWS-exact)"
    recovery = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
    runs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["strategy"] != strategy:
                continue
            rate = float(row["send_rate"]) if row["send_rate"] else None
            runs.setdefault(row["outage_answer"], []).append(
                (float(row["t_s"]), row["event"], rate)
            )
    columns = [
        "outage_answer", "responses", "sends", "held_back", "rate_compared",
        "rate_differs", "worst_rel_diff", "on_mismatch", "rate_at_recovery",
        "rebound_at_recovery",
    ]
    print(",".join(columns))
    for answer, events in runs.items():
        stats = replay(events, recovery)
        print(",".join([answer] + [str(stats[c]) for c in columns[1:]]))


if __name__ == "__main__":
    main()
