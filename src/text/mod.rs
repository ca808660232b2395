//! Text analysis shared by indexing, search and embedding: which language a path is and how
//! it is parsed (`lang`), token counts (`tokens`), and words and identifiers (`words`). It
//! sits below `index`, `search` and `embed` and imports none of them.

pub mod lang;
pub mod tokens;
pub mod words;
