//! A model's vectors in one flat file for exact search in a few milliseconds
//! (`<index dir>/flat/<table>.bin`): every row its content hash, chunk number, language and
//! unit vector at one byte per dimension. Below [`super::lance::ANN_MIN_ROWS`] rows (a million) this
//! file is the vectors' only copy: opening LanceDB costs a search process more than the whole
//! lexical search (a runtime, the table's manifest, a scan through DataFusion: 45 ms on
//! one-commit astropy's 37,000 vectors against 3 ms here), and a LanceDB copy beside it
//! doubled the index (`store::vectors` says where vectors live past that size). The file is
//! only ever replaced whole, by a rename; it is never exported (vectors never travel).

use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};

use super::error::StoreError;
use super::lance::{table_name, VectorHit};
use crate::lang::Language;

/// The key a flat file is written under when it is the vectors' only copy (an older build
/// wrote a LanceDB table's version there: such a file is not read).
pub const RECORD: &str = "record";

/// First bytes of a flat file (the format's version is the last digit).
const MAGIC: &[u8; 8] = b"GCSFLAT1";

/// One row before it is written: chunk id, content hash, language, vector.
pub struct FlatRow<'a> {
    /// Chunk id (`<content hash>:<n>`).
    pub id: &'a str,
    /// Content hash (64 hex digits).
    pub content_hash: &'a str,
    /// Its file's language.
    pub language: Language,
    /// The vector (any length; stored at unit length).
    pub vector: &'a [f32],
}

/// One row as stored: content hash, chunk number, language, and the vector at unit length,
/// one signed byte per dimension (×127).
pub struct Stored<'a> {
    /// The content hash's bytes.
    pub hash: [u8; 32],
    /// The chunk's number within its content.
    pub chunk: u32,
    /// Its file's language.
    pub language: Language,
    /// The quantised vector (`i8` as bytes).
    pub vector: Cow<'a, [u8]>,
}

/// A flat file read into memory.
pub struct Flat {
    dim: usize,
    /// The languages a row's number names, in the order of their names.
    languages: Vec<Language>,
    /// The file, mapped; from `start`, rows of `row_len` bytes: hash (32), chunk (u32),
    /// language (u16), vector (i8 × dim).
    bytes: memmap2::Mmap,
    start: usize,
}

/// The directory of the flat files, given the LanceDB directory.
pub fn dir_of(lance_dir: &Path) -> PathBuf {
    lance_dir.with_file_name("flat")
}

/// Where the flat file of `model`'s vectors lives, given the LanceDB directory.
pub fn path_of(lance_dir: &Path, model: &str) -> PathBuf {
    dir_of(lance_dir).join(format!("{}.bin", table_name(model)))
}

/// Remove the flat file at `path`; one that is already gone is what removing it wanted.
pub fn remove(path: &Path) -> Result<(), StoreError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(StoreError::file(path, "remove")(e))
        }
        _ => Ok(()),
    }
}

fn row_len(dim: usize) -> usize {
    32 + 4 + 2 + dim
}

