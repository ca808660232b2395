#!/usr/bin/env python3
"""Retrieval quality on a JSONL development set, next to a `git grep` keyword baseline.

Usage:
  python3 bench/eval.py --set ../shared/eval/dev.jsonl --mirrors /work/.mirror \\
      [--bin target/release/git-codesearch] [--repos psf/requests,sharkdp/fd] \\
      [--modes hybrid,bm25] [--json out.json]

For each item {id, repo, commit, query, gold_files} it checks the repository out at `commit`
in one reusable worktree per repository (git worktree, no network; the bare git dir is
`<mirrors>/<owner>+<name>/repo`), indexes it (one index per repository, so later commits cost
only their changed content), runs `git codesearch --json` for the query in every mode, ranks
files by their first hit, and scores file-level Recall@1/5/10, Hit@5 and MRR@10 against the
gold files, per repository, per language and overall. The `git grep` baseline ranks files by
how many distinct query words they contain (then by total matches).
"""

import argparse
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

STOP = set("""a an and are as at be been but by can could did do does for from had has have how i if in into is it
its me my no not of on or our should so such than that the their them then there these they this those to
too was we were what when where which while who why will with would you your""".split())


def words(text):
    return [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", text) if w.lower() not in STOP]


def git_grep_rank(wt, query, k=10):
    terms = sorted(set(w.lower() for w in words(query)))[:40]
    per_file = collections.defaultdict(lambda: [0, 0])
    for t in terms:
        p = subprocess.run(["git", "grep", "-c", "-i", "-F", "-e", t], cwd=wt, capture_output=True, text=True)
        for line in p.stdout.splitlines():
            path, _, n = line.rpartition(":")
            per_file[path][0] += 1
            per_file[path][1] += int(n)
    ranked = sorted(per_file.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0]))
    return [p for p, _ in ranked[:k]]


def cs_rank(binary, wt, env, query, mode, k=10):
    p = subprocess.run([binary, "search", "--json", "-q", "--no-index", "-n", "50", "--mode", mode, query],
                       cwd=wt, env=env, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"search failed in {wt}: {p.stderr}")
    files = []
    for line in p.stdout.splitlines():
        path = json.loads(line)["path"]
        if path not in files:
            files.append(path)
    return files[:k]


def score(ranked, gold):
    gold = set(gold)
    first = next((i + 1 for i, p in enumerate(ranked[:10]) if p in gold), None)
    rec = lambda k: len(gold & set(ranked[:k])) / len(gold)
    return {"r1": rec(1), "r5": rec(5), "r10": rec(10), "hit5": float(first is not None and first <= 5),
            "mrr10": 1.0 / first if first else 0.0}


def mean_scores(rows):
    keys = ["r1", "r5", "r10", "hit5", "mrr10"]
    return {k: round(statistics.mean(r[k] for r in rows), 3) for k in keys} | {"n": len(rows)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True)
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--bin", default="target/release/git-codesearch")
    ap.add_argument("--repos")
    ap.add_argument("--modes", default="hybrid,bm25")
    ap.add_argument("--json")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    items = [json.loads(l) for l in open(args.set)]
    if args.repos:
        keep = set(args.repos.split(","))
        items = [i for i in items if i["repo"] in keep]
    modes = args.modes.split(",")
    by_repo = collections.defaultdict(list)
    for it in items:
        by_repo[it["repo"]].append(it)
    tmp = tempfile.mkdtemp(prefix="cs-eval-")
    results = []
    index_time = {}
    latencies = []
    try:
        for repo, its in sorted(by_repo.items()):
            gitdir = os.path.join(args.mirrors, repo.replace("/", "+"), "repo")
            wt = os.path.join(tmp, repo.replace("/", "+"))
            env = dict(os.environ, GIT_CODESEARCH_DIR=os.path.join(tmp, "index-" + repo.replace("/", "+")), NO_COLOR="1")
            subprocess.run(["git", "--git-dir", gitdir, "worktree", "add", "-q", "--detach", wt, its[0]["commit"]], check=True)
            index_time[repo] = 0.0
            for it in sorted(its, key=lambda i: i["commit"]):
                subprocess.run(["git", "checkout", "-q", "--detach", "-f", it["commit"]], cwd=wt, check=True)
                t = time.perf_counter()
                subprocess.run([binary, "index", "-q", "--resume"], cwd=wt, env=env, check=True)
                index_time[repo] += time.perf_counter() - t
                row = {"id": it["id"], "repo": repo, "language": it["language"]}
                for mode in modes:
                    t = time.perf_counter()
                    ranked = cs_rank(binary, wt, env, it["query"], mode)
                    latencies.append(time.perf_counter() - t)
                    row[mode] = score(ranked, it["gold_files"])
                row["git_grep"] = score(git_grep_rank(wt, it["query"]), it["gold_files"])
                results.append(row)
            subprocess.run(["git", "--git-dir", gitdir, "worktree", "remove", "--force", wt])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    systems = modes + ["git_grep"]
    report = {"overall": {s: mean_scores([r[s] for r in results]) for s in systems}, "by_language": {}, "by_repo": {}}
    for key, field in (("by_language", "language"), ("by_repo", "repo")):
        groups = collections.defaultdict(list)
        for r in results:
            groups[r[field]].append(r)
        report[key] = {g: {s: mean_scores([r[s] for r in rows]) for s in systems} for g, rows in sorted(groups.items())}
    report["median_query_ms"] = round(statistics.median(latencies) * 1000, 1) if latencies else None
    report["index_seconds"] = {k: round(v, 1) for k, v in index_time.items()}
    print("| group | system | n | R@1 | R@5 | R@10 | Hit@5 | MRR@10 |")
    print("|---|---|---|---|---|---|---|---|")
    for name, group in [("overall", report["overall"])] + list(report["by_language"].items()):
        for s in systems:
            m = group[s]
            print(f"| {name} | {s} | {m['n']} | {m['r1']} | {m['r5']} | {m['r10']} | {m['hit5']} | {m['mrr10']} |")
    print(f"median query latency: {report['median_query_ms']} ms; index seconds: {report['index_seconds']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report | {"items": results}, f, indent=1)


if __name__ == "__main__":
    main()
