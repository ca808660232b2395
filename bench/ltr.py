#!/usr/bin/env python3
"""Learning the final order from `--explain`'s named features, checked on repositories it was not fitted to.

Every hit's score is a sum of named contributions (`search::explain`: each retriever's
reciprocal rank, the path prior and recency, merged neighbours, whole-file lists, a
question's evidence, ...). The learned scorer weighs each feature group by query kind
(`--explain`'s `read_as`: a name, a topic, a question saying what one piece of code does, a
pasted issue): score = sum of weight(kind, group) * value.
All weights 1 is today's order exactly, so the hand rules are the starting point and the
baseline.

  collect  runs each development set's queries with `--json --explain -n 40` against indexes
           an earlier run left (concept: run.py's --work; short questions and pasted issues:
           eval.py's --work) and saves every hit's features with the query's gold.
  fit      coordinate ascent on the weights, leaving whole repositories out (5 folds over
           the repositories of every set collected, a repository out of every set at once; concept
           rows name theirs by repos.json's URL): each fold's weights are fitted on the others and
           scored on it. A change is kept only when it gains more than LTR_MARGIN (default 2)
           queries' worth on the training folds; at 0.5 the fits chased noise and lost on the
           held-out folds. Prints, per set, language and query kind, today's order against
           the held-out-fold order, and writes the weights fitted on everything (--rust) as
           the table `src/search/learned.rs` reads. `--kinds` refits only the rows named;
           the others are written back as they are.

  python3 bench/ltr.py collect --bin BIN --concept-work /tmp/evc-s --shortq-work /tmp/esq-s \\
      --issues-work /tmp/evi-head --mirrors /work/.mirror --out /tmp/ltr.jsonl \\
      [--shortq /tmp/sc.jsonl=/tmp/evk --shortq /tmp/big.jsonl=/tmp/evb ...]
  python3 bench/ltr.py fit /tmp/ltr.jsonl [--kinds name,topic,issue] [--rust src/search/learned_table.rs]
  python3 bench/ltr.py fit /tmp/ltr.jsonl --ablate --kinds topic   # each group weighed 0 / 0.5 / 2

The description row (`behaviour`) was refitted on five short-question sets in the
thirty-third session (bench/RESULTS.md): refit it with those (`collect --shortq ...`, `fit
--kinds behaviour`), and the other rows on the three development sets with `--kinds
name,topic,issue`, so that neither refit undoes the other.
"""
import argparse, collections, json, os, random, re, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import eval as ev  # noqa: E402

CONCEPT = os.path.join(HERE, "..", "..", "shared", "eval", "concept")
sys.path.insert(0, CONCEPT)
import run as concept  # noqa: E402  (the concept set's own metric: ndcg, path_matches)
SETS = {"shortq": os.path.join(HERE, "shortq.jsonl"),
        "issues": os.path.join(HERE, "..", "..", "shared", "eval", "dev.jsonl")}
DEPTH = 40
# The feature groups a weight applies to, in the order of the Rust table.
GROUPS = ["bm25", "vector", "symbol", "file", "title", "commits", "vector_files",
          "path_and_recency", "neighbours", "file_only",
          "coherence", "module", "path_words", "topic_file", "definition"]
START = [1.0] * len(GROUPS)
KINDS = ["name", "topic", "behaviour", "issue"]
# Features of hits placed by position after the order is set (`search::learned::group`): a
# history partner, a header's implementation, an issue's best lines in a file, a description's
# function in its first file, a file's further hit after the next file. Their hits keep their
# places in a refit.
PLACED = ("changed_with", "implementation", "best_in_file", "described_function", "file_shown_above")


def group(c):
    """The weight group of one contribution; None for those the scorer leaves alone."""
    f = c["feature"]
    if f == "retrieved":
        return c["by"]
    if f == "file_ranked":  # a whole-file list; the vector list's files weigh apart from its chunks
        return "vector_files" if c["by"] == "vector" else c["by"]
    if f in PLACED:
        return None
    return f


