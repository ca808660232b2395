#!/usr/bin/env python3
"""Benchmark git-codesearch on a real repository, next to git's own commands in the same run.

Usage:
  python3 bench/bench.py --git-dir PATH/TO/repo.git --rev-a v8.0.0 [--rev-b v8.0.1]
                         [--bin target/release/git-codesearch] [--json out.json]

It checks REV_A out into a temporary worktree (no network), then reports:
  cold index: seconds, files/s, chunks/s, MB/s; index size / source size;
  no-op re-index vs `git status` (ratio);
  embedding: chunks embedded per second by the configured model within --embed-secs;
  query latency p50/p95 for --mode bm25 and --mode hybrid vs `git grep -c` for the same words,
  per process and inside one `git codesearch mcp` session (model loaded once);
  with --rev-b: index after switching to REV_B and back, vs the cold index, with the number of
  files that differ.
Every number is printed with its baseline from the same session.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time

QUERIES = [
    "parse configuration file",
    "read file into memory",
    "error message for invalid input",
    "convert units",
    "cache results",
    "open a connection",
    "write output table",
    "test helper fixture",
    "deprecated warning",
    "iterate over rows",
    "format string representation",
    "compute mean and standard deviation",
    "coordinate transformation",
    "load data from disk",
    "validate arguments",
    "thread pool worker",
    "hash function",
    "command line options",
    "time zone conversion",
    "serialize to json",
]


def run(cmd, cwd, env=None, check=True):
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if check and p.returncode not in (0, 1):
        raise SystemExit(f"{cmd} failed ({p.returncode}): {p.stderr}")
    return dt, p


def median_time(cmd, cwd, env, n=5):
    return statistics.median(run(cmd, cwd, env)[0] for _ in range(n))


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--rev-a", required=True)
    ap.add_argument("--rev-b")
    ap.add_argument("--bin", default="target/release/git-codesearch")
    ap.add_argument("--json")
    ap.add_argument("--embed-secs", type=int, default=60, help="how long to let the embedding phase run")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    tmp = tempfile.mkdtemp(prefix="cs-bench-")
    wt = os.path.join(tmp, "wt")
    env = dict(os.environ, GIT_CODESEARCH_DIR=os.path.join(tmp, "index"), NO_COLOR="1")
    subprocess.run(["git", "--git-dir", args.git_dir, "worktree", "add", "-q", "--detach", wt, args.rev_a], check=True)
    try:
        results = bench(binary, wt, env, args)
    finally:
        subprocess.run(["git", "--git-dir", args.git_dir, "worktree", "remove", "--force", wt])
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(results, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


def bench(binary, wt, env, args):
    r = {"rev_a": args.rev_a}
    files = subprocess.run(["git", "ls-files", "-z"], cwd=wt, capture_output=True).stdout.split(b"\0")
    src_bytes = sum(os.path.getsize(os.path.join(wt, f.decode())) for f in files if f and os.path.isfile(os.path.join(wt, f.decode())))
    # Chunking and symbols alone (the embedding phase is measured separately below).
    cold, _ = run([binary, "index", "-q", "--no-embed"], wt, env)
    # The largest resident set of any child so far: the cold index run (the git commands
    # before it are small). Kilobytes on Linux.
    r["cold_index_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    st = json.loads(run([binary, "status", "--json"], wt, env)[1].stdout)
    r["cold_index_s"] = round(cold, 3)
    r["files_indexed"] = st["files"]
    r["files_skipped"] = st["skipped"]
    r["chunks"] = st["chunks"]
    r["files_per_s"] = round(st["files"] / cold, 1)
    r["chunks_per_s"] = round(st["chunks"] / cold, 1)
    r["source_mb"] = round(src_bytes / 1e6, 2)
    r["mb_per_s"] = round(src_bytes / 1e6 / cold, 2)
    r["index_mb"] = round(st["index_bytes"] / 1e6, 2)
    r["index_over_source"] = round(st["index_bytes"] / max(src_bytes, 1), 2)
    noop = median_time([binary, "index", "-q", "--no-embed"], wt, env)
    gstatus = median_time(["git", "status", "--porcelain"], wt, env)
    r["noop_reindex_s"] = round(noop, 4)
    r["git_status_s"] = round(gstatus, 4)
    r["noop_over_git_status"] = round(noop / gstatus, 2)
    # Embed for a fixed time (Ctrl-C keeps what is done), then count the chunks embedded.
    t = time.perf_counter()
    subprocess.run(["timeout", "-s", "INT", str(args.embed_secs), binary, "index", "-q"], cwd=wt, env=env)
    spent = time.perf_counter() - t
    st = json.loads(run([binary, "status", "--json"], wt, env)[1].stdout)
    vec = st.get("vectors") or {}
    r["embed_s"] = round(spent, 1)
    r["embedded_files"] = vec.get("embedded_files", 0)
    r["embedded_chunks"] = vec.get("embedded_chunks", 0)
    r["embed_chunks_per_s"] = round(r["embedded_chunks"] / spent, 1)
    for mode in ["bm25", "hybrid"]:
        run([binary, "search", "-q", "--mode", mode, QUERIES[0]], wt, env)  # warm the page cache
        lat = [run([binary, "search", "-q", "--json", "--mode", mode, q], wt, env)[0] for q in QUERIES]
        r[f"{mode}_p50_ms"] = round(pct(lat, 0.5) * 1000, 1)
        r[f"{mode}_p95_ms"] = round(pct(lat, 0.95) * 1000, 1)
    r.update(mcp_latency(binary, wt, env))
    grep = []
    for q in QUERIES:
        cmd = ["git", "grep", "-c", "-i"]
        # The content words, as the search uses them: a one- or two-letter word ("a") matches
        # nearly every line and made one grep of the 30,000-file corpus run for over 16 minutes.
        for w in q.split():
            if len(w) > 2:
                cmd += ["-e", w]
        grep.append(run(cmd, wt, env)[0])
    r["git_grep_p50_ms"] = round(pct(grep, 0.5) * 1000, 1)
    r["git_grep_p95_ms"] = round(pct(grep, 0.95) * 1000, 1)
    r["bm25_p50_over_git_grep"] = round(r["bm25_p50_ms"] / r["git_grep_p50_ms"], 2)
    r["hybrid_p50_over_git_grep"] = round(r["hybrid_p50_ms"] / r["git_grep_p50_ms"], 2)
    if args.rev_b:
        changed = subprocess.run(["git", "diff", "--name-only", args.rev_a, args.rev_b], cwd=wt, capture_output=True, text=True).stdout.split()
        subprocess.run(["git", "checkout", "-q", "--detach", args.rev_b], cwd=wt, check=True)
        dt, p = run([binary, "index", "-q", "--json", "--no-embed"], wt, env)
        stats = json.loads(p.stdout)["stats"]
        r["switch_changed_files"] = len(changed)
        r["switch_index_s"] = round(dt, 3)
        r["switch_compute"] = stats["compute"]
        r["switch_add_tag"] = stats["add_tag"]
        r["switch_over_cold"] = round(dt / cold, 3)
        subprocess.run(["git", "checkout", "-q", "--detach", args.rev_a], cwd=wt, check=True)
        dt, p = run([binary, "index", "-q", "--json", "--no-embed"], wt, env)
        r["switch_back_s"] = round(dt, 3)
        r["switch_back_compute"] = json.loads(p.stdout)["stats"]["compute"]
    return r


def mcp_latency(binary, wt, env):
    """Hybrid and BM25 query latency inside one `git codesearch mcp` session (how agents use
    it): the model is loaded once, so this is the per-query cost without process start-up."""
    p = subprocess.Popen([binary, "mcp"], cwd=wt, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    n = 0

    def ask(method, params):
        nonlocal n
        n += 1
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")
        if method == "initialize":
            p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())

    ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
    out = {}
    for mode in ["bm25", "hybrid"]:
        call = lambda q: ask("tools/call", {"name": "code_search", "arguments": {"query": q, "limit": 10, "mode": mode}})
        call(QUERIES[0])  # loads the model (hybrid) and warms caches
        lat = []
        for q in QUERIES:
            t = time.perf_counter()
            call(q)
            lat.append(time.perf_counter() - t)
        out[f"mcp_{mode}_p50_ms"] = round(pct(lat, 0.5) * 1000, 1)
        out[f"mcp_{mode}_p95_ms"] = round(pct(lat, 0.95) * 1000, 1)
    p.stdin.close()
    p.wait(timeout=30)
    return out


if __name__ == "__main__":
    main()
