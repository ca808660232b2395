#!/usr/bin/env python3
"""Build the short-question development set from the dev repositories (CodeSearchNet setup).

Usage:
  python3 bench/shortq.py --set ../shared/eval/dev.jsonl --mirrors /work/.mirror \\
      --out bench/shortq.jsonl [--per-repo 16]

For each repository of the issue set it takes the newest commit the set names, and samples,
deterministically (by a hash of repository, path and name), functions that
- are not in tests, examples, benchmarks, docs, generated or vendored code,
- have at least 3 body lines,
- carry a doc comment whose first sentence has 5-25 words, reads as English prose, does not
  name the function, and occurs once in the tree.
It then deletes the whole doc comment of every sampled function, writes that tree as one
commit of its own into the mirror's object database (fixed author and date, so the commit id
is the same on every machine; a ref `refs/codesearch-eval/shortq-<first 12 hex digits of that
commit>` keeps it), and writes one
JSON line per question in the issue set's schema: the question is the first sentence, the
gold function is the function's lines in the stripped file. Run every mode on it with
`bench/eval.py --set bench/shortq.jsonl`.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from eval import mirror_dir  # noqa: E402
import shortq_langs  # noqa: E402
from shortq_langs import brace_end  # noqa: E402

EXT = {".py": "python", ".rs": "rust", ".go": "go", ".java": "java", ".js": "javascript",
       ".ts": "typescript", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp"}
SKIP_DIR = re.compile(r"(^|/)(tests?|testing|examples?|benches|benchmarks?|docs?|vendor|third_party|"
                      r"thirdparty|external|deps|node_modules|fixtures?|generated|build|dist)(/|$)", re.I)
SKIP_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test\.[a-z]+|[^/]*Test\.java|[^/]*\.test\.[jt]s|"
                       r"[^/]*\.min\.js|conftest\.py|setup\.py)$", re.I)
ENV = dict(os.environ, GIT_AUTHOR_NAME="shortq", GIT_AUTHOR_EMAIL="shortq@localhost",
           GIT_COMMITTER_NAME="shortq", GIT_COMMITTER_EMAIL="shortq@localhost",
           GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")


def git(gitdir, *args, input=None):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True,
                          input=input, env=ENV).stdout


def first_sentence(doc):
    """The doc text's first sentence, one line, or None."""
    lines = []
    for line in doc.splitlines():
        line = re.sub(r"^[@\\]brief\s+", "", line.strip())
        if not line or line.startswith(("@", ":param", ":return", "Args:", "Returns:", "#", "```")):
            if lines:
                break
            continue
        lines.append(line)
    text = " ".join(lines)
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return (m.group(1) if m else text).strip()


def without_name(sentence, name):
    """Go's convention starts a doc comment with the function's name ("Foo returns …"):
    the rest of the sentence is the question."""
    first, _, rest = sentence.partition(" ")
    if first.strip(",.:") == name and rest:
        return rest[0].upper() + rest[1:]
    return sentence


def prose(sentence, name):
    words = sentence.split()
    if not 5 <= len(words) <= 25:
        return False
    if name.lower() in sentence.lower():
        return False
    plain = [w for w in words if re.fullmatch(r"[A-Za-z][a-z'-]*[,.;:!?]?", w)]
    return len(plain) >= 0.8 * len(words) and not re.search(r"[`{}\[\]<>=/\\]|::|->|\(\)", sentence)


def python_functions(lines):
    """(name, doc start, doc end, def start, end) of documented functions, 0-based inclusive."""
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"(\s*)(async\s+)?def\s+(\w+)\s*\(", line)
        if not m:
            continue
        indent = len(m.group(1))
        j = i
        while j < len(lines) and not lines[j].rstrip().endswith(":"):
            j += 1
        k = j + 1
        if k >= len(lines):
            continue
        dm = re.match(r'\s*[rRuU]?("""|\'\'\')', lines[k])
        if not dm:
            continue
        q = dm.group(1)
        rest = lines[k].split(q, 1)[1]
        d_end = k if q in rest else next((x for x in range(k + 1, len(lines)) if q in lines[x]), None)
        if d_end is None:
            continue
        end = d_end
        for x in range(d_end + 1, len(lines)):
            if lines[x].strip() and len(lines[x]) - len(lines[x].lstrip()) <= indent:
                break
            if lines[x].strip():
                end = x
        doc = "\n".join(lines[k:d_end + 1]).replace(q, "")
        out.append((m.group(3), k, d_end, i, end, doc))
    return out


