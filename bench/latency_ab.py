#!/usr/bin/env python3
"""Query latency of two git-codesearch binaries, alternating query by query.

This machine is shared, so absolute latencies move between sessions; running the old and
the new binary on the same query back to back (in alternating order) makes the comparison
fair. Uses the indexes a `bench/eval.py --work DIR` run left (one per repository, holding
every commit of the set), searches each query at its commit (`--branch detached/<commit>`)
and prints the median per process overall and per repository.

    python3 bench/latency_ab.py --set ../shared/eval/dev.jsonl --mirrors /work/.mirror \
        --work /tmp/evalwork --bin-a /tmp/git-codesearch-before --bin-b target/release/git-codesearch [--limit 20]
"""

import argparse
import collections
import json
import os
import statistics
import subprocess
import time

from eval import mirror_dir, reuse_setup


def run_once(binary, cwd, env, item, mode, limit=50):
    """Milliseconds for one search process."""
    t = time.perf_counter()
    subprocess.run([binary, "search", "--json", "-q", "--no-index", "-n", str(limit), "--mode", mode,
                    "--branch", "detached/" + item["commit"], "--", item["query"]],
                   cwd=cwd, env=env, capture_output=True, check=False)
    return (time.perf_counter() - t) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True)
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--work", required=True, help="the --work directory of an earlier eval.py run")
    ap.add_argument("--bin-a", required=True)
    ap.add_argument("--bin-b", required=True)
    ap.add_argument("--mode", default="hybrid")
    ap.add_argument("--limit", type=int, default=50, help="-n of each search (eval.py's is 50; the default list is 20)")
    args = ap.parse_args()
    bins = [os.path.abspath(args.bin_a), os.path.abspath(args.bin_b)]
    items = [json.loads(line) for line in open(args.set)]
    times = {b: collections.defaultdict(list) for b in bins}
    setups = {}
    for n, item in enumerate(items):
        repo = item["repo"]
        if repo not in setups:
            gitdir = mirror_dir(args.mirrors, repo)
            setups[repo] = gitdir and reuse_setup(args.work, gitdir, repo)
        if not setups[repo]:
            continue
        wt, env = setups[repo]
        for b in bins if n % 2 == 0 else reversed(bins):
            times[b][repo].append(run_once(b, wt, env, item, args.mode, args.limit))
    a, b = bins
    overall = {x: statistics.median([t for ts in times[x].values() for t in ts]) for x in bins}
    print(f"median per process, {args.mode}: A {overall[a]:.1f} ms, B {overall[b]:.1f} ms "
          f"(B/A {overall[b] / overall[a]:.2f})")
    print("| repository | A ms | B ms |\n|---|---|---|")
    for repo in sorted(times[a], key=lambda r: statistics.median(times[a][r])):
        print(f"| {repo} | {statistics.median(times[a][repo]):.1f} | {statistics.median(times[b][repo]):.1f} |")


if __name__ == "__main__":
    main()
