//! A question's first word read as a verb or a noun from the repository's names: from the
//! counts an index run makes (`store::name_words`), or from the names themselves while the
//! counts are older than the definitions (after a pull's merge), with the same answer.

use crate::common::TestRepo;

/// Three functions that open with "convert", and "command" held by a class and by names
/// after their first word.
fn repo() -> TestRepo {
    TestRepo::with_files(&[
        (
            "convert.py",
            "def convert_block(b):\n    return b\n\n\ndef convert_inline(i):\n    return i\n\n\n\
             def convert_table(t):\n    return t\n",
        ),
        (
            "command.py",
            "class Command:\n    pass\n\n\ndef new_command():\n    return Command()\n\n\n\
             def run_command(c):\n    return c\n",
        ),
    ])
}

#[test]
fn an_index_run_counts_the_names_words_and_a_search_reads_them_as_the_names() {
    let repo = repo();
    repo.run_ok(&["index", "-q"], 0);
    let db = rusqlite::Connection::open(repo.path().join(".git/codesearch/meta.sqlite")).unwrap();
    let current = || {
        db.query_row(
            "SELECT counted AND NOT EXISTS (SELECT 1 FROM name_words_changed)
             FROM name_words_state",
            [],
            |r| r.get::<_, bool>(0),
        )
        .unwrap()
    };
    assert!(current(), "an index run counts the names' words");
    let read = |query: &str| {
        let hits = repo.search(query, &["--no-index", "--explain"]);
        let kind = hits[0]["read_as"].as_str().unwrap().to_string();
        let paths: Vec<String> = hits.iter().map(|h| h["path"].to_string()).collect();
        (kind, paths)
    };
    let queries = ["Convert block element to text.", "Command group dispatch."];
    let counted: Vec<_> = queries.iter().map(|q| read(q)).collect();
    assert_eq!(counted[0].0, "behaviour", "{counted:?}");
    assert_eq!(counted[1].0, "topic", "{counted:?}");

    // Definitions changed since they were counted (a pull merged some; the program's own
    // connections log the names through their triggers, this one does by hand): a search
    // reads the names instead, to the same reading and hits.
    db.execute(
        "INSERT INTO name_words_changed (name, kind) VALUES ('Command', 'class')",
        [],
    )
    .unwrap();
    assert!(!current());
    let read_again: Vec<_> = queries.iter().map(|q| read(q)).collect();
    assert_eq!(read_again, counted);
    repo.run_ok(&["index", "-q"], 0);
    assert!(
        current(),
        "the next index run counts again, though no file changed"
    );
}
