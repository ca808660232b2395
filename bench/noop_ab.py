#!/usr/bin/env python3
"""No-op re-index of one or more git-codesearch binaries against `git status`, alternated.

Issue 22's target is a no-op `index` within 3x `git status` on the same work tree. Both are
a few tens of milliseconds, so one timing says little on a shared machine: this runs
`git status`, then each binary's `index --no-embed`, round after round (the binaries' order
reversed every other round), and prints each median and its ratio to git's. The repository
must be indexed already, and each binary's index must be current (run it once first).

    python3 bench/noop_ab.py --bins /tmp/gcs-a,/tmp/gcs-b --repo /tmp/astroP --rounds 12
"""

import argparse
import statistics
import subprocess
import time


def timed(cmd, cwd):
    """Wall time of one process in milliseconds; a failed run stops the benchmark."""
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, capture_output=True, check=True)
    return (time.perf_counter() - t) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bins", required=True, help="comma-separated binaries")
    ap.add_argument("--repo", required=True)
    ap.add_argument("--rounds", type=int, default=12)
    a = ap.parse_args()
    bins = a.bins.split(",")
    for b in bins:  # bring each index up to date, so every timed run is a no-op
        subprocess.run([b, "index", "--no-embed"], cwd=a.repo, capture_output=True, check=True)
    git, runs = [], {b: [] for b in bins}
    for r in range(a.rounds):
        git.append(timed(["git", "status", "--porcelain"], a.repo))
        for b in bins if r % 2 == 0 else bins[::-1]:
            runs[b].append(timed([b, "index", "--no-embed"], a.repo))
    g = statistics.median(git)
    print(f"git status p50 {g:.1f} ms")
    for b in bins:
        m = statistics.median(runs[b])
        print(f"{b}: no-op p50 {m:.1f} ms = {m / g:.2f}x git status")


if __name__ == "__main__":
    main()
