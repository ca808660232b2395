//! Unit tests of the MCP server (`cli::mcp`): its requests, answers and limits,
//! apart from the module so that it stays under the house's 500 lines.

use super::*;
use proptest::strategy::Strategy;

/// The library's property-test configuration (test-only there, so out of this crate's reach
/// as a module): the same file, compiled here too, so both crates draw their cases alike.
#[path = "../util/fuzzing.rs"]
mod fuzzing;

#[test]
fn path_globs_must_stay_inside() {
    assert!(check_path_glob("src/**/*.rs").is_ok());
    assert!(check_path_glob("*.py").is_ok());
    for bad in [
        "../../etc/passwd",
        "/etc/passwd",
        "src/../../x",
        "C:\\x",
        "..\\x",
    ] {
        assert!(check_path_glob(bad).is_err(), "{bad}");
    }
}

#[test]
fn protocol_basics_need_no_repository() {
    let dir = std::env::temp_dir();
    let init = handle(&dir, r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}"#).unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2024-11-05");
    assert!(handle(
        &dir,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
    )
    .is_none());
    let list = handle(&dir, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#).unwrap();
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 4);
    let bad = handle(&dir, r#"{"jsonrpc":"2.0","id":3,"method":"nope"}"#).unwrap();
    assert_eq!(bad["error"]["code"], -32601);
    let junk = handle(&dir, "{not json").unwrap();
    assert_eq!(junk["error"]["code"], -32700);
}

/// Replies `serve` writes for `input`, parsed.
fn replies(input: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    serve(&std::env::temp_dir(), input, &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn bad_lines_get_errors_and_the_server_goes_on() {
    let ping = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
    let mut input = b"\xff\xfe not utf-8\n".to_vec();
    input.extend(vec![b'x'; MAX_LINE + 10]);
    input.push(b'\n');
    input.extend_from_slice(ping);
    input.push(b'\n');
    let got = replies(&input);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0]["error"]["code"], -32700);
    assert_eq!(got[1]["error"]["code"], -32600);
    assert_eq!(got[2]["id"], 7);
    assert!(got[2]["result"].is_object());
}

#[test]
fn a_line_is_never_held_beyond_the_limit() {
    let mut input: &[u8] = b"abcdefghij\nxy";
    let mut buf = Vec::new();
    assert_eq!(read_line(&mut input, &mut buf, 4).unwrap(), Line::TooLong);
    assert!(buf.len() <= 4);
    assert_eq!(read_line(&mut input, &mut buf, 4).unwrap(), Line::Read);
    assert_eq!(buf, b"xy");
    assert_eq!(read_line(&mut input, &mut buf, 4).unwrap(), Line::End);
}

/// Lines that are JSON: a request (answered), a notification (not answered), and JSON
/// that is no request object (answered with an error), mixed with the arbitrary bytes.
const JSON_LINES: [&str; 5] = [
    r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "5",
    "[]",
    r#"{"jsonrpc":"2.0","id":"x","method":"no/such"}"#,
];

proptest::proptest! {
    #![proptest_config(fuzzing::config(64))]
    /// Any bytes at all: exactly one reply per non-blank line that is not a notification,
    /// every reply valid JSON-RPC, no panic.
    #[test]
    fn any_input_gets_one_answer_per_line(lines in proptest::collection::vec(
        proptest::prop_oneof![
            proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            proptest::sample::select(JSON_LINES.to_vec()).prop_map(|l| l.as_bytes().to_vec()),
        ], 0..8)) {
        let mut input = Vec::new();
        let mut expected = 0;
        for mut l in lines {
            l.retain(|&b| b != b'\n');
            let text = std::str::from_utf8(&l).ok();
            let blank = text.is_some_and(|s| s.trim().is_empty());
            let notification = text
                .and_then(|s| serde_json::from_str::<Value>(s).ok())
                .is_some_and(|v| v.is_object() && v.get("id").is_none());
            if !blank && !notification {
                expected += 1;
            }
            input.extend(l);
            input.push(b'\n');
        }
        let got = replies(&input);
        proptest::prop_assert_eq!(got.len(), expected);
        for r in got {
            proptest::prop_assert_eq!(&r["jsonrpc"], "2.0");
        }
    }
}
