//! The lines a user reads: the chunk shown for a file is the one that answers the question,
//! and a rare identifier among common words wins.

use crate::common::TestRepo;

/// A template engine's shape: many definitions named after the common word `template`,
/// filters with bodies long enough to make several chunks, and one rare name asked for.
fn template_engine() -> TestRepo {
    let mut base = String::from("\"\"\"The template engine.\"\"\"\n\n");
    for (i, name) in [
        "template",
        "template_name",
        "templates",
        "template_dirs",
        "template_engine",
        "template_source",
    ]
    .iter()
    .enumerate()
    {
        base.push_str(&format!(
            "def {name}(context, origin={i}):\n    \"\"\"Return the template for the context.\"\"\"\n    template = context.get('template')\n    return template or origin\n\n\n"
        ));
    }
    let mut filters =
        String::from("\"\"\"Default template filters.\"\"\"\nfrom .library import register\n\n\n");
    for name in [
        "lower",
        "upper",
        "title",
        "capfirst",
        "slugify",
        "linenumbers",
        "wordwrap",
        "ljust",
        "rjust",
        "center",
    ] {
        filters.push_str(&format!(
            "@register.filter\ndef {name}(value):\n    \"\"\"Apply {name} to the value.\"\"\"\n    text = str(value)\n    result = text\n    for ch in text:\n        result = result.replace(ch, ch)\n    return result\n\n\n"
        ));
    }
    filters.push_str("@register.filter\ndef truncatewords(value, arg):\n    \"\"\"Cut a string after a number of words.\"\"\"\n    words = str(value).split()\n    limit = int(arg)\n    if len(words) > limit:\n        words = words[:limit] + ['...']\n    return ' '.join(words)\n\n\n");
    for name in [
        "stringformat",
        "floatformat",
        "addslashes",
        "striptags",
        "safeseq",
    ] {
        filters.push_str(&format!(
            "@register.filter\ndef {name}(value):\n    \"\"\"Format the value with {name}.\"\"\"\n    out = []\n    for part in str(value).split():\n        out.append(part)\n    return ' '.join(out)\n\n\n"
        ));
    }
    TestRepo::with_files(&[
        ("engine/template/base.py", base.as_str()),
        ("engine/template/defaultfilters.py", filters.as_str()),
        (
            "engine/template/loader.py",
            "def get_template(template_name):\n    \"\"\"Load a template by name.\"\"\"\n    return engine.template(template_name)\n\n\ndef select_template(names):\n    for n in names:\n        return get_template(n)\n",
        ),
    ])
}

#[test]
fn a_rare_identifier_among_common_words_ranks_first_at_its_definition() {
    let repo = template_engine();
    let hits = repo.search(
        "how are template filters like truncatewords implemented",
        &[],
    );
    let first = &hits[0];
    assert_eq!(
        first["path"], "engine/template/defaultfilters.py",
        "{hits:#?}"
    );
    let text =
        std::fs::read_to_string(repo.path().join("engine/template/defaultfilters.py")).unwrap();
    let def_line = text
        .lines()
        .position(|l| l.starts_with("def truncatewords"))
        .unwrap() as u64
        + 1;
    let (start, end) = (
        first["start_line"].as_u64().unwrap(),
        first["end_line"].as_u64().unwrap(),
    );
    assert!(
        start <= def_line && def_line <= end,
        "shown {start}-{end}, definition at {def_line}"
    );
}
