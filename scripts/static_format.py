"""The static model's file (read by src/embed/static_model.rs, which documents the layout):
a 32-byte header, one f32 scale per row, the rows as int8, then the vocabulary in byte
order (so the reader finds a token by binary search, with no table to build at start)."""

import struct

import numpy as np

MAGIC = b"GCSSTATC"


def encode(table, vocab):
    """Bytes of the model: `table` (n, d) float rows, `vocab` the n tokens in row order."""
    order = sorted(range(len(vocab)), key=lambda i: vocab[i].encode())
    rows = np.asarray(table, np.float32)[order]
    scale = np.abs(rows).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(rows / scale[:, None]), -127, 127).astype(np.int8)
    text = b"".join(vocab[i].encode() + b"\n" for i in order)
    offsets = np.zeros(len(vocab) + 1, np.uint32)
    offsets[1:] = np.cumsum([len(vocab[i].encode()) + 1 for i in order])
    n, d = q.shape
    header = MAGIC + struct.pack("<IIII8x", 1, d, n, len(text))
    return header + scale.astype("<f4").tobytes() + q.tobytes() + offsets.astype("<u4").tobytes() + text


def decode(blob):
    """(table as float32 in file order, tokens in file order): for checks and evaluation."""
    assert blob[:8] == MAGIC
    version, d, n, t = struct.unpack("<IIII", blob[8:24])
    assert version == 1
    at = 32
    scale = np.frombuffer(blob, "<f4", n, at)
    at += 4 * n
    q = np.frombuffer(blob, np.int8, n * d, at).reshape(n, d)
    at += n * d + 4 * (n + 1)
    tokens = blob[at:at + t].decode().split("\n")[:-1]
    return q.astype(np.float32) * scale[:, None], tokens
