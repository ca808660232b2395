#!/usr/bin/env python3
"""Would a whole-file BM25 ranking help search? An offline simulation.

The dev set's notes say BM25 over whole code files is a strong file-level baseline, while
git-codesearch scores chunks. For every query this ranks the code files of the query's
commit by Okapi BM25 over identifier tokens (whole identifiers and their camelCase /
snake_case parts, lower-cased; files read from the mirror's objects, no checkout), alone
and fused by weighted reciprocal rank with the files git-codesearch ranks (over the indexes
an `eval.py --work` run left). Prints file-level R@10 and MRR@10 of each, per language.

    python3 bench/filebm25_sim.py --set ../shared/eval/dev.jsonl --mirrors /work/.mirror --work /tmp/evalwork
    python3 bench/filebm25_sim.py ... --no-search      # whole-file BM25 alone, no binary needed
"""

import argparse
import collections
import json
import math
import os
import re
import statistics
import subprocess

from eval import mirror_dir, reuse_setup, score
from cochange_sim import ranked_files

CODE = {".py", ".rs", ".go", ".java", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".c", ".h", ".cc",
        ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ipp", ".inl", ".jq", ".sh", ".cs", ".rb", ".kt", ".scala"}
STOP = set("""a about above after again all am an and any are as at be because been before being below between
both but by can could did do does doing done down during each few for from further had has have having he her
here hers him his how i if in into is it its itself just me might more most must my no nor not now of off on
once only or other our ours out over own same she should so some such than that the their theirs them then
there these they this those through to too under until up very was we were what when where which while who
whom why will with would you your yours let lets us get got please find show also""".split())
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
TEST = re.compile(r"(^|/)(tests?|testing|__tests__|spec)/|(^|/)test_[^/]*$|_test\.\w+$|\.(test|spec)\.\w+$")


def tokens(text):
    """Lower-case whole identifiers and, for compound ones, their parts."""
    out = []
    for w in WORD.findall(text):
        low = w.lower()
        out.append(low)
        parts = [p.lower() for p in PART.findall(w)]
        if len(parts) > 1:
            out.extend(p for p in parts if len(p) > 1)
    return out


class Corpus:
    """Token counts of a repository's blobs, cached by object id across commits."""

    def __init__(self, gitdir):
        self.gitdir, self.counts = gitdir, {}

    def files(self, commit):
        ls = subprocess.run(["git", "--git-dir", self.gitdir, "ls-tree", "-r", "-z", "--long", commit],
                            capture_output=True, check=True).stdout.decode("utf-8", "surrogateescape")
        out = {}
        for entry in filter(None, ls.split("\0")):
            meta, path = entry.split("\t", 1)
            mode, kind, oid, size = meta.split()
            ext = "." + path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""
            if kind == "blob" and mode != "120000" and size.isdigit() and int(size) <= 1_000_000 and ext in CODE:
                out[path] = oid
        self.load([o for o in set(out.values()) if o not in self.counts])
        return {p: o for p, o in out.items() if self.counts.get(o) is not None}

    def load(self, oids):
        if not oids:
            return
        cat = subprocess.run(["git", "--git-dir", self.gitdir, "cat-file", "--batch"], check=True,
                             capture_output=True, input="".join(o + "\n" for o in oids).encode()).stdout
        pos = 0
        for oid in oids:
            nl = cat.index(b"\n", pos)
            header = cat[pos:nl].split()
            pos = nl + 1
            if header[-1] == b"missing":
                self.counts[oid] = None
                continue
            size = int(header[2])
            body = cat[pos:pos + size]
            pos += size + 1
            self.counts[oid] = None if b"\0" in body[:8000] else collections.Counter(
                tokens(body.decode("utf-8", "replace")))


def bm25_rank(corpus, files, query, k1=1.2, b=0.75, test_weight=0.6):
    """Files by BM25 of the query's tokens (repeats count), tests down-weighted."""
    q = collections.Counter(t for t in tokens(query) if t not in STOP and len(t) > 1)
    docs = {p: corpus.counts[o] for p, o in files.items()}
    lens = {p: sum(c.values()) for p, c in docs.items()}
    avg = statistics.mean(lens.values()) if lens else 1.0
    df = {t: sum(1 for c in docs.values() if t in c) for t in q}
    n = len(docs)
    scores = {}
    for p, c in docs.items():
        s = 0.0
        for t, qn in q.items():
            tf = c.get(t, 0)
            if tf:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += qn * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lens[p] / avg))
        if s > 0:
            scores[p] = s * (test_weight if TEST.search(p) else 1.0)
    return sorted(scores, key=lambda p: (-scores[p], p))


def fuse(lists, k=60.0):
    """Weighted reciprocal-rank fusion of (weight, ranked paths) lists."""
    acc = collections.defaultdict(float)
    for w, ranked in lists:
        for i, p in enumerate(ranked[:50]):
            acc[p] += w / (k + i + 1)
    return sorted(acc, key=lambda p: (-acc[p], p))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True)
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--work", help="the --work directory of an earlier eval.py run")
    ap.add_argument("--bin", default="target/release/git-codesearch")
    ap.add_argument("--no-search", action="store_true", help="whole-file BM25 alone")
    ap.add_argument("--weights", default="0.25,0.5,1.0", help="whole-file list weights to try (search has 1)")
    args = ap.parse_args()
    items = [json.loads(line) for line in open(args.set)]
    weights = [float(w) for w in args.weights.split(",")]
    systems = collections.defaultdict(list)
    langs, corpora = [], {}
    for item in items:
        gitdir = mirror_dir(args.mirrors, item["repo"])
        if gitdir is None:
            continue
        corpus = corpora.setdefault(gitdir, Corpus(gitdir))
        whole = bm25_rank(corpus, corpus.files(item["commit"]), item["query"])
        langs.append(item["language"])
        systems["whole-file bm25"].append(score(whole, item["gold_files"]))
        if args.no_search:
            continue
        wt, env = reuse_setup(args.work, gitdir, item["repo"])
        ranked = ranked_files(os.path.abspath(args.bin), wt, env, item)
        systems["search"].append(score(ranked, item["gold_files"]))
        for w in weights:
            systems[f"search + whole-file x{w}"].append(score(fuse([(1.0, ranked), (w, whole)]), item["gold_files"]))
    for group in [None] + sorted(set(langs)):
        for name, rows in systems.items():
            rows = [r for r, lang in zip(rows, langs) if group in (None, lang)]
            print(f"{group or 'overall'} | {name}: n {len(rows)} R@10 {statistics.mean(r['r10'] for r in rows):.3f} "
                  f"MRR@10 {statistics.mean(r['mrr10'] for r in rows):.3f}")


if __name__ == "__main__":
    main()
