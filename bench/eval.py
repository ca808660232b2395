#!/usr/bin/env python3
"""Retrieval quality on a JSONL development set, next to a `git grep` keyword baseline.

Usage:
  python3 bench/eval.py --set ../shared/eval/dev.jsonl --mirrors /work/.mirror \\
      [--bin target/release/git-codesearch] [--repos psf/requests,sharkdp/fd] \\
      [--modes hybrid,bm25] [--json out.json]

For each item {id, repo, commit, query, gold_files} it checks the repository out at `commit`
in one reusable worktree per repository (written blob by blob, see `Tree`; no network; the bare git dir is
`<mirrors>/<owner>+<name>/repo`), indexes it (one index per repository, so later commits cost
only their changed content), runs `git codesearch --json` for the query in every mode, ranks
files by their first hit, and scores file-level Recall@1/5/10, Hit@5 and MRR@10 against the
gold files (plus nDCG@10) and line-level Span@10 / Func@10 (any of the first 10 result chunks
overlaps a gold span / gold function), per repository, per language and overall. The `git grep` baseline ranks files by
how many distinct query words they contain (then by total matches).
"""

import argparse
import collections
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tokens  # noqa: E402 (bench/tokens.py, beside this file)

STOP = set("""a an and are as at be been but by can could did do does for from had has have how i if in into is it
its me my no not of on or our should so such than that the their them then there these they this those to
too was we were what when where which while who why will with would you your""".split())


def words(text):
    return [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", text) if w.lower() not in STOP]


def left_out(path, paths):
    """Whether `path` is one of `paths` or lies under one of them (--leave-out)."""
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in paths)


def git_grep_rank(wt, query, k=10, drop=()):
    """Files as grep-then-read ranks them (bench/tokens.py), without those left out."""
    return [p for p in tokens.grep_files(wt, words(query)) if not left_out(p, drop)][:k]


def cs_rank(binary, wt, env, query, mode, k=10, branch=None, drop=()):
    """(first k distinct files, first k result chunks as (path, start, end))."""
    at = ["--branch", branch] if branch else []
    p = subprocess.run([binary, "search", "--json", "-q", "--no-index", "-n", "50", "--mode", mode] + at + ["--", query],
                       cwd=wt, env=env, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"search failed in {wt}: {p.stderr}")
    files, chunks = [], []
    for line in p.stdout.splitlines():
        hit = json.loads(line)
        path = hit["path"]
        if left_out(path, drop):
            continue
        if path not in files:
            files.append(path)
        chunks.append((path, hit["start_line"], hit["end_line"]))
    return files[:k], chunks


def line_score(chunks, item):
    """Span@10 / Func@10: whether any of the first 10 chunks overlaps a gold span / a gold
    function (None for items without gold functions, left out of that mean)."""
    def hit(ranges):
        return float(any(p == r["path"] and s <= r["end_line"] and e >= r["start_line"]
                         for p, s, e in chunks[:10] for r in ranges))
    spans, funcs = item.get("gold_spans") or [], item.get("gold_functions") or []
    return {"span10": hit(spans) if spans else None, "func10": hit(funcs) if funcs else None}


def agent_tokens(wt, chunks, item, cache):
    """Tokens an agent reads, hit by hit, before the first hit in a gold file / overlapping a gold function or span
    (bench/tokens.py)."""
    def overlaps(ranges):
        return lambda h: any(h[0] == r["path"] and h[1] <= r["end_line"] and h[2] >= r["start_line"] for r in ranges)
    gold = set(item["gold_files"])
    out = {"tok_file": tokens.agent_cost(wt, chunks, lambda h: h[0] in gold, cache)}
    for key, field in (("tok_func", "gold_functions"), ("tok_span", "gold_spans")):
        if item.get(field):
            out[key] = tokens.agent_cost(wt, chunks, overlaps(item[field]), cache)
    return out


def score(ranked, gold):
    gold = set(gold)
    first = next((i + 1 for i, p in enumerate(ranked[:10]) if p in gold), None)
    rec = lambda k: len(gold & set(ranked[:k])) / len(gold)
    dcg = sum(1.0 / math.log2(i + 2) for i, p in enumerate(ranked[:10]) if p in gold)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), 10)))
    return {"r1": rec(1), "r5": rec(5), "r10": rec(10), "hit5": float(first is not None and first <= 5),
            "mrr10": 1.0 / first if first else 0.0, "ndcg10": dcg / ideal}


def mirror_dir(mirrors, repo):
    """The bare git dir of `repo` under `mirrors` (owner+name, matched case-insensitively)."""
    want = repo.replace("/", "+").lower()
    for name in os.listdir(mirrors):
        if name.lower() == want:
            return os.path.join(mirrors, name, "repo")
    return None