impl<'a> Stored<'a> {
    /// A row to store, its vector quantised.
    pub fn of(r: &FlatRow<'a>) -> Stored<'a> {
        let (hash, chunk) = split_id(r.id, r.content_hash);
        Stored {
            hash,
            chunk,
            language: r.language,
            vector: Cow::Owned(quantize(r.vector).into_iter().map(|b| b as u8).collect()),
        }
    }

    /// The row's chunk id (`<content hash>:<n>`).
    pub fn id(&self) -> String {
        format!("{}:{}", crate::util::hex(&self.hash), self.chunk)
    }

    /// The vector as floats, at (nearly) unit length.
    pub fn floats(&self) -> Vec<f32> {
        self.vector
            .iter()
            .map(|&b| f32::from(b as i8) / 127.0)
            .collect()
    }
}

/// Write `rows` (all of one dimension) under `key`, atomically (a reader sees the old file
/// or the new one).
pub fn write(path: &Path, key: &str, rows: &[FlatRow<'_>]) -> Result<(), StoreError> {
    let stored: Vec<Stored<'_>> = rows.iter().map(Stored::of).collect();
    write_stored(path, key, &stored)
}

/// Write rows as stored (all of one dimension) under `key`, atomically.
pub fn write_stored(path: &Path, key: &str, rows: &[Stored<'_>]) -> Result<(), StoreError> {
    let dim = rows.first().map_or(0, |r| r.vector.len());
    // In the order of their names (`Language`'s order), as the file always had them.
    let mut languages: Vec<Language> = rows.iter().map(|r| r.language).collect();
    languages.sort_unstable();
    languages.dedup();
    let mut out = Vec::with_capacity(64 + rows.len() * row_len(dim));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(dim as u32).to_le_bytes());
    out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    put_str(&mut out, key);
    out.extend_from_slice(&(languages.len() as u16).to_le_bytes());
    for l in &languages {
        put_str(&mut out, l.name());
    }
    for r in rows {
        out.extend_from_slice(&r.hash);
        out.extend_from_slice(&r.chunk.to_le_bytes());
        let lang = languages.binary_search(&r.language).unwrap_or(0) as u16;
        out.extend_from_slice(&lang.to_le_bytes());
        out.extend_from_slice(&r.vector);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(StoreError::file(dir, "create"))?;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, &out).map_err(StoreError::file(&tmp, "write"))?;
    std::fs::rename(&tmp, path).map_err(StoreError::file(path, "replace"))
}

/// The dimension and row count a header announces, if it is ours and of version `key`.
fn header<'a>(bytes: &'a [u8], key: &str) -> Option<(usize, usize, Reader<'a>)> {
    let mut r = Reader { b: bytes, at: 0 };
    if r.take(8)? != MAGIC {
        return None;
    }
    let dim = r.u32()? as usize;
    let count = r.u32()? as usize;
    (r.str()? == key).then_some((dim, count, r))
}

/// The flat file at `path` if it was written under `key`; `None` when it is absent, of
/// another key (a copy an older build kept of a LanceDB table) or not one we wrote.
pub fn read(path: &Path, key: &str) -> Option<Flat> {
    let file = std::fs::File::open(path).ok()?;
    // SAFETY: the file is only ever replaced by a rename (`write`), never changed in place,
    // so the mapped bytes cannot change under us; every read below is bounds-checked.
    let bytes = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    let (dim, count, mut r) = header(&bytes, key)?;
    let n_lang = r.u16()? as usize;
    // A name this build does not know is a file it did not write: not read, as a foreign
    // file is not (its rows are embedded again).
    let languages = (0..n_lang)
        .map(|_| r.str().and_then(Language::parse))
        .collect::<Option<Vec<_>>>()?;
    let start = r.at;
    r.take(count.checked_mul(row_len(dim))?)?;
    (r.at == bytes.len()).then_some(Flat {
        dim,
        languages,
        bytes,
        start,
    })
}

impl Flat {
    /// The vectors' dimension.
    pub fn dimension(&self) -> usize {
        self.dim
    }