SIG = {
    "rust": re.compile(r"\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)"),
    "go": re.compile(r"func\s+(\([^)]*\)\s*)?(\w+)\s*\("),
    "java": re.compile(r"\s*(public|protected|private|static|final|synchronized|abstract|\s)*[\w<>\[\], ?]+\s+(\w+)\s*\([^;]*$"),
    "javascript": re.compile(r"\s*(export\s+)?(async\s+)?function\s*\*?\s*(\w+)\s*\(|\s*(static\s+)?(async\s+)?(\w+)\s*\([^)]*\)\s*\{"),
    "typescript": re.compile(r"\s*(export\s+)?(async\s+)?function\s+(\w+)\s*[<(]"),
    "arrow": re.compile(r"\s*(export\s+)?(const|let|var)\s+(\w+)\s*=\s*(async\s*)?(\([^)]*\)|\w+)\s*=>"),
    "c": re.compile(r"[A-Za-z_][\w\s\*]*?\b(\w+)\s*\([^;]*$"),
    "cpp": re.compile(r"[A-Za-z_][\w\s\*:&<>,]*?\b(\w+)\s*\([^;]*$"),
}
KEYWORDS = {"if", "for", "while", "switch", "return", "catch", "sizeof", "else", "new", "do"}


def brace_functions(lines, lang):
    """Documented functions of brace languages: a `///`, `//` or `/** */` comment right above."""
    out = []
    sig = SIG[lang]
    for i, line in enumerate(lines):
        m = sig.match(line)
        if not m and lang in ("javascript", "typescript"):
            m = SIG["arrow"].match(line)
        if not m or line.strip().startswith(("//", "*", "/*", "#")):
            continue
        name = [g for g in m.groups() if g and re.fullmatch(r"\w+", g) and g not in KEYWORDS]
        if not name:
            continue
        name = name[-1]
        j = i - 1
        while j >= 0 and re.match(r"\s*(#\[|@\w|template\s*<)", lines[j]):  # attributes, annotations
            j -= 1
        if j < 0:
            continue
        if lines[j].strip().endswith("*/"):
            k = j
            while k >= 0 and "/**" not in lines[k] and "/*!" not in lines[k]:
                if "/*" in lines[k]:
                    k = -1
                    break
                k -= 1
            if k < 0:
                continue
            doc = "\n".join(re.sub(r"^\s*(/\*\*|/\*!|\*/|\*)?", "", l).replace("*/", "") for l in lines[k:j + 1])
        elif lang in ("rust", "go", "c", "cpp") and re.match(r"\s*//", lines[j]):
            mark = "///" if lang == "rust" else "//"
            k = j
            while k - 1 >= 0 and re.match(r"\s*" + mark + r"(?!/)", lines[k - 1]):
                k -= 1
            if lang == "rust" and not re.match(r"\s*///", lines[j]):
                continue
            doc = "\n".join(re.sub(r"^\s*//+!?", "", l) for l in lines[k:j + 1])
        else:
            continue
        end = brace_end(lines, i)
        if end is None:
            continue
        out.append((name, k, j, i, end, doc))
    return out


def candidates(gitdir, commit, language):
    """Documented functions of `commit`: in the languages above, or, for a repository of one of
    `shortq_langs`' languages, in that language only (so the earlier sets stay as they were)."""
    exts = EXT if language not in shortq_langs.EXT.values() else \
        {e: lang for e, lang in shortq_langs.EXT.items() if lang == language}
    files = git(gitdir, "ls-tree", "-r", "--name-only", "-z", commit).decode("utf-8", "replace").split("\0")
    for path in files:
        ext = os.path.splitext(path)[1]
        if ext not in exts or SKIP_DIR.search(path) or SKIP_FILE.search(path):
            continue
        try:
            text = git(gitdir, "cat-file", "blob", f"{commit}:{path}").decode("utf-8")
        except (subprocess.CalledProcessError, UnicodeDecodeError):
            continue
        if "generated" in text[:500].lower():
            continue
        lang = exts[ext]
        lines = text.split("\n")
        if lang == "python":
            found = python_functions(lines)
        elif lang in SIG:
            found = brace_functions(lines, lang)
        else:
            found = shortq_langs.functions(lines, lang)
        for name, d0, d1, f0, f1, doc in found:
            body = f1 - f0 - (d1 - d0 + 1 if lang == "python" else 0)
            if body < 3:
                continue
            written = first_sentence(doc)
            sentence = without_name(written, name)
            if sentence and prose(sentence, name):
                yield {"path": path, "lang": lang, "name": name, "doc": (d0, d1), "fn": (f0, f1),
                       "sentence": sentence, "written": written, "text": text}