def reuse_setup(work, gitdir, repo):
    """(work tree, environment) for searching the index an earlier `--work` run left for
    `repo`: any work tree of the repository will do, since searches name their commit."""
    key = repo.replace("/", "+")
    wt = os.path.join(work, "scratch-" + key)
    if not os.path.exists(wt):
        subprocess.run(["git", "--git-dir", gitdir, "worktree", "add", "-q", "-f", "--detach", "--no-checkout", wt],
                       check=True)
    return wt, dict(os.environ, GIT_CODESEARCH_DIR=os.path.join(work, "index-" + key), NO_COLOR="1")


class Tree:
    """A work tree kept at a commit by writing blobs from the object database.

    Mirrors may lack their largest blobs, so `git checkout` can fail; this writes every blob
    that exists (skipping absent ones, which are data files, not code), rewrites only files
    whose blob changed since the previous commit, and points HEAD at the commit (detached).
    """

    def __init__(self, gitdir, wt):
        self.gitdir, self.wt, self.files = gitdir, wt, {}
        if os.path.exists(wt):  # left by an earlier run with --work: start the tree afresh
            shutil.rmtree(wt)
        subprocess.run(["git", "--git-dir", gitdir, "worktree", "prune"], check=True)
        subprocess.run(["git", "--git-dir", gitdir, "worktree", "add", "-q", "--detach", "--no-checkout", wt],
                       check=True)

    def checkout(self, commit):
        ls = subprocess.run(["git", "ls-tree", "-r", "-z", commit], cwd=self.wt, check=True,
                            capture_output=True).stdout.decode("utf-8", "surrogateescape")
        want = {}
        for entry in filter(None, ls.split("\0")):
            meta, path = entry.split("\t", 1)
            mode, kind, oid = meta.split()
            if kind == "blob" and mode != "120000":
                want[path] = oid
        for path in set(self.files) - set(want):
            try:
                os.remove(os.path.join(self.wt, path))
            except FileNotFoundError:
                pass
        changed = [p for p, o in want.items() if self.files.get(p) != o]
        if changed:
            cat = subprocess.run(["git", "cat-file", "--batch"], cwd=self.wt, check=True, capture_output=True,
                                 input="".join(want[p] + "\n" for p in changed).encode())
            out, pos = cat.stdout, 0
            for path in changed:
                nl = out.index(b"\n", pos)
                header = out[pos:nl].split()
                pos = nl + 1
                if header[-1] == b"missing":
                    continue
                size = int(header[2])
                full = os.path.join(self.wt, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "wb") as f:
                    f.write(out[pos:pos + size])
                pos += size + 1
        self.files = want
        subprocess.run(["git", "update-ref", "--no-deref", "HEAD", commit], cwd=self.wt, check=True)
        # The git index lists the tree (needs no blobs), so `git grep` searches these files.
        subprocess.run(["git", "read-tree", commit], cwd=self.wt, check=True)

    def remove(self):
        subprocess.run(["git", "--git-dir", self.gitdir, "worktree", "remove", "--force", self.wt])


