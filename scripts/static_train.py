"""Tokenlearn-style training of the static model, in numpy (the gradients of a mean of rows
are a sparse product; no autograd needed): the student's vector of a text is the mean of its
WordPiece tokens' rows; the loss is 1 - cosine to the teacher's vector of the same text;
Adam updates only the rows a batch touched (as torch's SparseAdam does). Then PCA to
`dims` and a frequency weight per token (SIF, as Model2Vec applies by vocabulary rank)."""

import sys

import numpy as np
import scipy.sparse as sp


def bags(tok, texts):
    """Sparse (texts x vocab) matrix of each text's token shares (its mean), [UNK] left out."""
    unk = tok.token_to_id("[UNK]")
    rows, cols = [], []
    for i, e in enumerate(tok.encode_batch([t["text"] for t in texts], add_special_tokens=False)):
        ids = [t for t in e.ids if t != unk] or [tok.token_to_id("empty")]
        rows.extend([i] * len(ids))
        cols.extend(ids)
    m = sp.csr_matrix((np.ones(len(rows), np.float32), (rows, cols)), shape=(len(texts), tok.get_vocab_size()))
    m.sum_duplicates()
    return sp.csr_matrix(sp.diags(1.0 / np.asarray(m.sum(1)).ravel()) @ m, dtype=np.float32)


def cosine_grad(p, y):
    """Loss 1 - cos(p, y) per row (y unit length) and its gradient with respect to p."""
    n = np.linalg.norm(p, axis=1, keepdims=True) + 1e-9
    ph = p / n
    cos = (ph * y).sum(1, keepdims=True)
    return 1 - cos.ravel(), -(y - cos * ph) / n


def contrast_grad(pq, pc, tau):
    """In-batch InfoNCE loss of queries pq against their code pc (row i is i's answer), and
    its gradients with respect to pq and pc."""
    nq = np.linalg.norm(pq, axis=1, keepdims=True) + 1e-9
    nc = np.linalg.norm(pc, axis=1, keepdims=True) + 1e-9
    q, c = pq / nq, pc / nc
    s = q @ c.T / tau
    s -= s.max(1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(1, keepdims=True)
    b = len(q)
    loss = -np.log(p[np.arange(b), np.arange(b)] + 1e-12).mean()
    ds = (p - np.eye(b, dtype=np.float32)) / b
    gq, gc = ds @ c / tau, ds.T @ q / tau
    gq = (gq - (gq * q).sum(1, keepdims=True) * q) / nq
    gc = (gc - (gc * c).sum(1, keepdims=True) * c) / nc
    return loss, gq, gc


def fit(table, x, y, epochs, seed, lr=0.01, batch=256, holdout=None, pairs=None, weight=0.0, tau=0.05):
    """Adam on the rows of `table` so that normalise(x @ table) approaches y, and (when
    `pairs` = (query bags, code bags) and `weight` > 0) so that a query is nearer its code
    than the batch's other code."""
    rng = np.random.default_rng(seed)
    e = table.astype(np.float32).copy()
    m, v = np.zeros_like(e), np.zeros_like(e)
    b1, b2, eps, step = 0.9, 0.999, 1e-8, 0
    for epoch in range(epochs):
        order = rng.permutation(x.shape[0])
        porder = rng.permutation(pairs[0].shape[0]) if weight > 0 else None
        total, ctotal = 0.0, 0.0
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            parts = [x[idx]]
            if weight > 0:
                at = (s // batch * batch) % max(1, len(porder) - batch)
                pidx = porder[at:at + batch]
                parts += [pairs[0][pidx], pairs[1][pidx]]
            xall = sp.vstack(parts).tocsr()
            cols = np.unique(xall.indices)
            xc = xall[:, cols]
            p = xc @ e[cols]
            nb = len(idx)
            loss, g = cosine_grad(p[:nb], y[idx])
            total += loss.sum()
            if weight > 0:
                k = len(pidx)
                closs, gq, gcode = contrast_grad(p[nb:nb + k], p[nb + k:], tau)
                ctotal += closs * nb
                g = np.vstack([g / nb, weight * gq, weight * gcode]) * nb
            grad = (xc.T @ g).astype(np.float32)
            step += 1
            m[cols] = b1 * m[cols] + (1 - b1) * grad
            v[cols] = b2 * v[cols] + (1 - b2) * grad * grad
            mh = m[cols] / (1 - b1 ** step)
            vh = v[cols] / (1 - b2 ** step)
            e[cols] -= lr * mh / (np.sqrt(vh) + eps)
        msg = f"epoch {epoch + 1}: train loss {total / len(order):.4f} contrast {ctotal / len(order):.4f}"
        if holdout is not None:
            hx, hy = holdout
            msg += f", held-out loss {cosine_grad(hx @ e, hy)[0].mean():.4f}"
        print(msg, file=sys.stderr, flush=True)
    return e


def pca(table, dims, weights=None):
    """Project rows on their `dims` principal axes (fitted on the rows, optionally weighted)."""
    w = np.ones(len(table)) if weights is None else weights
    mu = (table * w[:, None]).sum(0) / w.sum()
    c = table - mu
    cov = (c * w[:, None]).T @ c / w.sum()
    vals, vecs = np.linalg.eigh(cov.astype(np.float64))
    axes = vecs[:, np.argsort(vals)[::-1][:dims]]
    # A fixed sign per axis, so reruns give the same file.
    axes *= np.sign(axes[np.abs(axes).argmax(0), np.arange(axes.shape[1])])
    return (c @ axes).astype(np.float32)


def sif(counts, a=1e-3):
    """SIF weight a / (a + p) of each token from its corpus share p (add-one smoothed)."""
    p = (counts + 1) / (counts + 1).sum()
    return (a / (a + p)).astype(np.float32)


def pair_bags(tok, all_texts):
    """Bags of (query, its code chunk) for every query whose definition was in a chunk."""
    code = {t["id"]: t for t in all_texts if t["kind"] == "code"}
    qs = [t for t in all_texts if t["kind"] != "code" and t.get("pair", -1) in code]
    return bags(tok, qs), bags(tok, [code[t["pair"]] for t in qs])


def train(tok, vocab, distilled, texts, targets, args, all_texts=()):
    x = bags(tok, texts)
    rng = np.random.default_rng(args.seed)
    held = rng.random(len(texts)) < 0.05
    train_idx, held_idx = np.where(~held)[0], np.where(held)[0]
    pairs = pair_bags(tok, all_texts) if args.contrast > 0 else None
    table = fit(distilled, x[train_idx], targets[train_idx], args.epochs, args.seed,
                holdout=(x[held_idx], targets[held_idx]), pairs=pairs, weight=args.contrast)
    # Document frequencies over every text, code and queries (not only the teacher's share).
    counts = np.asarray((bags(tok, all_texts or texts) > 0).sum(0)).ravel().astype(np.float64)
    out = pca(table, args.dims)
    if getattr(args, "sif", 0):
        out *= sif(counts, args.sif)[:, None]
    return out