def occurs_once(gitdir, commit, sentence):
    p = subprocess.run(["git", "--git-dir", gitdir, "grep", "-c", "-F", "-e", sentence, commit],
                       capture_output=True, text=True)
    return sum(int(l.rsplit(":", 1)[1]) for l in p.stdout.splitlines() if l) == 1


def strip_and_commit(gitdir, commit, chosen):
    """One commit of `commit`'s tree with every chosen doc comment deleted; gold lines of the
    stripped files."""
    by_path = {}
    for c in chosen:
        by_path.setdefault(c["path"], []).append(c)
    index = os.path.join(gitdir, "shortq-index")
    env = dict(ENV, GIT_INDEX_FILE=index)
    subprocess.run(["git", "--git-dir", gitdir, "read-tree", commit], check=True, env=env)
    for path, items in by_path.items():
        lines = items[0]["text"].split("\n")
        drop = set()
        for c in items:
            drop.update(range(c["doc"][0], c["doc"][1] + 1))
        kept_before = [0] * (len(lines) + 1)
        for i in range(len(lines)):
            kept_before[i + 1] = kept_before[i] + (i not in drop)
        for c in items:
            start = c["fn"][0] if c["lang"] != "python" else c["fn"][0]
            c["gold"] = (kept_before[start] + 1, kept_before[c["fn"][1] + 1])
        new = "\n".join(l for i, l in enumerate(lines) if i not in drop).encode()
        blob = git(gitdir, "hash-object", "-w", "--stdin", input=new).decode().strip()
        mode = "100644"
        subprocess.run(["git", "--git-dir", gitdir, "update-index", "--cacheinfo", f"{mode},{blob},{path}"],
                       check=True, env=env)
    tree = subprocess.run(["git", "--git-dir", gitdir, "write-tree", "--missing-ok"], check=True, env=env,
                          capture_output=True, text=True).stdout.strip()
    os.remove(index)
    new = git(gitdir, "commit-tree", tree, "-p", commit, "-m", "shortq: doc comments removed").decode().strip()
    # Named by the new commit: two sets drawn from one commit (a check set, and a larger
    # sample of the same repository) each keep theirs.
    git(gitdir, "update-ref", f"refs/codesearch-eval/shortq-{new[:12]}", new)
    return new


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True)
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-repo", type=int, default=20)
    ap.add_argument("--exclude", action="append", default=[], metavar="SET",
                    help="leave out the questions another set holds (by id and question: "
                         "overloads share an id); repeatable")
    args = ap.parse_args()
    excluded = {(q["id"], q["query"]) for path in args.exclude for q in map(json.loads, open(path))}
    items = [json.loads(l) for l in open(args.set)]
    newest, language = {}, {}
    for it in items:  # the set lists a repository's items oldest first
        newest[it["repo"]] = it["commit"]
        language[it["repo"]] = it["language"]
    out = []
    for repo, commit in sorted(newest.items()):
        gitdir = mirror_dir(args.mirrors, repo)
        if gitdir is None:
            print(f"skipping {repo}: no mirror", file=sys.stderr)
            continue
        cands = sorted(candidates(gitdir, commit, language[repo]),
                       key=lambda c: hashlib.sha1(f"{repo}:{c['path']}:{c['name']}".encode()).hexdigest())
        chosen, seen = [], set()
        for c in cands:
            if len(chosen) >= args.per_repo:
                break
            if c["sentence"] in seen or not occurs_once(gitdir, commit, c["written"]):
                continue
            seen.add(c["sentence"])
            chosen.append(c)
        if not chosen:
            continue
        stripped = strip_and_commit(gitdir, commit, chosen)
        for c in chosen:
            qid = f"{repo}:{c['path']}:{c['name']}"
            if (qid, c["sentence"]) in excluded:
                continue  # its comment is deleted all the same: the tree is the sample's
            out.append({"id": qid, "repo": repo, "commit": stripped,
                        "language": language[repo], "query": c["sentence"], "gold_files": [c["path"]],
                        "source": "shortq (doc comment's first sentence, comment deleted)", "gold_spans": [],
                        "gold_functions": [{"path": c["path"], "name": c["name"], "start_line": c["gold"][0],
                                            "end_line": c["gold"][1]}]})
        print(f"{repo}: {len(chosen)} of {len(cands)} candidates", file=sys.stderr)
    with open(args.out, "w") as f:
        for o in out:
            f.write(json.dumps(o) + "\n")
    langs = {}
    for o in out:
        langs[o["language"]] = langs.get(o["language"], 0) + 1
    print(f"{len(out)} questions: {langs}", file=sys.stderr)


if __name__ == "__main__":
    main()
