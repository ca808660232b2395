/*
 * The shell grammar git-codesearch parses with: tree-sitter-bash's tables with the external
 * scanner of ./scanner.c, whose exported functions build.rs renames to
 * `codesearch_bash_external_scanner_*` so that they do not clash with the crate's own.
 * src/text/bash.rs calls `codesearch_bash_init` once with the crate's language, then hands
 * `codesearch_tree_sitter_bash` to tree-sitter; the copy shares every table with the
 * original and differs only in its scanner functions.
 */
#include "tree_sitter/parser.h"

void *codesearch_bash_external_scanner_create(void);
void codesearch_bash_external_scanner_destroy(void *);
bool codesearch_bash_external_scanner_scan(void *, TSLexer *, const bool *);
unsigned codesearch_bash_external_scanner_serialize(void *, char *);
void codesearch_bash_external_scanner_deserialize(void *, const char *, unsigned);

static TSLanguage patched;

void codesearch_bash_init(const TSLanguage *original) {
    patched = *original;
    patched.external_scanner.create = codesearch_bash_external_scanner_create;
    patched.external_scanner.destroy = codesearch_bash_external_scanner_destroy;
    patched.external_scanner.scan = codesearch_bash_external_scanner_scan;
    patched.external_scanner.serialize = codesearch_bash_external_scanner_serialize;
    patched.external_scanner.deserialize = codesearch_bash_external_scanner_deserialize;
}

const TSLanguage *codesearch_tree_sitter_bash(void) { return &patched; }
