//! Text analysis shared by indexing, search and embedding: which language a path is and how
//! it is parsed (`lang`, and `bash` for the shell grammar's patched scanner), token counts
//! (`tokens`), words and identifiers (`words`), and the definition patterns of a grammar's
//! tags query (`tagsquery`). It sits below `index`, `search` and `embed` and imports none of
//! them.

pub mod bash;
pub mod lang;
pub mod tagsquery;
pub mod tokens;
pub mod words;
