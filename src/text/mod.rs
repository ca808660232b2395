//! Text analysis shared by indexing, search and embedding: token counts (`tokens`) and words
//! and identifiers (`words`). Languages and grammars are `lang`'s. It sits below `lang`,
//! `index`, `search` and `embed` and imports none of them.

pub mod tokens;
pub mod words;
