#!/usr/bin/env python3
"""Per-process query latency of several binaries on one index that already exists, alternated
query by query so that the machine's load falls on all alike; with and without vectors.

Usage:
  python3 bench/query_ab.py --tree /tmp/one-astropy --index-dir DIR --bins OLD,NEW \\
                            [--providers static,none] [--rounds 5]

DIR is a `GIT_CODESEARCH_DIR` that a binary of the same schema filled, e.g. with
`GIT_CODESEARCH_DIR=DIR GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=codesearch.embedProvider
GIT_CONFIG_VALUE_0=static git-codesearch index --wait` in the tree. Each query runs
`search -q --no-index -n 10`, with `codesearch.embedProvider` set to each provider in turn
(`none`: lexical). Prints the median milliseconds per binary and provider. Unlike
`bench/index_query_ab.py` it neither indexes nor deletes anything, so a step that changes
only the search path is measured in a minute.
"""

import argparse
import os
import statistics
import subprocess
import time

from index_query_ab import QUERIES


def search_env(index_dir):
    """The environment of a search on the index in `index_dir`, with no user or system git
    config; the embedding provider is `GIT_CONFIG_VALUE_0`, for the caller to set."""
    return dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
                GIT_CODESEARCH_BACKGROUND="0", GIT_CODESEARCH_DIR=index_dir,
                GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="codesearch.embedProvider")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("--bins", required=True, help="comma-separated binaries")
    ap.add_argument("--providers", default="static,none")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    bins = [os.path.abspath(b) for b in a.bins.split(",")]
    providers = a.providers.split(",")
    env = search_env(a.index_dir)
    ms = {}
    for _ in range(a.rounds):
        for q in QUERIES:
            for p in providers:
                for b in bins:
                    t = time.perf_counter()
                    subprocess.run([b, "search", "-q", "--no-index", "-n", "10", q], cwd=a.tree,
                                   env=dict(env, GIT_CONFIG_VALUE_0=p), capture_output=True)
                    ms.setdefault((p, b), []).append((time.perf_counter() - t) * 1000)
    for (p, b), v in ms.items():
        print(f"{p:<8} {statistics.median(v):6.1f} ms  {b}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
