//! What a definition defines, a closed set: the kinds the grammars' tags queries, ours
//! (`queries/*.scm`) and the keyword definitions give, parsed once where a kind comes in
//! (a query's capture name, a stored row), so ranking matches variants, not text.

use std::fmt;

/// The kind of a definition, stored and shown as its name (`function`, `class`, …).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// `class`: classes, and structs, records and objects the queries file as classes.
    Class,
    /// `constant`.
    Constant,
    /// `enum`.
    Enum,
    /// `extension`: adds to a type defined elsewhere (Swift, Kotlin).
    Extension,
    /// `function`.
    Function,
    /// `interface`: interfaces, traits, protocols.
    Interface,
    /// `macro`.
    Macro,
    /// `method`.
    Method,
    /// `module`: modules, namespaces, impl blocks.
    Module,
    /// `object`: a singleton (Scala, Kotlin).
    Object,
    /// `property`: a field or property.
    Property,
    /// `type`: a type alias or definition.
    Type,
    /// A kind no query of this build gives, read from a database another build or a
    /// teammate's pack wrote. Kept as written, not refused: a newer build's grammar may
    /// name a kind this one does not know, and its definitions are still worth finding
    /// (what a pack may hold is bounded where it is imported, `index::verify`).
    Other(OtherKind),
}

/// The name of a kind this build does not know; never one it does (see [`SymbolKind::parse`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OtherKind(Box<str>);

impl OtherKind {
    /// The name as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl SymbolKind {
    /// Every kind this build gives.
    const KNOWN: [SymbolKind; 12] = [
        SymbolKind::Class,
        SymbolKind::Constant,
        SymbolKind::Enum,
        SymbolKind::Extension,
        SymbolKind::Function,
        SymbolKind::Interface,
        SymbolKind::Macro,
        SymbolKind::Method,
        SymbolKind::Module,
        SymbolKind::Object,
        SymbolKind::Property,
        SymbolKind::Type,
    ];

    /// The kind a name says: a known variant, or [`SymbolKind::Other`].
    pub fn parse(name: &str) -> SymbolKind {
        SymbolKind::KNOWN
            .into_iter()
            .find(|k| k.as_str() == name)
            .unwrap_or_else(|| SymbolKind::Other(OtherKind(name.into())))
    }

    /// The name, as stored and shown.
    pub fn as_str(&self) -> &str {
        match self {
            SymbolKind::Class => "class",
            SymbolKind::Constant => "constant",
            SymbolKind::Enum => "enum",
            SymbolKind::Extension => "extension",
            SymbolKind::Function => "function",
            SymbolKind::Interface => "interface",
            SymbolKind::Macro => "macro",
            SymbolKind::Method => "method",
            SymbolKind::Module => "module",
            SymbolKind::Object => "object",
            SymbolKind::Property => "property",
            SymbolKind::Type => "type",
            SymbolKind::Other(o) => o.as_str(),
        }
    }

    /// Whether search reads definitions of this kind for an exact name only (the query
    /// `MERGE_MAX_LINES`, or a question naming it), never for the words of a description or
    /// a name's prefix. A constant's name says what value it holds, not what code does: as
    /// definitions read like any other, C's macros and Rust's constants answered descriptions
    /// in every language's words (bench/RESULTS.md, thirty-sixth session).
    pub fn is_lookup_only(&self) -> bool {
        *self == SymbolKind::Constant
    }
}

impl fmt::Display for SymbolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for SymbolKind {
    fn from(name: &str) -> SymbolKind {
        SymbolKind::parse(name)
    }
}

/// A kind reads as its name where text is wanted (checks on what a pack holds).
impl std::ops::Deref for SymbolKind {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl serde::Serialize for SymbolKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_kept_as_written() {
        for k in SymbolKind::KNOWN {
            assert_eq!(SymbolKind::parse(k.as_str()), k);
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{k}\""));
        }
        let struct_kind = SymbolKind::parse("struct");
        assert!(matches!(struct_kind, SymbolKind::Other(_)));
        assert_eq!(struct_kind.as_str(), "struct");
        assert_eq!(SymbolKind::from("function"), SymbolKind::Function);
    }
}
