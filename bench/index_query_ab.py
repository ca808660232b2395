#!/usr/bin/env python3
"""Cold lexical index time and per-process query latency of two binaries on one work tree,
alternated so that the machine's load falls on both alike.

Usage:
  python3 bench/index_query_ab.py --tree /tmp/one-astropy --bin-a OLD --bin-b NEW [--rounds 3]
                                 [--provider static]

Each binary gets its own index directory (`GIT_CODESEARCH_DIR`), so their schemas never meet.
Index: `index --no-embed` from nothing, `--rounds` times each, alternating; the median seconds
and chunks per second (chunks from `status --json`). Queries: the concept-style list below,
`--rounds` times, alternating A and B query by query; the median milliseconds per process.
With `--provider P` both index with `codesearch.embedProvider=P` and `index --wait` (vectors
embedded before the clock stops) and search with vectors on.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

QUERIES = [
    "parse configuration file",
    "retry with backoff",
    "how are errors reported to the user",
    "read a file from disk",
    "unit conversion",
    "cache invalidation",
    "command line arguments",
    "logging setup",
    "serialize to json",
    "coordinate transformation",
    "Quantity",
    "WCS",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--bin-a", required=True)
    ap.add_argument("--bin-b", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--provider", help="embed with this provider and search with vectors on")
    ap.add_argument("--json")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ab-")
    env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
               GIT_CODESEARCH_BACKGROUND="0")
    if a.provider:
        env.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="codesearch.embedProvider",
                   GIT_CONFIG_VALUE_0=a.provider)
    index_args = ["index", "-q"] + (["--wait"] if a.provider else ["--no-embed"])
    bins = {"a": os.path.abspath(a.bin_a), "b": os.path.abspath(a.bin_b)}
    envs = {k: dict(env, GIT_CODESEARCH_DIR=os.path.join(tmp, k)) for k in bins}
    index = {k: [] for k in bins}
    try:
        for _ in range(a.rounds):
            for k in bins:
                shutil.rmtree(envs[k]["GIT_CODESEARCH_DIR"], ignore_errors=True)
                t = time.perf_counter()
                subprocess.run([bins[k]] + index_args, cwd=a.tree, env=envs[k],
                               check=True, capture_output=True)
                index[k].append(time.perf_counter() - t)
        chunks = {}
        for k in bins:
            out = subprocess.run([bins[k], "status", "--json"], cwd=a.tree, env=envs[k],
                                 check=True, capture_output=True, text=True).stdout
            chunks[k] = json.loads(out)["chunks"]
        query = {k: [] for k in bins}
        for _ in range(a.rounds):
            for q in QUERIES:
                for k in bins:
                    t = time.perf_counter()
                    subprocess.run([bins[k], "search", "-q", "--no-index", "-n", "10", q],
                                   cwd=a.tree, env=envs[k], capture_output=True)
                    query[k].append((time.perf_counter() - t) * 1000)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result = {}
    for k in bins:
        secs = statistics.median(index[k])
        result[k] = {
            "bin": bins[k],
            "index_s": round(secs, 2),
            "chunks": chunks[k],
            "chunks_per_s": round(chunks[k] / secs),
            "query_p50_ms": round(statistics.median(query[k]), 1),
        }
    result["b_over_a"] = {
        "index_per_chunk": round((statistics.median(index["b"]) / chunks["b"])
                                 / (statistics.median(index["a"]) / chunks["a"]), 3),
        "query_p50": round(result["b"]["query_p50_ms"] / result["a"]["query_p50_ms"], 3),
    }
    result["load_average"] = os.getloadavg()[0]
    print(json.dumps(result, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
