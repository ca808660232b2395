//! A snapshot whose shape is right but whose text lies: names made to drive a terminal
//! (docs/security.md).

use crate::untrusted::{exported, fresh_clone, repack, sql};

#[test]
fn names_from_a_snapshot_reach_the_terminal_escaped() {
    let (repo, _tmp, unpacked) = exported();
    sql(
        &unpacked.join("meta.sqlite"),
        "UPDATE catalog SET branch = 'refs/heads/x' || char(27) || ']0;pwned' || char(7);
         UPDATE catalog SET skip_reason = 'junk' || char(27) || '[2J'
           WHERE skip_reason IS NOT NULL;
         UPDATE content SET note = 'plain' || char(27) || '[31m';",
    );
    let tar = repack(&unpacked, "names.tar");
    let dev = fresh_clone(&repo);
    let out = dev.run_ok(&["import", tar.to_str().unwrap()], 0);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(out.contains("\\u{1b}"), "{out}");
    let branch = "refs/heads/x\x1b]0;pwned\x07";
    let out = dev.run_ok(&["status", "--verbose", "--branch", branch], 0);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(out.contains("skipped"), "{out}");
    let out = dev.run_ok(&["status"], 0);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
}