    /// The `limit` rows nearest to `query` (cosine), closest first, among those whose content
    /// is in `hashes` (when given) and of `language` (when given); and how many distinct
    /// contents of `hashes` have rows here at all, whatever their language (a search's
    /// vector coverage, read in the same pass: without `hashes`, every content counts).
    pub fn nearest(
        &self,
        query: &[f32],
        limit: usize,
        hashes: Option<&Contents>,
        language: Option<Language>,
    ) -> Nearest {
        let none = Nearest {
            hits: Vec::new(),
            contents: 0,
        };
        if query.len() != self.dim {
            return none;
        }
        let lang = match language {
            Some(l) => match self.languages.iter().position(|x| *x == l) {
                Some(i) => Some(i as u16),
                None => Some(u16::MAX),
            },
            None => None,
        };
        // The query at one byte per dimension too: integer dot products, which the compiler
        // vectorises (the rounding moves a cosine by well under 0.01).
        let q = quantize(query);
        let scale = 1.0 / (127.0 * 127.0);
        // The best `limit` so far in a heap whose top is the worst of them: no list of every
        // row's score (a megabyte of fresh pages per search on 37,000 rows).
        let mut best: BinaryHeap<Reverse<Scored>> = BinaryHeap::with_capacity(limit + 1);
        // A content's rows are written together: its membership is looked up once per run
        // of rows, and a new key is rarely one already seen.
        let mut seen = Contents::default();
        let (mut last, mut member) = (None, true);
        for (i, row) in self.rows().chunks_exact(row_len(self.dim)).enumerate() {
            let key = key_of(&row[..32]);
            if last != Some(key) {
                last = Some(key);
                member = hashes.is_none_or(|h| h.contains(&key));
                if member {
                    seen.insert(key);
                }
            }
            if !member
                || limit == 0
                || lang.is_some_and(|l| u16::from_le_bytes([row[36], row[37]]) != l)
            {
                continue;
            }
            let s = Scored(dot(&q, &row[38..]) as f32 * scale, i);
            if best.len() < limit {
                best.push(Reverse(s));
            } else if best.peek().is_some_and(|w| s > w.0) {
                best.pop();
                best.push(Reverse(s));
            }
        }
        let mut scored: Vec<Scored> = best.into_iter().map(|r| r.0).collect();
        scored.sort_by(|a, b| b.cmp(a));
        Nearest {
            hits: scored
                .into_iter()
                .map(|Scored(dot, i)| self.hit(i, 1.0 - dot))
                .collect(),
            contents: seen.len(),
        }
    }

    fn rows(&self) -> &[u8] {
        &self.bytes[self.start..]
    }

    /// How many rows the file holds.
    pub fn len(&self) -> usize {
        self.rows().len() / row_len(self.dim)
    }

    /// Whether it holds no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every row as stored, borrowed from the mapped file.
    pub fn stored(&self) -> Vec<Stored<'_>> {
        self.rows()
            .chunks_exact(row_len(self.dim))
            .map(|row| Stored {
                hash: row[..32].try_into().expect("32 bytes"),
                chunk: u32::from_le_bytes([row[32], row[33], row[34], row[35]]),
                // A number past the table is a damaged row (`write` never gives one): its
                // vector still serves, filed as text.
                language: self
                    .languages
                    .get(usize::from(u16::from_le_bytes([row[36], row[37]])))
                    .copied()
                    .unwrap_or(Language::Text),
                vector: Cow::Borrowed(&row[38..]),
            })
            .collect()
    }

    fn hit(&self, i: usize, distance: f32) -> VectorHit {
        let row = &self.rows()[i * row_len(self.dim)..];
        let hash = crate::util::hex(&row[..32]);
        let chunk = u32::from_le_bytes([row[32], row[33], row[34], row[35]]);
        VectorHit {
            id: format!("{hash}:{chunk}"),
            content_hash: hash,
            distance,
        }
    }
}

/// What [`Flat::nearest`] found.
pub struct Nearest {
    /// The nearest rows, closest first.
    pub hits: Vec<VectorHit>,
    /// Distinct contents of the searched set that have rows in the copy.
    pub contents: usize,
}

/// A set of contents (by [`content_key`]) a search keeps, hashed by the identity: the keys
/// are SHA-256 bytes already.
pub type Contents = HashSet<u64, BuildHasherDefault<Identity>>;

/// A hasher that passes a `u64` through.
#[derive(Default)]
pub struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The key of a content hash (hex) in [`Contents`]: its first eight bytes.
pub fn content_key(hex: &str) -> u64 {
    key_of(&hash_bytes(hex))
}

fn key_of(hash: &[u8]) -> u64 {
    u64::from_le_bytes(hash[..8].try_into().expect("8 bytes"))
}

