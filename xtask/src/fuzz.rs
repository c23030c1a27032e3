//! `cargo xtask fuzz` and the `fuzz-smoke` test step: every cargo-fuzz
//! target (the `[[bin]]`s of `fuzz/Cargo.toml`) or a given list, one after
//! the other, for `--time SECS` each.
//!
//! ```text
//! cargo xtask fuzz [TARGET...] [--time SECS] [--no-cmin] [--smoke] [--no-setup] [-- LIBFUZZER ARGS...]
//! ```
//!
//! - Each target starts from three sources, passed to libFuzzer as corpus
//!   directories: its structured seeds (`fuzz/fuzz_targets/shared/seeds.rs`:
//!   the target writes them at start-up into a scratch directory named by
//!   `NARROWPHASE_FUZZ_SEEDS`), its named inputs in `fuzz/regressions/<target>/`
//!   (committed, see `fuzz/regressions/README.md`), and the local corpus
//!   `fuzz/corpus/<target>/` when there is one. The corpus is not kept in git
//!   (`fuzz/.gitignore`): a fresh checkout, as in CI, starts from the seeds
//!   and the regressions alone.
//! - libFuzzer writes new inputs to the first directory it is given: the
//!   local corpus, created if missing and minimised in place with
//!   `cargo fuzz cmin` after the run (`--no-cmin` skips that). `--smoke`
//!   (the test step) puts a scratch directory first instead: nothing outside
//!   the scratch directories is written, no cmin.
//! - A crash (a failed oracle, a panic, a timeout of one input beyond 10 s,
//!   an RSS above 2 GiB) fails the command after every target has run; the
//!   input is in `fuzz/artifacts/<target>/` (keep it as described in
//!   `fuzz/regressions/README.md`).
//! - Every oracle is the documented contract. The environment passes
//!   through: `NARROWPHASE_FUZZ_LOWER_ULPS=N` (default 0) lets
//!   `gjk_distance` accept a lower bound up to `N·ε·size` above the
//!   distance, to fuzz past an ulp-level excess should one appear (the
//!   kernel clamps the lower bound to the distance; nothing sets it).
//! - Installs cargo-fuzz if `cargo +nightly fuzz` is missing (idempotent).

use super::{banner, capture, cargo, cargo_nightly, flush, run, secs, setup_rustup, step, Failure, Kind, Result, Step};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Seconds per target of the `fuzz-smoke` test step.
const SMOKE_SECS: u64 = 20;

/// The test step: every target for [`SMOKE_SECS`], corpus untouched.
pub fn smoke_step() -> Step {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("xtask"));
    let mut c = Command::new(exe);
    c.args(["fuzz", "--smoke", "--time", &SMOKE_SECS.to_string()]);
    step(
        "fuzz-smoke",
        format!("every cargo-fuzz target for {SMOKE_SECS} s (nightly; installs cargo-fuzz if missing)"),
        Kind::Plain,
        c,
    )
}

/// The targets declared in `fuzz/Cargo.toml`, in order.
pub fn targets() -> Result<Vec<String>> {
    let text = std::fs::read_to_string("fuzz/Cargo.toml")
        .map_err(|e| Failure::new(format!("cannot read fuzz/Cargo.toml: {e}")))?;
    let mut out = Vec::new();
    let mut in_bin = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin {
            if let Some(v) = line.strip_prefix("name").map(str::trim_start).and_then(|l| l.strip_prefix('=')) {
                out.push(v.trim().trim_matches('"').to_string());
            }
        }
    }
    Ok(out)
}

struct Options {
    targets: Vec<String>,
    time: u64,
    cmin: bool,
    smoke: bool,
    setup: bool,
    extra: Vec<String>,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut o = Options { targets: Vec::new(), time: 60, cmin: true, smoke: false, setup: true, extra: Vec::new() };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time" => {
                o.time = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| Failure::usage("--time needs a number of seconds"))?;
            }
            "--no-cmin" => o.cmin = false,
            "--smoke" => {
                o.smoke = true;
                o.cmin = false;
            }
            "--no-setup" => o.setup = false,
            "--" => o.extra.extend(it.by_ref().cloned()),
            t if !t.starts_with('-') => o.targets.push(t.to_string()),
            other => return Err(Failure::usage(format!("unknown option `{other}` for fuzz"))),
        }
    }
    Ok(o)
}

/// Installs cargo-fuzz when `cargo +nightly fuzz` does not answer.
pub fn setup() -> Result {
    setup_rustup()?;
    if capture(cargo_nightly().args(["fuzz", "--version"])).is_some() {
        println!("setup: cargo-fuzz present");
        Ok(())
    } else {
        run(cargo().args(["install", "cargo-fuzz", "--locked"]))
    }
}

