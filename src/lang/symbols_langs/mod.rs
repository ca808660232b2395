//! Definitions in each language with a grammar but no test of its own in `symbols`: the
//! names, kinds and first lines a small, realistic file of the language gives, so a grammar
//! update or a query edit that loses or misplaces a definition fails here. Languages of
//! classes and methods are in `classes`, those of modules and functions in `functions`.

mod classes;
mod functions;

use crate::lang::Symbol;

/// Each definition's (name, kind, first line), in order.
fn outline(syms: &[Symbol]) -> Vec<(&str, &str, u32)> {
    syms.iter()
        .map(|s| (s.name.as_str(), s.kind.as_str(), s.start_line))
        .collect()
}

/// Each definition's (name, kind, first line, last line), in order.
fn spans(syms: &[Symbol]) -> Vec<(&str, &str, u32, u32)> {
    syms.iter()
        .map(|s| (s.name.as_str(), s.kind.as_str(), s.start_line, s.end_line))
        .collect()
}
