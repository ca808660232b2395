//! `git codesearch doctor [--repair]`: report the index's health, optionally repair it.
//! Exit code 0 when healthy (after repair, if asked), 1 when problems remain, 2 on error.

use std::io::Write;
use std::path::Path;

use super::args::DoctorArgs;
use super::common::Outcome;
use git_codesearch::maintenance::doctor::{self, Health, Severity};
use git_codesearch::workspace::Workspace;
use git_codesearch::Error;

/// Run `doctor`.
pub fn run(dir: &Path, args: &DoctorArgs) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
    let (before, repaired) = if args.repair {
        doctor::repair::repair(
            &ws,
            &super::stop::stop(),
            &super::observer::Terminal::new(true),
        )?
    } else {
        (doctor::check(&ws)?, Vec::new())
    };
    let after = if args.repair && before.severity() != Severity::Healthy {
        Some(doctor::check(&ws)?)
    } else {
        None
    };
    let last = after.as_ref().unwrap_or(&before);
    let mut out = std::io::stdout();
    if args.json {
        let obj = serde_json::json!({
            "index_dir": ws.index_dir,
            "status": before.severity(),
            "findings": before.findings,
            "notes": before.notes,
            "repaired": repaired,
            "status_after_repair": after.as_ref().map(Health::severity),
            "findings_after_repair": after.as_ref().map(|h| &h.findings),
        });
        writeln!(out, "{obj}").map_err(Error::Output)?;
    } else {
        let text = describe(&ws, &before, &repaired, after.as_ref(), args.repair);
        write!(out, "{text}").map_err(Error::Output)?;
    }
    Ok(if last.severity() == Severity::Healthy {
        Outcome::Found
    } else {
        Outcome::NotFound
    })
}

fn word(s: Severity) -> &'static str {
    match s {
        Severity::Healthy => "Healthy",
        Severity::Degraded => "Degraded",
        Severity::Corrupted => "Corrupted",
    }
}

fn describe(
    ws: &Workspace,
    before: &Health,
    repaired: &[String],
    after: Option<&Health>,
    asked: bool,
) -> String {
    let mut s = format!(
        "index {}: {}\n",
        ws.index_dir.display(),
        word(before.severity())
    );
    for f in &before.findings {
        s.push_str(&format!("  {:<9} {}\n", word(f.severity), f.problem));
    }
    for n in &before.notes {
        s.push_str(&format!("  note      {n}\n"));
    }
    for r in repaired {
        s.push_str(&format!("  repaired  {r}\n"));
    }
    match after {
        Some(h) => {
            s.push_str(&format!("after repair: {}\n", word(h.severity())));
            for f in &h.findings {
                s.push_str(&format!("  {:<9} {}\n", word(f.severity), f.problem));
            }
        }
        None if !asked && before.severity() != Severity::Healthy => {
            s.push_str("run `git codesearch doctor --repair` to fix this\n");
        }
        None => {}
    }
    s
}
