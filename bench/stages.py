#!/usr/bin/env python3
"""Where one search spends its time, stage by stage: the median milliseconds between the
trace points (`GIT_CODESEARCH_TRACE=1`) of a few searches, with and without vectors.

Usage:
  python3 bench/stages.py --tree /tmp/one-astropy --index-dir DIR --bin BIN
                          [--providers none,static] [--rounds 5]

DIR as for `bench/query_ab.py`. A stage's time is the time from the trace point before it;
a trace point missing from a search (another path) leaves its stage out there. The times
are inside `main`: process start and exit are not in them (compare with
`bench/query_ab.py`'s per-process figure).
"""

import argparse
import collections
import re
import statistics
import subprocess

from query_ab import search_env

QUERIES = [
    "how are errors reported to the user",
    "coordinate transformation",
    "read a file from disk",
    "cache invalidation",
    "logging setup",
    "serialize to json",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--providers", default="none,static")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    env = dict(search_env(a.index_dir), GIT_CODESEARCH_TRACE="1")
    for p in a.providers.split(","):
        stages = collections.defaultdict(list)
        for _ in range(a.rounds):
            for q in QUERIES:
                err = subprocess.run([a.bin, "search", "-q", "--no-index", "-n", "10", q],
                                     cwd=a.tree, env=dict(env, GIT_CONFIG_VALUE_0=p),
                                     capture_output=True, text=True).stderr
                prev = 0.0
                for line in err.splitlines():
                    m = re.match(r"\s*([0-9.]+)s DEBUG (.*)", line)
                    if not m:
                        continue
                    t, name = float(m.group(1)), re.sub(r" \w+=\S+", "", m.group(2)).strip()
                    stages[name].append((t - prev) * 1000)
                    prev = t
                stages["total in main"].append(prev * 1000)
        print(p)
        for name, v in stages.items():
            print(f"  {name:<32} {statistics.median(v):6.2f} ms")


if __name__ == "__main__":
    main()
