//! Criterion's medians read back from its output directory, for the tables
//! a bench prints after its groups have run.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Where criterion writes: `CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`,
/// else `target/criterion` of this crate.
pub fn criterion_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(d).join("criterion");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("criterion")
}

/// Criterion's median (ns per iteration) of a benchmark run after `since`.
pub fn median_ns(dir: &Path, group: &str, id: &str, since: SystemTime) -> Option<f64> {
    let path = dir.join(group).join(id).join("new").join("estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let rest = &text[text.find("\"median\"")?..];
    let rest = &rest[rest.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
    let end = rest.find([',', '}'])?;
    rest[..end].trim().parse().ok()
}