def search(binary, cwd, env, query, extra):
    p = subprocess.run([binary, "search", "--json", "-q", "--explain", "-n", str(DEPTH)] + extra + ["--", query],
                       cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"search failed in {cwd}: {p.stderr}")
    out, kind = [], None
    for line in p.stdout.splitlines():
        h = json.loads(line)
        kind = h.get("read_as")
        out.append({"path": h["path"], "start": h["start_line"], "end": h["end_line"], "score": h["score"],
                    "explain": h.get("explain") or []})
    return out, kind


def collect_concept(binary, work, where=CONCEPT, sub="concept"):
    """The concept set's questions (or, with `where`, a set of the same layout: the check set
    in bench/concept-check, named `sub`) on the one-commit trees run.py left in `work`."""
    env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1", NO_COLOR="1")
    for spec in json.load(open(os.path.join(where, "repos.json"))):
        ann = os.path.join(where, "annotations", spec["name"] + ".json")
        d = os.path.join(work, spec["name"])
        if not (os.path.exists(ann) and os.path.isdir(d)):
            continue
        for item in json.load(open(ann)):
            targets = [t if isinstance(t, str) else t["path"] for t in item.get("relevant", []) + item.get("secondary", [])]
            hits, kind = search(binary, d, env, item["query"], ["--no-index"])
            yield {"set": "concept", "sub": sub, "repo": spec["name"], "language": spec["language"], "query": item["query"],
                   "origin": spec["url"].split("github.com/")[1].removesuffix(".git"),
                   "kind": kind, "targets": targets, "hits": hits}


def collect_eval(binary, name, work, mirrors, path=None):
    """Rows of one eval.py set (`path`, or the set `name` stands for) whose indexes `work`
    holds; `sub` names a set given by path after its file, so that several short sets are
    summarised apart."""
    sub = os.path.splitext(os.path.basename(path))[0] if path else name
    for it in (json.loads(l) for l in open(path or SETS[name])):
        gitdir = ev.mirror_dir(mirrors, it["repo"])
        if gitdir is None or not os.path.isdir(os.path.join(work, "index-" + it["repo"].replace("/", "+"))):
            continue
        wt, env = ev.reuse_setup(work, gitdir, it["repo"])
        hits, kind = search(binary, wt, env, it["query"],
                            ["--no-index", "--mode", "hybrid", "--branch", "detached/" + it["commit"]])
        yield {"set": name, "sub": sub, "repo": it["repo"], "language": it["language"], "query": it["query"], "kind": kind,
               "gold_files": it["gold_files"], "gold_spans": it.get("gold_spans") or [],
               "gold_functions": it.get("gold_functions") or [], "hits": hits}


def features(hit):
    """group -> summed value of the hit's contributions; the rest (history partners) apart."""
    out = collections.defaultdict(float)
    for c in hit["explain"]:
        g = group(c)
        if g is not None:
            out[g] += c["value"]
    return out


def prepare(rows):
    """Per query: each hit as a feature vector plus its fixed position when a
    stage placed it by position (`PLACED`: those keep their places)."""
    for r in rows:
        r["kind"] = r.get("kind") or "topic"  # no hits: nothing to order
        r["x"] = [[features(h).get(g, 0.0) for g in GROUPS] for h in r["hits"]]
        r["pinned"] = [any(c["feature"] in PLACED for c in h["explain"]) for h in r["hits"]]
    return rows


def order(r, w):
    """The hits' indices in the order the weights give (stable: ties keep today's order),
    history partners kept at their positions."""
    free = [i for i, p in enumerate(r["pinned"]) if not p]
    score = lambda i: sum(a * b for a, b in zip(w, r["x"][i]))
    free.sort(key=lambda i: -score(i))
    out, it = [], iter(free)
    for i, p in enumerate(r["pinned"]):
        out.append(i if p else next(it))
    return out


def overlaps(h, ranges):
    return any(h["path"] == g["path"] and h["start"] <= g["end_line"] and h["end"] >= g["start_line"] for g in ranges)


