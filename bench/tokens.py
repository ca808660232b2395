#!/usr/bin/env python3
"""What an agent pays before it reaches the answer: cl100k tokens read, hit by hit in rank order, before the
first hit in a relevant file (and, for sets with line gold, before the first hit that overlaps a gold function or
span), with a grep-then-read-the-file baseline in the same run. A hit is read as an agent gets it: a header line
`path:start-end` and the hit's lines. A miss counts as CAP tokens. `through` includes the relevant hit itself;
recall within 2,000 tokens is the share of questions whose first relevant hit is read whole within 2,000 tokens.

Token counts use PyPI's bpe-openai (cl100k_base, offline): `pip install bpe-openai`.

Used by bench/eval.py (pasted issues, short questions) and, for the concept set, as a script over the work
directory that ../shared/eval/concept/run.py prepared (each repository a one-commit git repository, indexed):

  python3 ../shared/eval/concept/run.py --bin target/release/git-codesearch --mirrors /work/.mirror --work /tmp/evc
  python3 bench/tokens.py --bin target/release/git-codesearch --work /tmp/evc --out /tmp/tok.json

A miss costs CAP, so the mean depends on how deep the agent reads (`--depth`, default 50 hits): one miss in
400 questions adds 80 tokens to it (bench/RESULTS.md has the concept set at depths 10, 20 and 50).

It also saves each question's top-10 hits (path, start, end), so two binaries' lists can be compared
(`--compare A.json B.json`)."""
import argparse, collections, json, os, re, statistics, subprocess, sys

CAP = 32000
BUDGET = 2000
_ENC = None


PIECE = 20000


def count(text):
    """cl100k tokens of `text`, encoded in pieces of at most PIECE characters cut at line ends
    (the encoder refuses a very long input; a cut at a line end changes the count by a token
    or so, far below what a piece holds)."""
    global _ENC
    if _ENC is None:
        import bpe_openai
        _ENC = bpe_openai.get_encoding("cl100k_base")
    total, start = 0, 0
    while start < len(text):
        end = min(len(text), start + PIECE)
        if end < len(text):
            cut = text.rfind("\n", start, end)
            end = cut + 1 if cut > start else end
        total += len(_ENC.encode(text[start:end]))
        start = end
    return total


class Commit:
    """A commit's files read from the object database, for runs that search indexes an earlier run left
    without checking anything out (bench/eval.py --reuse): a `root` wherever a work tree is one."""

    def __init__(self, gitdir, commit):
        self.gitdir, self.commit = gitdir, commit

    def read(self, path):
        p = subprocess.run(["git", "--git-dir", self.gitdir, "cat-file", "blob", f"{self.commit}:{path}"],
                           capture_output=True)
        return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else ""

    def grep_counts(self, term):
        """(path, count) of `git grep -c` for `term` in the commit's tree."""
        p = subprocess.run(["git", "--git-dir", self.gitdir, "grep", "-c", "-i", "-F", "-e", term, self.commit],
                           capture_output=True, text=True)
        prefix = self.commit + ":"
        return [l[len(prefix):] if l.startswith(prefix) else l for l in p.stdout.splitlines()]


def file_lines(root, path, cache):
    if path not in cache:
        if isinstance(root, Commit):
            cache[path] = root.read(path).split("\n")
            return cache[path]
        try:
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                cache[path] = f.read().split("\n")
        except OSError:
            cache[path] = []
    return cache[path]


def hit_tokens(root, hit, cache):
    """Tokens of one hit as an agent reads it: its header and its lines."""
    path, start, end = hit
    lines = file_lines(root, path, cache)[max(start - 1, 0):end]
    return count(f"{path}:{start}-{end}\n" + "\n".join(lines))


def walk(costs, relevant):
    """(tokens before the first relevant item, tokens through it) over items read in order; CAP for a miss."""
    spent = 0
    for cost, rel in zip(costs, relevant):
        if rel:
            return min(spent, CAP), min(spent + cost, CAP)
        spent += cost
        if spent >= CAP:
            break
    return CAP, CAP


def agent_cost(root, hits, is_relevant, cache):
    """Walk `hits` ((path, start, end), best first) until `is_relevant(hit)`."""
    return walk([hit_tokens(root, h, cache) for h in hits], [is_relevant(h) for h in hits])


def grep_files(root, words):
    """Files ranked as grep-then-read would: by how many of the words they contain, then how often."""
    per_file = collections.defaultdict(lambda: [0, 0])
    for t in sorted(set(w.lower() for w in words))[:40]:
        if isinstance(root, Commit):
            lines = root.grep_counts(t)
        else:
            lines = subprocess.run(["git", "grep", "-c", "-i", "-F", "-e", t], cwd=root, capture_output=True,
                                   text=True).stdout.splitlines()
        for line in lines:
            path, _, n = line.rpartition(":")
            per_file[path][0] += 1
            per_file[path][1] += int(n)
    ranked = sorted(per_file.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0]))
    return [p for p, _ in ranked]


