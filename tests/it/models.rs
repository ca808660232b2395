//! `model install --from DIR`: a BERT model in Hugging Face layout (here a tiny one with
//! seeded random weights, written by the test: real files, real loading and inference) is
//! checked, installed, selected by name, and its vectors kept apart from the bundled model's.

use std::path::Path;

use crate::common::TestRepo;

const HIDDEN: usize = 32;
const INTER: usize = 64;
const POSITIONS: usize = 64;
const WORDS: &[&str] = &[
    "def", "return", "upload", "retry", "colour", "color", "date", "parse", "file", "src", "py",
    "class", "self", "key", "cache", "the", "a", "of", "to", "(", ")", ":", ".", "/", ",", "=",
];

/// Deterministic pseudo-random numbers in -0.1..0.1.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.2
    }
}

fn vocab() -> Vec<String> {
    let mut v: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.extend(WORDS.iter().map(|s| s.to_string()));
    v
}

/// The tensors of a one-layer BERT, by name and shape.
fn tensors(vocab: usize) -> Vec<(String, Vec<usize>)> {
    let mut t = vec![
        (
            "embeddings.word_embeddings.weight".to_string(),
            vec![vocab, HIDDEN],
        ),
        (
            "embeddings.position_embeddings.weight".into(),
            vec![POSITIONS, HIDDEN],
        ),
        (
            "embeddings.token_type_embeddings.weight".into(),
            vec![2, HIDDEN],
        ),
        ("embeddings.LayerNorm.weight".into(), vec![HIDDEN]),
        ("embeddings.LayerNorm.bias".into(), vec![HIDDEN]),
    ];
    let l = "encoder.layer.0";
    for (name, shape) in [
        ("attention.self.query", vec![HIDDEN, HIDDEN]),
        ("attention.self.key", vec![HIDDEN, HIDDEN]),
        ("attention.self.value", vec![HIDDEN, HIDDEN]),
        ("attention.output.dense", vec![HIDDEN, HIDDEN]),
        ("intermediate.dense", vec![INTER, HIDDEN]),
        ("output.dense", vec![HIDDEN, INTER]),
    ] {
        t.push((format!("{l}.{name}.bias"), vec![shape[0]]));
        t.push((format!("{l}.{name}.weight"), shape));
    }
    for ln in ["attention.output.LayerNorm", "output.LayerNorm"] {
        t.push((format!("{l}.{ln}.weight"), vec![HIDDEN]));
        t.push((format!("{l}.{ln}.bias"), vec![HIDDEN]));
    }
    t
}

/// Write config.json, tokenizer.json and model.safetensors of a tiny BERT into `dir`.
pub fn write_tiny_bert(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let vocab = vocab();
    let config = serde_json::json!({
        "vocab_size": vocab.len(), "hidden_size": HIDDEN, "num_hidden_layers": 1,
        "num_attention_heads": 2, "intermediate_size": INTER, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.0, "max_position_embeddings": POSITIONS, "type_vocab_size": 2,
        "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0,
        "model_type": "bert", "classifier_dropout": null
    });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let ids: serde_json::Map<String, serde_json::Value> = vocab
        .iter()
        .enumerate()
        .map(|(i, w)| (w.clone(), serde_json::json!(i)))
        .collect();
    let tokenizer = serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                       "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
        "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids}
    });
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).unwrap();
    write_safetensors(&dir.join("model.safetensors"), &tensors(vocab.len()));
}

