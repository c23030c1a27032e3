//! The firmware demo's robot cell on the host: a 6-axis arm (capsule links,
//! a polytope gripper), a table and a person walking up to the arm and
//! away, through `narrowphase::scene`, 1000 control ticks (one second at
//! 1 kHz), every pair's answer checked against a closed form.
//!
//! The description, the motion and the checks are the firmware's own
//! (`firmware/src/cell/`, with the closed forms of `firmware/src/truth.rs`),
//! included by `#[path]`: `cargo xtask demo` runs the same ticks on an
//! emulated Cortex-M4F and prints the same lines, with instruction counts
//! where this prints the host's time per tick.
//!
//! Run it with `cargo run --features std --example host_demo` (`-- --quiet`
//! prints the summary only); CI runs it in debug as the `demo` step of
//! `cargo xtask test`. It exits non-zero when a check fails, a pair is
//! undetermined, or the answers differ from the firmware host test's
//! (`cell::DIGEST`, a digest of every answer's bits).

use std::process::ExitCode;
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../firmware/src/truth.rs"]
mod truth;

#[allow(dead_code, unused_imports)]
#[path = "../firmware/src/cell/mod.rs"]
mod cell;

use cell::{motion, CellDemo, TickReport, TICKS};

/// A report line every this many ticks (and on every change).
const EVERY: usize = 50;

fn main() -> ExitCode {
    let quiet = std::env::args().any(|a| a == "--quiet" || a == "-q");
    match run(quiet) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problems) => {
            eprintln!("\nhost_demo: {} problem(s):", problems.len());
            for p in problems.iter().take(20) {
                eprintln!("  {p}");
            }
            ExitCode::FAILURE
        }
    }
}

fn line(demo: &CellDemo, r: &TickReport, time: Duration) -> String {
    let s = &r.summary;
    let closest = match r.closest {
        Some((a, b, lower, measured, exact)) => {
            let (rel, value) = measured.map_or((">= ", lower), |m| ("", m));
            format!("{rel}{:.2} mm ({a}/{b}; exact {:.2})", value * 1e3, exact * 1e3)
        }
        None => "-".into(),
    };
    format!(
        "tick {} | min distance {closest} | within margin {}: {} | penetrating {} | undetermined {} | {:.1} us (host)",
        r.tick,
        s.within_margin,
        demo.within_names(r).as_str(),
        s.penetrating,
        s.undetermined,
        time.as_secs_f64() * 1e6
    )
}

fn run(quiet: bool) -> Result<(), Vec<String>> {
    let mut demo = CellDemo::new().map_err(|e| vec![format!("the cell does not build: {e:?}")])?;
    let mut problems = Vec::new();
    let mut times = Vec::with_capacity(TICKS);
    let mut busiest = None;
    if !quiet {
        println!(
            "robot cell: {} bodies, {} pairs, {TICKS} ticks at 1 kHz, budget {} GJK/EPA iterations per tick, f32",
            cell::BODY_COUNT,
            demo.scene().pairs().len(),
            cell::BUDGET_ITERATIONS
        );
    }
    for tick in 0..TICKS {
        let poses = motion::poses(tick);
        let started = Instant::now();
        let summary = demo.tick(&poses).map_err(|e| vec![format!("tick {tick}: a pose was refused: {e:?}")])?;
        let time = started.elapsed();
        times.push(time);
        if busiest.is_none_or(|(_, s): (usize, narrowphase::scene::TickSummary<f32>)| summary.iterations > s.iterations)
        {
            busiest = Some((tick, summary));
        }
        let report = demo.check(tick, &summary, &mut |f| {
            let v = &f.verdict;
            problems.push(format!(
                "tick {} {}/{}: {} (kernel {:e}, closed form {:e}, slacks {:e} / {:e})",
                f.tick,
                f.a,
                f.b,
                v.failure.unwrap_or(""),
                v.reported,
                v.exact,
                v.slack.certificate,
                v.slack.value
            ))
        });
        if !quiet && (tick % EVERY == 0 || tick + 1 == TICKS || report.changed || report.failures > 0) {
            println!("{}", line(&demo, &report, time));
        }
    }

    let t = *demo.tally();
    times.sort_unstable();
    println!(
        "{} answers checked against closed forms ({} measured): {} failed; largest |measured - exact| {:.1e} m; \
         slacks up to {:.1e} m (measured values) and {:.1e} m (certified bounds)",
        t.checks, t.measured, t.failures, t.max_error.0, t.max_value_slack, t.max_certificate_slack
    );
    println!(
        "host wall-clock time per tick (poses set + Scene::tick): median {:.1} us, worst {:.1} us",
        times[(TICKS - 1) / 2].as_secs_f64() * 1e6,
        times[TICKS - 1].as_secs_f64() * 1e6
    );
    if let Some((tick, s)) = busiest {
        println!("tick with the most iterations, {tick}: {s}");
    }
    if t.undetermined_ticks > 0 {
        problems.push(format!("{} ticks with undetermined pairs", t.undetermined_ticks));
    }
    if demo.digest() != cell::DIGEST {
        problems.push(format!(
            "answers digest {:016x}, the firmware host test's is {:016x}: the host builds compute different bits",
            demo.digest(),
            cell::DIGEST
        ));
    }
    if problems.is_empty() {
        println!("all checks passed; answers digest {:016x} (the firmware's)", demo.digest());
        Ok(())
    } else {
        Err(problems)
    }
}
