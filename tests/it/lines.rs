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

/// A class whose methods all talk about fields, names and formats in their bodies, and one
/// short setter whose *name* is what the question says.
fn serializer_class() -> TestRepo {
    let mut java = String::from(
        "package demo;\n\nimport java.util.Map;\n\n/** Writes objects as JSON. */\npublic class ProtoAdapter {\n",
    );
    for name in [
        "writeAll", "readAll", "encode", "decode", "render", "toJson",
    ] {
        java.push_str(&format!(
            "  /** The {name} step of field name serialization. */\n  public String {name}(Map<String, Object> fields) {{\n    StringBuilder serialization = new StringBuilder();\n    for (String fieldName : fields.keySet()) {{\n      String format = fieldName.toLowerCase();\n      serialization.append(format).append(\" field name format \");\n      serialization.append(fields.get(fieldName));\n{}    }}\n    return serialization.toString();\n  }}\n\n",
            "      serialization.append(fieldName.length());\n".repeat(12)
        ));
    }
    // Unrelated methods between the decoys and the setter, so no hit spans both.
    let neutral = |name: &str| {
        format!(
            "  public void {name}() {{\n{}  }}\n\n",
            "    this.count = this.count + 1;\n".repeat(20)
        )
    };
    for name in ["close", "flush", "reset"] {
        java.push_str(&neutral(name));
    }
    java.push_str("  public ProtoAdapter setFieldNameSerializationFormat(CaseFormat from, CaseFormat to) {\n    this.from = from;\n    this.to = to;\n    return this;\n  }\n\n");
    for name in ["open", "clear"] {
        java.push_str(&neutral(name));
    }
    java.push_str("}\n");
    TestRepo::with_files(&[
        ("src/demo/ProtoAdapter.java", java.as_str()),
        (
            "src/demo/CaseFormat.java",
            "package demo;\n\npublic enum CaseFormat {\n  LOWER_CAMEL, UPPER_CAMEL, LOWER_UNDERSCORE;\n}\n",
        ),
    ])
}

/// Whether the first hit's lines hold the setter's definition.
fn first_hit_holds_setter(repo: &TestRepo, hits: &[serde_json::Value]) -> bool {
    let text = std::fs::read_to_string(repo.path().join("src/demo/ProtoAdapter.java")).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("setFieldNameSerializationFormat"))
        .unwrap() as u64
        + 1;
    let first = &hits[0];
    first["path"] == "src/demo/ProtoAdapter.java"
        && first["start_line"].as_u64().unwrap() <= line
        && line <= first["end_line"].as_u64().unwrap()
}

#[test]
fn a_question_that_spells_out_a_function_name_shows_that_function_first() {
    let repo = serializer_class();
    let question = "Sets the field names serialization format";
    // The premise: by their words alone, the chunks that repeat "field name format" win.
    repo.git(&["config", "codesearch.weightDefinitions", "0"]);
    let without = repo.search(question, &[]);
    assert!(!first_hit_holds_setter(&repo, &without), "{without:#?}");
    // The definitions the question names decide which lines come first.
    repo.git(&["config", "--unset", "codesearch.weightDefinitions"]);
    let hits = repo.search(question, &[]);
    assert!(first_hit_holds_setter(&repo, &hits), "{hits:#?}");
}

/// A module of three functions, each long enough to be a chunk of its own, each about the
/// retry backoff, one blank line apart: their chunks touch, so ranking merges them into one
/// hit.
fn retry_policy() -> TestRepo {
    let function = |name: &str, n: u32| {
        let mut f = format!(
            "def {name}(policy, attempt, limit={n}):\n    \"\"\"The {name} for the retry backoff of one attempt.\"\"\"\n"
        );
        for i in 0..14 {
            f.push_str(&format!(
                "    {name}_step_{i} = policy.retry_backoff_{name}(attempt + {i}, limit) * {}\n",
                i + 2
            ));
        }
        f.push_str(&format!("    return {name}_step_0 + {name}_step_13\n"));
        f
    };
    let body = format!(
        "\"\"\"How requests are retried.\"\"\"\n\n{}\n{}\n{}",
        function("delay", 3),
        function("budget", 5),
        function("jitter", 7)
    );
    TestRepo::with_files(&[("policy.py", body.as_str())])
}