/// The safetensors format: little-endian header length, JSON header, raw f32 data.
fn write_safetensors(path: &Path, tensors: &[(String, Vec<usize>)]) {
    let mut rng = Lcg(42);
    let mut header = serde_json::Map::new();
    let mut data: Vec<u8> = Vec::new();
    for (name, shape) in tensors {
        let n: usize = shape.iter().product();
        let start = data.len();
        for _ in 0..n {
            let v = if name.contains("LayerNorm.weight") {
                1.0
            } else if name.contains("LayerNorm.bias") {
                0.0
            } else {
                rng.next()
            };
            data.extend_from_slice(&v.to_le_bytes());
        }
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [start, data.len()]}),
        );
    }
    let mut head = serde_json::Value::Object(header).to_string().into_bytes();
    while !head.len().is_multiple_of(8) {
        head.push(b' ');
    }
    let mut out = (head.len() as u64).to_le_bytes().to_vec();
    out.extend(head);
    out.extend(data);
    std::fs::write(path, out).unwrap();
}

const FILES: &[(&str, &str)] = &[
    (
        "src/upload.py",
        "def upload(file):\n    return retry(upload, file)\n",
    ),
    (
        "src/colour.py",
        "def colour(key):\n    return self.cache[key]\n",
    ),
    ("src/date.py", "def parse(date):\n    return date\n"),
];

#[test]
fn an_installed_model_is_checked_selected_by_name_and_kept_apart() {
    let repo = TestRepo::with_files(FILES);
    repo.embed_locally();
    let scratch = tempfile::tempdir().unwrap();
    let src = scratch.path().join("tiny-bert");
    let models = tempfile::tempdir().unwrap();
    let env = [("GIT_CODESEARCH_MODELS", models.path())];
    write_tiny_bert(&src);
    let install = [
        "model",
        "install",
        "--from",
        src.to_str().unwrap(),
        "--name",
        "tiny",
    ];

    // An incomplete directory is refused and installs nothing.
    std::fs::rename(src.join("tokenizer.json"), src.join("t.json")).unwrap();
    let out = repo.run_env(&install, &env);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tokenizer.json is missing") && err.contains("hint:"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(models.path()).map_or(0, |d| d.count()), 0);
    std::fs::rename(src.join("t.json"), src.join("tokenizer.json")).unwrap();

    let out = repo.run_env(&install, &env);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains(&format!("({HIDDEN} dimensions)")), "{said}");
    let list = String::from_utf8_lossy(&repo.run_env(&["model", "list"], &env).stdout).to_string();
    assert!(
        list.contains("(bundled)") && list.contains("tiny@"),
        "{list}"
    );

    // Selected by name: every file embedded into its own table, of its dimension.
    repo.git(&["config", "codesearch.embedModel", "tiny"]);
    let v = repo.json_env(&["index", "--json"], &env);
    assert_eq!(v["stats"]["embedded"], 3, "{v}");
    let status = repo.json_env(&["status", "--json"], &env);
    assert!(
        status["vectors"]["model"]
            .as_str()
            .unwrap()
            .starts_with("local:tiny@"),
        "{status}"
    );
    assert_eq!(status["vectors"]["embedded_files"], 3, "{status}");
    let out = repo.run_env(
        &[
            "--json",
            "--mode",
            "vector",
            "--no-index",
            "upload retry file",
        ],
        &env,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Back to the bundled model: a different vector space, so everything is embedded again.
    repo.git(&["config", "--unset", "codesearch.embedModel"]);
    let v = repo.json_env(&["index", "--json"], &env);
    assert_eq!(v["stats"]["embedded"], 3, "{v}");

    // A name that is not installed: indexing leaves files pending and says why; search degrades.
    repo.git(&["config", "codesearch.embedModel", "absent"]);
    let v = repo.json_env(&["index", "--json"], &env);
    assert_eq!(v["stats"]["embed_pending"], 3, "{v}");
    assert!(
        v["embed_error"].as_str().unwrap_or("").contains("absent"),
        "{v}"
    );
    let out = repo.run_env(&["--no-index", "upload"], &env);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no vectors yet"), "{err}");
    let out = repo.run_env(&["--json", "--no-index", "upload"], &env);
    let first: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert!(
        first["degraded"]
            .as_str()
            .unwrap()
            .contains("no vectors yet"),
        "{first}"
    );
}
