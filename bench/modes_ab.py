#!/usr/bin/env python3
"""Per-process latency of two or more git-codesearch binaries on one repository, per mode.

Runs a fixed list of questions in each mode with each binary, alternating the binaries'
order every round so that neither always runs on a warmer machine, and prints the median
wall time per process. The repository must be indexed already (with vectors on, to time
`vector` and a hybrid search that uses them).

    python3 bench/modes_ab.py --bins /tmp/gcs-a,/tmp/gcs-b --repo /tmp/flask --modes vector,hybrid,bm25
"""

import argparse
import statistics
import subprocess
import time

QUERIES = [
    "register a blueprint",
    "where is the session cookie signed",
    "url_for",
    "how are template filters registered",
    "json response encoding",
    "teardown request context",
    "config from environment variable",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bins", required=True, help="comma-separated binaries")
    ap.add_argument("--repo", required=True)
    ap.add_argument("--modes", default="hybrid,bm25")
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    bins, modes = a.bins.split(","), a.modes.split(",")
    times = {(b, m): [] for b in bins for m in modes}
    for r in range(a.rounds):
        for q in QUERIES:
            for m in modes:
                for b in bins if r % 2 == 0 else bins[::-1]:
                    t = time.perf_counter()
                    subprocess.run([b, "--mode", m, "-l", q], cwd=a.repo, capture_output=True)
                    times[(b, m)].append((time.perf_counter() - t) * 1000)
    for m in modes:
        row = "  ".join(f"{b}: {statistics.median(times[(b, m)]):.1f} ms" for b in bins)
        print(f"{m:7s} p50  {row}")


if __name__ == "__main__":
    main()
