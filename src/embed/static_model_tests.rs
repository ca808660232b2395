//! Tests of the static embedder on the compiled-in model: its file and checksum, the
//! tokenizer against the Hugging Face tokenizer the model was trained with, and the vectors.

use super::*;

fn pieces(text: &str) -> Vec<String> {
    let m = shared().unwrap();
    let mut ids = Vec::new();
    wordpiece::tokenize(text, m, &mut ids);
    ids.iter()
        .map(|&i| String::from_utf8_lossy(m.token(i as usize)).into_owned())
        .collect()
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn the_model_id_names_the_compiled_file() {
    let sum = crate::util::sha256_hex(MODEL_BYTES);
    assert_eq!(
        &sum[..12],
        MODEL_SHA12,
        "update MODEL_SHA12 and models/static/README.md"
    );
    assert!(model_id().starts_with("static:minilm-code@"));
    let m = shared().unwrap();
    assert!(m.dims() >= 64);
    // Byte order, which the binary search relies on.
    assert!((1..m.n).all(|i| m.token(i - 1) < m.token(i)));
}

#[test]
fn a_damaged_file_is_refused() {
    assert!(Model::parse(b"not a model").is_err());
    assert!(Model::parse(&MODEL_BYTES[..MODEL_BYTES.len() - 1]).is_err());
    let mut v = MODEL_BYTES.to_vec();
    v[8] = 9;
    assert!(Model::parse(&v).is_err());
}

/// Expected pieces from the Python `tokenizers` library on the spelled text (what
/// scripts/make-static-model.py trains with), `[UNK]` left out.
#[test]
fn tokens_are_the_training_tokenizers() {
    let cases: [(&str, &[&str]); 6] = [
        (
            "parseHTTPRequest(req)",
            &["par", "##se", "http", "request", "(", "re", "##q", ")"],
        ),
        (
            "Résumé café naïve Ünïcödé",
            &["resume", "cafe", "naive", "unicode"],
        ),
        (
            "fn max_line_len(&self) -> usize",
            &[
                "f", "##n", "max", "line", "len", "(", "&", "self", ")", "-", ">", "us", "##ize",
            ],
        ),
        (
            "xyzzyqwv unbelievably",
            &[
                "x", "##y", "##zzy", "##q", "##w", "##v", "un", "##bel", "##ie", "##va", "##bly",
            ],
        ),
        (
            "// TODO: fix the 2nd O(n²) loop!",
            &[
                "/", "/", "tod", "##o", ":", "fix", "the", "2nd", "o", "(", "n", "##²", ")",
                "loop", "!",
            ],
        ),
        ("é創造 \u{a0}tab\there", &["e", "tab", "here"]),
    ];
    for (text, want) in cases {
        assert_eq!(pieces(text), want, "{text}");
    }
}

#[test]
fn vectors_are_unit_length_deterministic_and_similar_for_similar_texts() {
    let texts: Vec<String> = [
        "parse the configuration file",
        "fn read_config(path: &Path) -> Config { toml::from_str(&fs::read(path)?) }",
        "render a triangle with the GPU shader",
        "",
    ]
    .map(String::from)
    .to_vec();
    let a = Static.embed(&texts).unwrap();
    let b = Static.embed(&texts).unwrap();
    assert_eq!(a, b);
    for v in &a {
        assert_eq!(v.len(), shared().unwrap().dims());
        assert!((cos(v, v) - 1.0).abs() < 1e-4);
    }
    assert!(cos(&a[0], &a[1]) > cos(&a[0], &a[2]));
    // Many texts go over the cores and give the same vectors.
    let many: Vec<String> = (0..200).map(|i| texts[i % 4].clone()).collect();
    let par = Static.embed(&many).unwrap();
    assert!(par.iter().enumerate().all(|(i, v)| *v == a[i % 4]));
}