def metrics(r, idx):
    """The set's own measures of the top 10 in order `idx`."""
    hits = [r["hits"][i] for i in idx][:10]
    if r["set"] == "concept":
        ranks = [next((i for i, h in enumerate(hits, 1) if concept.path_matches(h["path"], t)), 0)
                 for t in r["targets"]]
        return {"ndcg10": concept.ndcg(ranks, len(r["targets"]))}
    files = []  # as bench/eval.py's cs_rank: the first distinct files of all the hits
    for h in (r["hits"][i] for i in idx):
        if h["path"] not in files:
            files.append(h["path"])
    out = ev.score(files, r["gold_files"])
    line = r["gold_functions"] if r["set"] == "shortq" else r["gold_spans"]
    first = next((i + 1 for i, h in enumerate(hits) if overlaps(h, line)), None) if line else None
    out["line10"] = float(first is not None) if line else None
    out["line_mrr10"] = (1 / first if first else 0.0) if line else None
    return out


def objective(r, idx):
    """One number per query to fit: the concept metric, or the mean of file nDCG@10 and the
    line-level MRR@10 (the gold function or span) where a set has line gold."""
    m = metrics(r, idx)
    if r["set"] == "concept":
        return m["ndcg10"]
    if m.get("line_mrr10") is None:
        return m["ndcg10"]
    return 0.5 * (m["ndcg10"] + m["line_mrr10"])


def total(rows, weights):
    return sum(objective(r, order(r, weights[r["kind"]])) for r in rows)


MARGIN = float(os.environ.get("LTR_MARGIN", "2"))
STEPS = [0.0, 0.25, 0.5, 0.75, 1.25, 1.5, 2.0, 3.0]


def fit(rows, rounds=3, kinds=KINDS):
    """Coordinate ascent from all ones: each kind's weights on that kind's queries, one
    group at a time over a grid of multipliers, kept only when the sum improves by more than
    a query's worth of noise. Kinds not in `kinds` keep their row."""
    weights = {k: START[:] for k in KINDS}
    for k in kinds:
        mine = [r for r in rows if r["kind"] == k]
        if not mine:
            continue
        w = weights[k]
        best = total(mine, {k: w})
        for _ in range(rounds):
            changed = False
            for g in range(len(START)):
                if not any(x[g] for r in mine for x in r["x"]):
                    continue
                base = w[g]
                for m in STEPS:
                    trial = w[:]
                    trial[g] = base * m if base else m
                    s = total(mine, {k: trial})
                    if s > best + MARGIN:
                        best, w, changed = s, trial, True
            if not changed:
                break
        weights[k] = w
    return weights


def origin(r):
    """The repository a question is about, whatever the set: the three sets share some (the
    short questions' and the issues' repositories overlap, and concept holds flask, gson and
    fmt), and a fold must leave a repository out of every set at once."""
    return r.get("origin", r["repo"]).lower()


def folds(rows, n=5, seed=7):
    repos = sorted({origin(r) for r in rows})
    random.Random(seed).shuffle(repos)
    return {rp: i % n for i, rp in enumerate(repos)}


def summarise(rows, orders):
    by = collections.defaultdict(list)
    for r, idx in zip(rows, orders):
        m = metrics(r, idx)
        keys = [r["set"], f"{r['set']}/{r['language']}", f"{r['set']}/{r['kind']}"]
        if r.get("sub") and r["sub"] != r["set"]:
            keys += [f"{r['set']}:{r['sub']}", f"{r['set']}:{r['sub']}/{r['kind']}"]
        for key in keys:
            by[key].append(m)
    out = {}
    for key, ms in by.items():
        out[key] = {name: round(statistics.mean(m[name] for m in ms if m.get(name) is not None), 4)
                    for name in ms[0] if any(m.get(name) is not None for m in ms)}
        out[key]["n"] = len(ms)
    return out


