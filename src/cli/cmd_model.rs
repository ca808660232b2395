//! `git codesearch model install --from DIR` and `model list`: local embedding models.

use super::args::ModelAction;
use super::common::Outcome;
use git_codesearch::embed::models;
use git_codesearch::error::Error;

/// Run a `model` action.
pub fn run(action: &ModelAction) -> Result<Outcome, Error> {
    match action {
        ModelAction::Install { from, name } => {
            let name = match name {
                Some(n) => n.clone(),
                None => from
                    .canonicalize()
                    .ok()
                    .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                    .unwrap_or_default(),
            };
            eprintln!("checking and copying {} …", from.display());
            let (m, dim) = models::install(from, &name)?;
            println!(
                "installed {} ({dim} dimensions) in {}",
                m.id,
                m.dir.display()
            );
            println!(
                "use it in a repository: git config codesearch.embedModel {}   (or [embed] model = \"{}\" in .codesearch.toml)",
                m.name, m.name
            );
            Ok(Outcome::Found)
        }
        ModelAction::List => {
            println!(
                "(bundled)  {}  default",
                git_codesearch::embed::local::model_id()
            );
            let dir = models::models_dir()?;
            for m in models::list()? {
                println!("{}  {}  {}", m.name, m.id, m.dir.display());
            }
            eprintln!("model directory: {}", dir.display());
            Ok(Outcome::Found)
        }
    }
}