/// A row's similarity and place: ordered by similarity, then the earlier row first (so
/// "greater" is "better" and ties keep the file's order, as a stable sort would).
#[derive(Clone, Copy, PartialEq)]
struct Scored(f32, usize);

impl Eq for Scored {}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

/// The dot product of a quantized query and a stored row, with AVX2 where the CPU has it
/// (checked once, then a cached flag).
fn dot(q: &[i8], row: &[u8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { dot_avx2(q, row) };
    }
    dot_plain(q, row)
}

/// [`dot_plain`] 32 bytes at a time. Left to itself the compiler widens each byte to 16
/// bits first (a quarter of the register per instruction); here `maddubs` multiplies 32
/// byte pairs at once, unsigned by signed, so the row's sign moves onto the query: |row| is
/// exact as an unsigned byte even for -128, and the query never holds -128 ([`quantize`]
/// clamps to ±127), so its negation is exact too. Two products fit an `i16` (at most
/// 2 × 128 × 127). The scan of one-commit astropy's 36,634 rows: about half the time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_avx2(q: &[i8], row: &[u8]) -> i32 {
    use std::arch::x86_64::*;
    debug_assert!(!q.contains(&i8::MIN), "a quantized query never holds -128");
    let n = q.len().min(row.len());
    let wide = n - n % 32;
    let ones = _mm256_set1_epi16(1);
    let mut acc = _mm256_setzero_si256();
    for i in (0..wide).step_by(32) {
        // SAFETY: i + 32 <= wide <= the length of both slices; unaligned loads.
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(q.as_ptr().add(i).cast()),
                _mm256_loadu_si256(row.as_ptr().add(i).cast()),
            )
        };
        let pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(b), _mm256_sign_epi8(a, b));
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
    }
    let half = _mm_add_epi32(
        _mm256_castsi256_si128(acc),
        _mm256_extracti128_si256::<1>(acc),
    );
    let quad = _mm_add_epi32(half, _mm_shuffle_epi32::<0b01_00_11_10>(half));
    let one = _mm_add_epi32(quad, _mm_shuffle_epi32::<0b10_11_00_01>(quad));
    _mm_cvtsi128_si32(one) + dot_plain(&q[wide..n], &row[wide..n])
}

#[inline(always)]
fn dot_plain(q: &[i8], row: &[u8]) -> i32 {
    q.iter()
        .zip(row)
        .map(|(&a, &b)| i32::from(a) * i32::from(b as i8))
        .sum()
}

/// A content hash's 32 bytes (zeros for one that is not 64 hex digits, which no content has).
pub fn hash_bytes(hex: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    if hex.len() == 64 {
        for (i, pair) in hex.as_bytes().chunks_exact(2).enumerate() {
            let digit = |c: u8| (c as char).to_digit(16);
            match (digit(pair[0]), digit(pair[1])) {
                (Some(h), Some(l)) => out[i] = (h * 16 + l) as u8,
                _ => return [0u8; 32],
            }
        }
    }
    out
}

/// A chunk id's content hash bytes and chunk number (`<hash>:<n>`).
fn split_id(id: &str, content_hash: &str) -> ([u8; 32], u32) {
    let n = id
        .rsplit_once(':')
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or(0);
    (hash_bytes(content_hash), n)
}

/// The vector at unit length, one signed byte per dimension.
fn quantize(v: &[f32]) -> Vec<i8> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return vec![0; v.len()];
    }
    v.iter()
        .map(|x| (x / norm * 127.0).round().clamp(-127.0, 127.0) as i8)
        .collect()
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    let b = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
    out.extend_from_slice(&(b.len() as u16).to_le_bytes());
    out.extend_from_slice(b);
}

/// Reads a flat file's header without ever indexing past its end.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.b.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|s| u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn str(&mut self) -> Option<&'a str> {
        let n = self.u16()? as usize;
        std::str::from_utf8(self.take(n)?).ok()
    }
}

#[cfg(test)]
#[path = "flat_tests.rs"]
mod tests;