def concept_mean_over_languages(rows, orders, sub="concept"):
    """run.py's figure: per repository, then per language, then over languages (of the
    concept set, or with `sub` of the check set)."""
    rep = collections.defaultdict(list)
    lang = {}
    for r, idx in zip(rows, orders):
        if r["set"] == "concept" and r.get("sub", "concept") == sub:
            rep[r["repo"]].append(metrics(r, idx)["ndcg10"])
            lang[r["repo"]] = r["language"]
    by_lang = collections.defaultdict(list)
    for repo, v in rep.items():
        by_lang[lang[repo]].append(statistics.mean(v))
    return round(statistics.mean(statistics.mean(v) for v in by_lang.values()), 4) if by_lang else None


def current_table(path):
    """The weights the collected features were weighed with (`--explain` shows weighed
    values, so a fit's weights multiply these): the Rust table's rows, by kind. A group a row
    weighs at 0 leaves no feature to collect (its stage may not even run), so a fit cannot
    raise it: set the row's weight to 1 in the table, rebuild and collect again to refit it."""
    text = open(path).read().split("pub const WEIGHTS", 1)[1]
    rows = re.findall(r"\[([-0-9.eE+,\s]+)\]", text)
    table = {k: [float(x) for x in row.replace(",", " ").split()] for k, row in zip(KINDS, rows)}
    assert len(table) == len(KINDS) and all(len(v) == len(GROUPS) for v in table.values()), path
    return table


def rust_table(weights):
    lines = ["//! The learned scorer's weights (`search::learned`), written by `bench/ltr.py fit --rust`",
             "//! from `--explain`'s features on the development sets (the description row on five short-question",
             "//! sets): one row per query kind, one weight per feature group. Refit rather than edit;",
             "//! RESULTS.md has each fold's held-out score.",
             "", "/// Feature groups, in the order of each row.",
             f"pub const GROUPS: [&str; {len(GROUPS)}] = ["]
    lines += [f'    "{g}",' for g in GROUPS]
    lines += ["];", "", "/// Weights by query kind (`search::learned::Kind`): a name, a topic, a question saying what",
              "/// one piece of code does, a pasted issue.",
              f"pub const WEIGHTS: [[f64; {len(GROUPS)}]; {len(KINDS)}] = ["]
    for k in KINDS:
        lines.append(f"    // {k}")
        lines.append("    [")
        lines += [f"        {float(x)!r}," for x in weights[k]]
        lines.append("    ],")
    lines.append("];")
    return "\n".join(lines) + "\n"


def set_figures(rows, orders):
    """Each set's figure under `orders`: the concept sets' mean over languages, the others'
    mean objective (a short set's or the issues' file nDCG@10 and line MRR@10), by `sub`."""
    out = {}
    for sub in ("concept", "concept-check"):
        out[sub] = concept_mean_over_languages(rows, orders, sub)
    by = collections.defaultdict(list)
    for r, idx in zip(rows, orders):
        if r["set"] != "concept":
            by[r.get("sub", r["set"])].append(objective(r, idx))
    out.update({k: statistics.mean(v) for k, v in by.items()})
    return {k: v for k, v in out.items() if v is not None}