struct Outcome {
    target: String,
    took: Duration,
    execs: u64,
    ok: bool,
}

/// `cargo xtask fuzz`.
pub fn fuzz(args: &[String]) -> Result {
    let o = parse(args)?;
    let all = targets()?;
    for t in &o.targets {
        if !all.contains(t) {
            return Err(Failure::usage(format!("no fuzz target `{t}` (fuzz/Cargo.toml has: {})", all.join(", "))));
        }
    }
    let chosen = if o.targets.is_empty() { all } else { o.targets.clone() };
    if o.setup {
        banner("setup: nightly, cargo-fuzz");
        setup()?;
    }
    let scratch = std::env::temp_dir().join(format!("narrowphase-fuzz-{}", std::process::id()));
    let mut outcomes = Vec::new();
    for t in &chosen {
        banner(&format!("cargo fuzz run {t} ({} s)", o.time));
        let corpus = Path::new("fuzz/corpus").join(t);
        let dirs = corpus_dirs(t, &corpus, &scratch, o.smoke)?;
        let mut c = cargo_nightly();
        c.args(["fuzz", "run", t]).args(&dirs.read).arg("--");
        c.args([format!("-max_total_time={}", o.time), "-timeout=10".into(), "-rss_limit_mb=2048".into()]);
        c.args(&o.extra);
        c.env(SEEDS_VAR, &dirs.seeds);
        let start = Instant::now();
        let (ok, execs) = run_counting_execs(&mut c)?;
        outcomes.push(Outcome { target: t.clone(), took: start.elapsed(), execs, ok });
        if ok && o.cmin {
            banner(&format!("cargo fuzz cmin {t}"));
            let before = count_files(&corpus);
            run(cargo_nightly().args(["fuzz", "cmin", t]).arg(&corpus).args([
                "--",
                "-rss_limit_mb=2048",
                "-timeout=10",
            ]))?;
            println!("corpus {}: {before} -> {} files", corpus.display(), count_files(&corpus));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);

    banner("fuzz summary");
    for r in &outcomes {
        let state = if r.ok { "ok" } else { "CRASHED" };
        println!("  {state:<8} {:<18} {:>8} {:>12} execs", r.target, secs(r.took), r.execs);
    }
    flush();
    let failed: Vec<&str> = outcomes.iter().filter(|r| !r.ok).map(|r| r.target.as_str()).collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(format!("fuzz targets failed: {} (inputs in fuzz/artifacts/)", failed.join(", "))))
    }
}

/// The environment variable that makes a target write its structured seeds
/// (`fuzz/fuzz_targets/shared/seeds.rs`) into the directory it names.
const SEEDS_VAR: &str = "NARROWPHASE_FUZZ_SEEDS";

/// The corpus directories of one run of `target`.
struct Dirs {
    /// What libFuzzer reads, in order; the first is where it writes.
    read: Vec<PathBuf>,
    /// Where the target writes its seeds (one of `read`).
    seeds: PathBuf,
}

/// The first directory (the local corpus `corpus`, or with `smoke` a
/// scratch one), then the seeds, the named regressions and (with `smoke`)
/// the local corpus where they exist. Creates the directories written to.
fn corpus_dirs(target: &str, corpus: &Path, scratch: &Path, smoke: bool) -> Result<Dirs> {
    let make = |d: &Path| std::fs::create_dir_all(d).map_err(|e| Failure::new(format!("{}: {e}", d.display())));
    let seeds = scratch.join(format!("{target}-seeds"));
    let _ = std::fs::remove_dir_all(&seeds);
    make(&seeds)?;
    let first = if smoke { scratch.join(target) } else { corpus.to_path_buf() };
    make(&first)?;
    let mut read = vec![first, seeds.clone()];
    for d in [Path::new("fuzz/regressions").join(target), corpus.to_path_buf()] {
        if d.is_dir() && !read.contains(&d) {
            read.push(d);
        }
    }
    Ok(Dirs { read, seeds })
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok()).count()).unwrap_or(0)
}

/// Runs a libFuzzer command, echoing its stderr, and returns whether it
/// succeeded and the executions it reported (the last `#N` status line).
fn run_counting_execs(cmd: &mut Command) -> Result<(bool, u64)> {
    println!("$ {}", super::show(cmd));
    flush();
    let mut child = cmd
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::new(format!("cannot start `{}`: {e}", super::show(cmd))))?;
    let mut execs = 0u64;
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            eprintln!("{line}");
            if let Some(n) = line.strip_prefix('#').and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next()) {
                if let Ok(n) = n.parse::<u64>() {
                    execs = execs.max(n);
                }
            }
        }
    }
    let status = child.wait().map_err(|e| Failure::new(format!("`{}`: {e}", super::show(cmd))))?;
    Ok((status.success(), execs))
}