#[test]
fn a_topic_gets_the_definition_of_its_best_lines_and_a_description_the_window() {
    let repo = retry_policy();
    let text = std::fs::read_to_string(repo.path().join("policy.py")).unwrap();
    let starts: Vec<u64> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("def "))
        .map(|(i, _)| i as u64 + 1)
        .collect();
    assert_eq!(starts.len(), 3);
    let method_of = |line: u64| starts.iter().rposition(|&s| s <= line);
    // A topic: the hit is one function, not the merged window of all three.
    let hits = repo.search("retry backoff", &[]);
    let first = &hits[0];
    let (start, end) = (
        first["start_line"].as_u64().unwrap(),
        first["end_line"].as_u64().unwrap(),
    );
    assert!(
        method_of(start).is_some() && method_of(start) == method_of(end),
        "{hits:#?}"
    );
    // A description of what one function does keeps the window its chunks merged into.
    let hits = repo.search("Returns the retry backoff delay for the attempt", &[]);
    let first = &hits[0];
    assert_ne!(
        method_of(first["start_line"].as_u64().unwrap()),
        method_of(first["end_line"].as_u64().unwrap()),
        "{hits:#?}"
    );
}

/// A Python function of sixteen lines with its own words in the docstring: a chunk of its
/// own.
fn function(name: &str, words: &str) -> String {
    let mut f = format!("def {name}(session, attempt):\n    \"\"\"{words}.\"\"\"\n");
    for i in 0..14 {
        f.push_str(&format!(
            "    {name}_value_{i} = session.{name}_helper(attempt + {i}) * {}\n",
            i + 2
        ));
    }
    f.push_str(&format!("    return {name}_value_0\n"));
    f
}

/// An uploader whose two functions an issue names are far apart (widgets between them),
/// and three files that match the issue's words about as well as the first of them.
fn uploader() -> TestRepo {
    let mut upload = vec![function(
        "retry_upload",
        "Retry the upload after a timeout when the network drops",
    )];
    upload.extend((0..3).map(|k| function(&format!("render_widget_{k}"), "Draw the widget")));
    upload.push(function(
        "spend_budget",
        "How long to wait before it gives up",
    ));
    upload.extend((0..3).map(|k| function(&format!("paint_icon_{k}"), "Paint an icon")));
    let two = |a: (&str, &str)| {
        [
            function(a.0, a.1),
            function("other_thing", "Something else"),
        ]
    };
    TestRepo::with_files(&[
        ("upload.py", upload.join("\n\n").as_str()),
        (
            "network.py",
            two((
                "reconnect_network",
                "Reconnect when the network drops after a timeout",
            ))
            .join("\n\n")
            .as_str(),
        ),
        (
            "timeouts.py",
            two((
                "upload_timeout_spent",
                "The upload timeout is spent: the upload fails",
            ))
            .join("\n\n")
            .as_str(),
        ),
        (
            "retries.py",
            two((
                "retry_after_timeout",
                "Retries after a timeout until the budget is spent",
            ))
            .join("\n\n")
            .as_str(),
        ),
    ])
}