def ablate(rows, kinds):
    """Per kind and feature group: each set's figure with that group weighed 0 (and 0.5,
    2), less today's. A rule fitted to some repositories loses there and not elsewhere."""
    today = set_figures(rows, [order(r, START) for r in rows])
    print("today: " + json.dumps({k: round(v, 4) for k, v in today.items()}))
    for kind in kinds:
        mine = [r for r in rows if r["kind"] == kind]
        for g, name in enumerate(GROUPS):
            if not any(x[g] for r in mine for x in r["x"]):
                continue
            for m in (0.0, 0.5, 2.0):
                w = START[:]
                w[g] = m
                s = set_figures(rows, [order(r, w if r["kind"] == kind else START) for r in rows])
                print(f"{kind} {name} x{m}: " + json.dumps({k: round(s[k] - today[k], 4) for k in today}))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--bin", required=True)
    c.add_argument("--concept-work")
    c.add_argument("--concept-check-work", help="the work directory bench/concept_check.py left")
    c.add_argument("--shortq-work")
    c.add_argument("--shortq", action="append", default=[], metavar="SET=WORK",
                   help="one more short-question set and the work directory eval.py left for it "
                        "(check sets: /tmp/sc.jsonl=/tmp/evk, ...); repeatable")
    c.add_argument("--issues-work")
    c.add_argument("--mirrors", default="/work/.mirror")
    c.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("data")
    f.add_argument("--rust")
    f.add_argument("--json")
    f.add_argument("--ablate", action="store_true",
                   help="instead of fitting: each set's figure with each group of the kinds weighed "
                        "0, 0.5 and 2, against today's")
    f.add_argument("--kinds", default=",".join(KINDS),
                   help="the rows to refit (the others keep theirs), e.g. behaviour: a topic's "
                        "refit moves the concept set, which only a real run judges")
    a = ap.parse_args()
    if a.cmd == "collect":
        binary = os.path.abspath(a.bin)
        with open(a.out, "w") as out:
            gens = []
            if a.concept_work:
                gens.append(collect_concept(binary, a.concept_work))
            if a.concept_check_work:
                gens.append(collect_concept(binary, a.concept_check_work,
                                            os.path.join(HERE, "concept-check"), "concept-check"))
            if a.shortq_work:
                gens.append(collect_eval(binary, "shortq", a.shortq_work, a.mirrors))
            for spec in a.shortq:
                path, _, work = spec.partition("=")
                if not (os.path.isfile(path) and os.path.isdir(work)):
                    raise SystemExit(f"--shortq {spec}: want SET=WORK, an eval.py set and the work directory its run left")
                gens.append(collect_eval(binary, "shortq", work, a.mirrors, path))
            if a.issues_work:
                gens.append(collect_eval(binary, "issues", a.issues_work, a.mirrors))
            for g in gens:
                for row in g:
                    out.write(json.dumps(row) + "\n")
        return
    rows = prepare([json.loads(l) for l in open(a.data)])
    kinds = [k for k in a.kinds.split(",") if k]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise SystemExit(f"unknown kinds {sorted(unknown)}: {KINDS}")
    if a.ablate:
        ablate(rows, kinds)
        return
    fold = folds(rows)
    today = [order(r, START) for r in rows]
    held = [None] * len(rows)
    fitted = []
    for k in sorted(set(fold.values())):
        train = [r for r in rows if fold[origin(r)] != k]
        w = fit(train, kinds=kinds)
        fitted.append(w)
        for i, r in enumerate(rows):
            if fold[origin(r)] == k:
                held[i] = order(r, w[r["kind"]])
    a_ = summarise(rows, today)
    b_ = summarise(rows, held)
    print("| group | n | measure | today | held-out fold |")
    print("|---|---|---|---|---|")
    for key in sorted(a_):
        for m in a_[key]:
            if m != "n" and m in ("ndcg10", "line10", "line_mrr10", "mrr10"):
                print(f"| {key} | {a_[key]['n']} | {m} | {a_[key][m]} | {b_[key][m]} |")
    for sub in ("concept", "concept-check"):
        if any(r.get("sub", "concept") == sub for r in rows if r["set"] == "concept"):
            print(f"{sub}, mean over languages: today {concept_mean_over_languages(rows, today, sub)}, "
                  f"held-out {concept_mean_over_languages(rows, held, sub)}")
    for i, w in enumerate(fitted):
        print(f"fold {i}: " + json.dumps({k: [round(x, 3) for x in v] for k, v in w.items()}))
    if a.rust or a.json:
        w = fit(rows, kinds=kinds)
        print("all: " + json.dumps({k: [round(x, 3) for x in v] for k, v in w.items()}))
        if a.rust:
            base = current_table(a.rust)
            open(a.rust, "w").write(rust_table({k: [b * m for b, m in zip(base[k], w[k])] for k in KINDS}))
        if a.json:
            # "multipliers": of the table the features were collected with (see current_table).
            json.dump({"groups": GROUPS, "multipliers": w, "today": a_, "held_out": b_}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
