//! The definition type every analysis produces and every store and ranking stage reads.

use super::kind::SymbolKind;

/// Longest signature kept, in characters (the importer's check refuses a longer one).
pub(crate) const MAX_SIGNATURE: usize = 200;
/// Longest doc comment kept, in characters (the importer's check refuses a longer one).
pub(crate) const MAX_DOC: usize = 1000;

/// A definition found in some content.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Symbol {
    /// Identifier as written.
    pub name: String,
    /// What it defines: function, method, class, interface, module, …
    pub kind: SymbolKind,
    /// First line of the definition (1-based).
    pub start_line: u32,
    /// Last line of the definition (1-based, inclusive).
    pub end_line: u32,
    /// The definition's first line, trimmed.
    pub signature: String,
    /// Doc comment, if any.
    pub doc: Option<String>,
}