/// A pasted issue's first result files each bring the lines BM25 scores best among their
/// own chunks, when no hit read (`search.n_seen`) holds them: here `spend_budget`, which
/// the repository-wide ranking puts past those, comes right after the second file's first
/// hit, marked as such, with that hit's score. Other kinds of query, and other modes, never get them.
#[test]
fn a_pasted_issue_gets_the_best_lines_of_its_first_files() {
    let repo = uploader();
    // The hits treated as read (`codesearch.nSeen`): 4 here, so that the ranking puts
    // `spend_budget` past them.
    repo.git(&["config", "codesearch.nSeen", "4"]);
    let issue = "Upload fails after a timeout\n\nWhen the network drops, retry_upload gives up \
                 before the budget is spent.\nExpected: it retries.";
    let hits = repo.search(issue, &["--explain", "-n", "4"]);
    let shown = crate::common::places(&hits);
    let budget = ("upload.py".to_string(), 77, 93);
    assert_eq!(shown.len(), 4, "{hits:#?}");
    assert_eq!(shown[0].0, "upload.py", "{hits:#?}");
    assert_eq!(shown[2], budget, "{hits:#?}");
    let features: Vec<&str> = hits[2]["explain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["feature"].as_str().unwrap())
        .collect();
    assert_eq!(features, ["best_in_file"], "{hits:#?}");
    assert_eq!(hits[2]["score"], hits[1]["score"], "{hits:#?}");
    for (i, a) in shown.iter().enumerate() {
        for b in &shown[i + 1..] {
            assert!(
                a.0 != b.0 || a.2 < b.1 || b.2 < a.1,
                "{a:?} and {b:?} overlap"
            );
        }
    }
    // Listing files (`-l`), the windows would only push other files past the limit.
    let files = repo.run_ok(&["search", "-l", "-n", "4", "--", issue], 0);
    assert_eq!(files.lines().count(), 4, "{files}");
    // BM25 alone, and the issue read as one line (a topic), keep the repository-wide order.
    for (query, extra) in [
        (issue, vec!["--mode", "bm25"]),
        (&issue.replace('\n', " "), vec![]),
    ] {
        let mut args = vec!["--explain", "-n", "4"];
        args.extend(extra);
        let hits = repo.search(query, &args);
        assert!(
            !hits.iter().any(|h| h.to_string().contains("best_in_file")),
            "{query}: {hits:#?}"
        );
    }
}

/// A pasted issue's title names its problem, and weighs more than its body in choosing a
/// file's lines: here the title asks about painting icons, while the body's steps match
/// `spend_budget` (the window the whole text alone would bring) better.
#[test]
fn an_issues_title_chooses_the_lines_inside_its_files() {
    let repo = uploader();
    repo.git(&["config", "codesearch.nSeen", "4"]); // as above: the windows lie past what is read
    let issue = "Paint icon fails after an upload\n\nWhen the network drops after a timeout, \
                 retry_upload gives up before the budget is spent. How long to wait before it \
                 gives up?";
    let hits = repo.search(issue, &["--explain", "-n", "4"]);
    let window = hits
        .iter()
        .find(|h| h.to_string().contains("best_in_file"))
        .unwrap_or_else(|| panic!("no window: {hits:#?}"));
    assert_eq!(window["path"], "upload.py", "{hits:#?}");
    assert_eq!(
        (window["start_line"].as_u64(), window["end_line"].as_u64()),
        (Some(96), Some(112)),
        "paint_icon_0: {hits:#?}"
    );
}

/// A pasted issue's first hits show the whole function they lie in: a function long enough
/// for several chunks, whose first lines the issue's words match and whose last lines (where
/// a fix would go) match none of them, is shown to its end, not to its first chunk's edge,
/// and no later hit repeats its lines (one inside it goes).
#[test]
fn a_pasted_issue_hit_shows_the_whole_function_it_lies_in() {
    let mut parse = String::from(
        "def parse_header(stream, limit):\n    \"\"\"Read the header fields of the stream up to the limit.\"\"\"\n",
    );
    for i in 0..18 {
        parse.push_str(&format!(
            "    header_field_{i} = stream.read_header_field(limit - {i}, strict=True)\n"
        ));
    }
    for i in 0..22 {
        parse.push_str(&format!(
            "    digest_alpha_{i} = compute_digest(buffer_{i}, salt={i}) ^ rotate(mask_{i})\n"
        ));
    }
    parse.push_str("    return header_field_0\n");
    let last = parse.lines().count() as u64;
    let other = function("render_widget", "Draw the widget on the canvas");
    let repo = TestRepo::with_files(&[
        ("wire.py", &format!("{parse}\n\n{other}")),
        ("widgets.py", &other),
    ]);
    let issue = "parse_header reads header fields past the limit\n\nWith a small limit, \
                 parse_header keeps reading header fields from the stream.";
    let hits = repo.search(issue, &["-n", "3"]);
    let first = &hits[0];
    assert_eq!(first["path"], "wire.py", "{hits:#?}");
    assert_eq!(first["start_line"], 1, "{hits:#?}");
    assert_eq!(first["end_line"], last, "the whole function: {hits:#?}");
    assert!(
        hits[1..]
            .iter()
            .all(|h| h["path"] != "wire.py" || h["start_line"].as_u64() > Some(last)),
        "no hit repeats its lines: {hits:#?}"
    );
    // BM25 alone keeps the window, as every mode but hybrid does.
    let bm25 = repo.search(issue, &["-n", "3", "--mode", "bm25"]);
    assert_eq!(bm25[0]["path"], "wire.py", "{bm25:#?}");
    assert!(bm25[0]["end_line"].as_u64().unwrap() < last, "{bm25:#?}");
}