def mean_scores(rows):
    keys = ["r1", "r5", "r10", "hit5", "mrr10", "ndcg10"]
    out = {k: round(statistics.mean(r[k] for r in rows), 3) for k in keys} | {"n": len(rows)}
    for k in ("span10", "func10"):
        vals = [r[k] for r in rows if r.get(k) is not None]
        out[k] = round(statistics.mean(vals), 3) if vals else None
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True)
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--bin", default="target/release/git-codesearch")
    ap.add_argument("--repos")
    ap.add_argument("--modes", default="hybrid,bm25")
    ap.add_argument("--json")
    ap.add_argument("--by-repo", action="store_true", help="also print one row group per repository")
    ap.add_argument("--no-embed", action="store_true",
                    help="index without vectors (fast lexical experiments; hybrid is then BM25 + symbols)")
    ap.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                    help="git config for every run, e.g. codesearch.pathPrior=false (repeatable)")
    ap.add_argument("--work", help="keep work trees and indexes here (reused by the next run) instead of a temp dir")
    ap.add_argument("--leave-out", action="append", default=[], metavar="PATH",
                    help="leave this file or directory out of gold and results, e.g. files a fix "
                         "regenerates (repeatable; queries left with no gold are skipped)")
    ap.add_argument("--no-tokens", action="store_true", help="skip the tokens-read measures (bench/tokens.py)")
    ap.add_argument("--reuse", action="store_true",
                    help="with --work: search the indexes an earlier run left (by commit, no checkout or "
                         "re-index; for ranking experiments); tokens read from the object database")
    ap.add_argument("--grep", action="store_true",
                    help="with --reuse: the git grep baseline too (git grep over each commit's tree: slow)")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    items = [json.loads(l) for l in open(args.set)]
    drop = tuple(args.leave_out)
    for it in items:
        it["gold_files"] = [g for g in it["gold_files"] if not left_out(g, drop)]
    items = [i for i in items if i["gold_files"]]
    if args.repos:
        keep = set(args.repos.split(","))
        items = [i for i in items if i["repo"] in keep]
    modes = args.modes.split(",")
    grep = args.grep or not args.reuse
    by_repo = collections.defaultdict(list)
    for it in items:
        by_repo[it["repo"]].append(it)
    tmp = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="cs-eval-")
    os.makedirs(tmp, exist_ok=True)
    results = []
    index_time = {}
    latencies = []
    try:
        for repo, its in sorted(by_repo.items()):
            gitdir = mirror_dir(args.mirrors, repo)
            if gitdir is None:
                print(f"skipping {repo}: no mirror under {args.mirrors}", flush=True)
                continue
            wt = os.path.join(tmp, repo.replace("/", "+"))
            env = dict(os.environ, GIT_CODESEARCH_DIR=os.path.join(tmp, "index-" + repo.replace("/", "+")), NO_COLOR="1")
            env["GIT_CONFIG_COUNT"] = str(len(args.config))
            for i, kv in enumerate(args.config):
                env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = kv.split("=", 1)
            tree = Tree(gitdir, wt)
            index_time[repo] = 0.0
            for it in sorted(its, key=lambda i: i["commit"]):
                branch = "detached/" + it["commit"] if args.reuse else None
                if not args.reuse:
                    tree.checkout(it["commit"])
                    t = time.perf_counter()
                    subprocess.run([binary, "index", "-q", "--resume"] + (["--no-embed"] if args.no_embed else []),
                                   cwd=wt, env=env, check=True)
                    index_time[repo] += time.perf_counter() - t
                row = {"id": it["id"], "repo": repo, "language": it["language"]}
                root = tokens.Commit(gitdir, it["commit"]) if args.reuse else wt
                cache = {}
                for mode in modes:
                    t = time.perf_counter()
                    ranked, chunks = cs_rank(binary, wt, env, it["query"], mode, branch=branch, drop=drop)
                    latencies.append(time.perf_counter() - t)
                    row[mode] = score(ranked, it["gold_files"]) | line_score(chunks, it) | {
                        "ms": round(latencies[-1] * 1000, 1), "top": chunks[:10]}
                    if not args.no_tokens:
                        row[mode] |= agent_tokens(root, chunks, it, cache)
                if grep:
                    row["git_grep"] = score(git_grep_rank(root, it["query"], drop=drop), it["gold_files"])
                    if not args.no_tokens:
                        gold = set(it["gold_files"])
                        row["git_grep"]["tok_file"] = tokens.grep_cost(root, words(it["query"]), gold.__contains__, cache)
                results.append(row)
            tree.remove()
    finally:
        if not args.work:
            shutil.rmtree(tmp, ignore_errors=True)
    systems = modes + (["git_grep"] if grep else [])
    report = {"overall": {s: mean_scores([r[s] for r in results]) for s in systems}, "by_language": {}, "by_repo": {}}
    for key, field in (("by_language", "language"), ("by_repo", "repo")):
        groups = collections.defaultdict(list)
        for r in results:
            groups[r[field]].append(r)
        report[key] = {g: {s: mean_scores([r[s] for r in rows]) for s in systems} for g, rows in sorted(groups.items())}
    report["median_query_ms"] = round(statistics.median(latencies) * 1000, 1) if latencies else None
    report["index_seconds"] = {k: round(v, 1) for k, v in index_time.items()}
    print("| group | system | n | R@1 | R@5 | R@10 | Hit@5 | MRR@10 | nDCG@10 | Span@10 | Func@10 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    groups = [("overall", report["overall"])] + list(report["by_language"].items())
    if args.by_repo:
        groups += list(report["by_repo"].items())
    for name, group in groups:
        for s in systems:
            m = group[s]
            print(f"| {name} | {s} | {m['n']} | {m['r1']} | {m['r5']} | {m['r10']} | {m['hit5']} | {m['mrr10']} | "
                  f"{m['ndcg10']} | {m['span10'] if m['span10'] is not None else '-'} | "
                  f"{m['func10'] if m['func10'] is not None else '-'} |")
    print(f"median query latency: {report['median_query_ms']} ms; index seconds: {report['index_seconds']}")
    if not args.no_tokens:
        keys = [(s, k) for s in systems for k in ("tok_file", "tok_func", "tok_span") if s != "git_grep" or k == "tok_file"]
        print("\ntokens an agent reads (cl100k; before / through the first relevant hit; share within 2,000 through)")
        print("| group | system | measure | n | before | through | within 2,000 |")
        print("|---|---|---|---|---|---|---|")
        by_lang = collections.defaultdict(list)
        for r in results:
            by_lang[r["language"]].append(r)
        for name, rows in [("overall", results)] + sorted(by_lang.items()):
            for s_, k in keys:
                t = tokens.summary([r[s_] for r in rows], k)
                if t:
                    print(f"| {name} | {s_} | {k} | {t['n']} | {t['before']} | {t['through']} | {t['within_2000']} |")
                    report.setdefault("tokens", {}).setdefault(name, {})[f"{s_}.{k}"] = t
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report | {"items": results}, f, indent=1)


if __name__ == "__main__":
    main()
