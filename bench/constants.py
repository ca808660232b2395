#!/usr/bin/env python3
"""Constant-name lookups: does a constant's exact name find the line that sets it?

`gen ROOT...` draws, from each indexed work tree under each ROOT (a directory of checkouts,
each with its `.git/codesearch` index, as `concept/run.py --work` and `concept_check.py` leave
them), up to six names per language that a regular expression finds set exactly once (a Rust
`const`/`static`, a Go `const`, a C/C++ `#define`, a Python module-level name in capitals, a
PHP `const`, a C# `const` field, a Java `static final` field, a JavaScript/TypeScript `const` in capitals) and that
some other indexed file uses; six or more characters, with `_` or a camelCase hump, no include
guard, nothing under vendor/ or third_party/. Drawn by the name's SHA-1, so the same trees give
the same set. The regular expressions are this script's, not the index's tags queries.

`run SET BIN OUT` asks `BIN --json -n 10 NAME` in each tree and prints, per language, the
file's MRR@10 and top-1 and the line's MRR@10 (a hit holding the line that sets the name).

    python3 bench/constants.py gen /tmp/evc /tmp/ccw > /tmp/constq.jsonl
    python3 bench/constants.py run /tmp/constq.jsonl target/release/git-codesearch /tmp/out.json
"""
import hashlib, json, os, re, sqlite3, subprocess, sys
from collections import defaultdict

PAT = {
 'rust': (('.rs',), [re.compile(r'^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+(?:mut\s+)?([A-Z][A-Z0-9_]{3,})\s*:')]),
 'go': (('.go',), [re.compile(r'^const\s+([A-Za-z_]\w{3,})\b'), 'goblock']),
 'c': (('.c', '.h', '.cc', '.cpp', '.hpp', '.hh'), [re.compile(r'^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]{3,})(?=\s|$)')]),
 'python': (('.py',), [re.compile(r'^([A-Z][A-Z0-9_]{3,})\s*(?::[^=]*)?=(?!=)')]),
 'php': (('.php',), [re.compile(r'^\s*(?:(?:public|private|protected|final)\s+)*const\s+([A-Z][A-Z0-9_]+)\s*=')]),
 'java': (('.java',), [re.compile(r'\bstatic\s+final\s+[\w<>\[\], ]+?\s([A-Z][A-Z0-9_]{3,})\s*=')]),
 'csharp': (('.cs',), [re.compile(r'\bconst\s+[\w.<>\[\]?]+\s+([A-Za-z_]\w{3,})\s*=')]),
 'js': (('.js', '.ts', '.mjs', '.tsx'), [re.compile(r'^(?:export\s+)?const\s+([A-Z][A-Z0-9_]{3,})\s*=')]),
}
GUARD = re.compile(r'(_H|_H_|_HPP|_INCLUDED|_H__|_HPP_)$')

def defs_in(lang, path, text):
    out = []
    pats = PAT[lang][1]
    inblock = False
    for i, line in enumerate(text.split('\n'), 1):
        for p in pats:
            if p == 'goblock':
                if re.match(r'^const\s*\($', line): inblock = True; continue
                if inblock and line.startswith(')'): inblock = False; continue
                if inblock:
                    m = re.match(r'^\t([A-Za-z_]\w{3,})\b', line)
                    if m: out.append((m.group(1), i))
            else:
                m = p.search(line)
                if m: out.append((m.group(1), i))
    return out

def gen(roots):
    for root in roots:
        for repo in sorted(os.listdir(root)):
            d = os.path.join(root, repo)
            db = sqlite3.connect(os.path.join(d, '.git/codesearch/meta.sqlite'))
            ok = {p for (p,) in db.execute('select path from catalog where skip_reason is null')}
            files = [p for p in ok if not re.search(r'(^|/)(vendor|third_party|thirdparty|node_modules|deps)/', p)]
            defs = defaultdict(list); texts = {}
            for p in files:
                lang = next((l for l, (ext, _) in PAT.items() if p.endswith(ext)), None)
                try: t = open(os.path.join(d, p), encoding='utf-8', errors='replace').read()
                except OSError: continue
                texts[p] = t
                if lang:
                    for name, line in defs_in(lang, p, t):
                        defs[name].append((p, line, lang))
            cands = []
            for name, ds in defs.items():
                if len(ds) != 1 or len(name) < 6 or GUARD.search(name): continue
                if '_' not in name and not re.search(r'[a-z][A-Z]', name): continue
                p, line, lang = ds[0]
                w = re.compile(r'\b%s\b' % re.escape(name))
                users = sum(1 for q, t in texts.items() if q != p and w.search(t))
                if users < 1: continue
                cands.append((hashlib.sha1(name.encode()).hexdigest(), name, p, line, lang, users))
            cands.sort()
            per = defaultdict(int)
            for _, name, p, line, lang, users in cands:
                if per[lang] >= 6: continue
                per[lang] += 1
                print(json.dumps({'repo': repo, 'root': root, 'query': name, 'path': p, 'line': line, 'lang': lang, 'users': users}))

def run(setf, binp, out):
    rows = [json.loads(l) for l in open(setf)]
    res = []
    env = dict(os.environ, GIT_CODESEARCH_BACKGROUND='0')
    for r in rows:
        d = os.path.join(r['root'], r['repo'])
        o = subprocess.run([binp, '--json', '-n', '10', r['query']], cwd=d, capture_output=True, text=True, env=env).stdout
        hits = [json.loads(l) for l in o.splitlines() if l.startswith('{') and '"path"' in l]
        frank = next((i + 1 for i, h in enumerate(hits) if h['path'] == r['path']), None)
        lrank = next((i + 1 for i, h in enumerate(hits) if h['path'] == r['path'] and h['start_line'] <= r['line'] <= h['end_line']), None)
        res.append(dict(r, frank=frank, lrank=lrank, top=[h['path'] for h in hits[:3]]))
    json.dump(res, open(out, 'w'), indent=0)
    summ(res)

def summ(res):
    by = defaultdict(list)
    for r in res: by[r['lang']].append(r); by['ALL'].append(r)
    for k, v in sorted(by.items()):
        mrr = sum(1 / r['frank'] for r in v if r['frank']) / len(v)
        lmrr = sum(1 / r['lrank'] for r in v if r['lrank']) / len(v)
        top1 = sum(1 for r in v if r['frank'] == 1) / len(v)
        print(f"{k:8} n={len(v):3} file MRR@10 {mrr:.3f} top1 {top1:.3f} line MRR@10 {lmrr:.3f}")

if __name__ == '__main__':
    if sys.argv[1] == 'gen': gen(sys.argv[2:])
    elif sys.argv[1] == 'run': run(*sys.argv[2:5])
    else: summ(json.load(open(sys.argv[2])))