def grep_cost(root, words, is_relevant_path, cache):
    """Read whole files in grep's order until a relevant one."""
    files = grep_files(root, words)[:200]
    costs, rel = [], []
    for p in files:
        costs.append(count(p + "\n" + "\n".join(file_lines(root, p, cache))))
        rel.append(is_relevant_path(p))
        if sum(costs) >= CAP:
            break
    return walk(costs, rel)


def summary(rows, key):
    """Mean tokens before and through, and recall within BUDGET, of rows[i][key] = (before, through)."""
    vals = [r[key] for r in rows if r.get(key) is not None]
    if not vals:
        return None
    return {"n": len(vals), "before": round(statistics.mean(v[0] for v in vals)),
            "through": round(statistics.mean(v[1] for v in vals)),
            "within_2000": round(sum(v[1] <= BUDGET for v in vals) / len(vals), 3),
            "misses": sum(v[0] >= CAP for v in vals)}


WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def search(binary, root, q, n=50):
    r = subprocess.run([binary, "--json", "-n", str(n), "--", q], cwd=root, capture_output=True, text=True,
                       env=dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1", NO_COLOR="1"))
    hits = []
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            h = json.loads(line)
            hits.append((h["path"], h["start_line"], h["end_line"]))
    return hits


def concept(args):
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "eval", "concept")
    here = args.concept or here
    specs = json.load(open(os.path.join(here, "repos.json")))
    rows = []
    for spec in specs:
        root = os.path.join(args.work, spec["name"])
        ann = os.path.join(here, "annotations", spec["name"] + ".json")
        if not os.path.isdir(root) or not os.path.exists(ann):
            print(f"skip {spec['name']}", file=sys.stderr)
            continue
        cache = {}
        for item in json.load(open(ann)):
            targets = [t if isinstance(t, str) else t["path"] for t in item.get("relevant", []) + item.get("secondary", [])]
            rel = lambda p: any(p == t or p.endswith("/" + t) or t.endswith("/" + p) for t in targets)
            hits = search(args.bin, root, item["query"], args.depth)
            row = {"repo": spec["name"], "language": spec["language"], "query": item["query"],
                   "top": hits[:10], "file": agent_cost(root, hits, lambda h: rel(h[0]), cache)}
            if not args.no_grep:
                row["grep_file"] = grep_cost(root, WORD.findall(item["query"]), rel, cache)
            rows.append(row)
        print(f"{spec['name']}: {len(rows)} questions so far", file=sys.stderr, flush=True)
    return rows


def report(rows, keys):
    out = {"overall": {k: summary(rows, k) for k in keys}, "by_language": {}}
    groups = collections.defaultdict(list)
    for r in rows:
        groups[r["language"]].append(r)
    for lang, rs in sorted(groups.items()):
        out["by_language"][lang] = {k: summary(rs, k) for k in keys}
    return out


def print_table(rep, keys):
    print("| group | measure | n | tokens before | tokens through | within 2,000 | misses |")
    print("|---|---|---|---|---|---|---|")
    for name, group in [("overall", rep["overall"])] + list(rep["by_language"].items()):
        for k in keys:
            s = group.get(k)
            if s:
                print(f"| {name} | {k} | {s['n']} | {s['before']} | {s['through']} | {s['within_2000']} | {s['misses']} |")


def compare(a, b):
    """Questions whose top-10 lists differ between two saved runs."""
    ra = {(r["repo"], r["query"]): r["top"] for r in json.load(open(a))["items"]}
    rb = {(r["repo"], r["query"]): r["top"] for r in json.load(open(b))["items"]}
    diff = [k for k in ra if k in rb and ra[k] != rb[k]]
    print(f"{len(ra)} vs {len(rb)} questions; {len(diff)} top-10 lists differ")
    for k in diff[:20]:
        print(" ", k)
    return 1 if diff or set(ra) != set(rb) else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin")
    ap.add_argument("--work")
    ap.add_argument("--concept", help="the concept set's folder (default ../shared/eval/concept)")
    ap.add_argument("--out")
    ap.add_argument("--no-grep", action="store_true")
    ap.add_argument("--depth", type=int, default=50,
                    help="hits an agent reads at most (the search's -n): a relevant file below them is a miss "
                         "(CAP tokens); the default limit a user gets is 20, the NDCG cut-off 10")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"))
    a = ap.parse_args()
    if a.compare:
        sys.exit(compare(*a.compare))
    rows = concept(a)
    keys = ["file"] + ([] if a.no_grep else ["grep_file"])
    rep = report(rows, keys)
    print_table(rep, keys)
    if a.out:
        json.dump(rep | {"items": rows}, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
