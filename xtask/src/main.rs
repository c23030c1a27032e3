//! `cargo xtask` — project automation for `narrowphase`, std only.
//!
//! ```text
//! cargo xtask test  [--no-setup] [--only KEYS] [--skip KEYS] [--list]
//! cargo xtask demo  [--no-setup]
//! cargo xtask bench [--no-setup] [CARGO-BENCH ARGS...] [-- CRITERION ARGS...]
//! cargo xtask fuzz  [TARGET...] [--time SECS] [--no-cmin] [-- LIBFUZZER ARGS...]
//! cargo xtask accuracy [POSES] [SEED]
//! cargo xtask icount [--update] [--verbose] | --profile FAMILY
//! cargo xtask fw    tests m4f|m7|v6m | stack [--update] | icount | no-alloc | vsqrt
//! ```
//!
//! Every command installs what it needs first (rustup targets, the nightly
//! `rust-src`, Debian's `libccd-dev`), idempotently: a second run only checks.

use std::env;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

mod accuracy;

mod firmware;

mod fuzz;

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  test   set up, then run the whole check suite (what CI runs):
           --no-setup     skip the toolchain / apt checks
           --only KEYS    run only these steps (comma separated; a key also
                          selects the steps named KEY-*, e.g. `build`)
           --skip KEYS    skip these steps
           --list         list the step keys and exit
  demo   set up (targets, qemu-system-arm, defmt-print), then run the firmware
         demo on QEMU mps2-an386 (Cortex-M4F); --no-setup skips the setup
  bench  set up, then `cargo bench --features std` with short criterion
         settings (--warm-up-time 1 --measurement-time 3); arguments before
         `--` go to cargo bench (e.g. --bench polytope_support), after `--`
         to criterion (e.g. a filter)
  icount instruction counts per query on the emulated Cortex-M4F vs
         firmware/icount.toml (fails on a >10 % regression); --update rewrites it;
         --profile FAMILY prints where one family's instructions go
  fw     one firmware check (the fw-* test steps): tests m4f|m7|v6m, stack
         [--update], icount, no-alloc, vsqrt
  fuzz   run every cargo-fuzz target (or those named) for --time SECS each
         (default 60), seeded from structured seeds, fuzz/regressions/<target>/
         and the local corpus fuzz/corpus/<target>/ (minimised after;
         --no-cmin skips); fails on any crash; installs cargo-fuzz if missing;
         nightly
  accuracy  the collision-accuracy table (Ruan et al. 2019, Table III): γ of
         GJK on inscribed meshes vs the exact Minkowski checker; [POSES] [SEED]
";

/// Host targets the library must build for without std.
const NO_STD_TARGETS: [(&str, &str); 3] = [
    ("build-thumbv6m", "thumbv6m-none-eabi"),
    ("build-thumbv7em", "thumbv7em-none-eabihf"),
    ("build-riscv32", "riscv32imac-unknown-none-elf"),
];
/// Nightly target without a prebuilt std: `-Z build-std=core` proves no `alloc`.
const CORE_ONLY_TARGET: &str = "thumbv7em-none-eabi";
/// Debian packages the tests and benches link against (libccd in the benches).
/// Debian packages: libccd (bench competitor), QEMU (firmware), Mesa's
/// software Vulkan (lavapipe: the `gpu` feature's tests run on it in CI).
const APT_PACKAGES: [&str; 4] = ["libccd-dev", "qemu-system-arm", "mesa-vulkan-drivers", "libvulkan1"];

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    if let Err(e) = env::set_current_dir(workspace_root()) {
        eprintln!("xtask: cannot enter the workspace root: {e}");
        return ExitCode::FAILURE;
    }
    let (cmd, rest) = match args.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match cmd {
        "test" => test(rest),
        "demo" => demo(rest),
        "bench" => bench(rest),
        "fuzz" => fuzz(rest),
        "accuracy" => accuracy::accuracy(rest),
        "icount" => firmware::icount_command(rest),
        "fw" => firmware::fw(rest),
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(Failure::usage(format!("unknown command `{other}`"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("xtask: {}", f.message);
            if f.is_usage {
                eprint!("{USAGE}");
            }
            ExitCode::from(f.code)
        }
    }
}

// ---------------------------------------------------------------------------
// Errors and process helpers

struct Failure {
    message: String,
    code: u8,
    is_usage: bool,
}

impl Failure {
    fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 1, is_usage: false }
    }
    fn usage(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 2, is_usage: true }
    }
}

type Result<T = ()> = std::result::Result<T, Failure>;

fn workspace_root() -> PathBuf {
    // xtask/ lives directly under the workspace root.
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

/// The cargo that runs us (so `cargo +beta xtask test` tests on beta), or
/// the `cargo` on PATH.
fn cargo() -> Command {
    Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// `cargo +nightly …` goes through the rustup proxy, not `$CARGO` (which is
/// one toolchain's own binary and does not understand `+toolchain`).
fn cargo_nightly() -> Command {
    let mut c = Command::new("cargo");
    c.arg("+nightly");
    // A toolchain pinned by the outer `cargo` must not leak into this one.
    c.env_remove("RUSTUP_TOOLCHAIN");
    c
}

fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    if s.ends_with("/cargo") || s.ends_with("\\cargo.exe") {
        s = "cargo".into();
    }
    for a in cmd.get_args() {
        let a = a.to_string_lossy();
        if a.is_empty() || a.contains([' ', '*', '?']) {
            s.push_str(&format!(" '{a}'"));
        } else {
            s.push(' ');
            s.push_str(&a);
        }
    }
    s
}

/// Runs `cmd` with inherited stdio; an error for a non-zero exit.
fn run(cmd: &mut Command) -> Result {
    println!("$ {}", show(cmd));
    flush();
    let status = cmd.status().map_err(|e| Failure::new(format!("cannot start `{}`: {e}", show(cmd))))?;
    if status.success() {
        Ok(())
    } else {
        Err(Failure::new(format!("`{}` failed ({status})", show(cmd))))
    }
}

/// Runs `cmd` quietly and returns its stdout, or `None` if it could not run
/// or failed.
fn capture(cmd: &mut Command) -> Option<String> {
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn flush() {
    let _ = std::io::stdout().flush();
}

#[derive(Default, Clone, Copy)]
struct TestCounts {
    passed: u64,
    failed: u64,
    ignored: u64,
    binaries: u64,
}

/// Runs a `cargo test` command, echoing its stdout line by line and adding up
/// the libtest `test result:` lines.
fn run_counting(cmd: &mut Command, counts: &mut TestCounts) -> Result {
    run_watching(cmd, |line| {
        if let Some(rest) = line.trim_start().strip_prefix("test result: ") {
            counts.binaries += 1;
            counts.passed += count_before(rest, " passed");
            counts.failed += count_before(rest, " failed");
            counts.ignored += count_before(rest, " ignored");
        }
    })
}

/// Runs `cmd`, echoing its stdout line by line and showing each line to
/// `watch`; fails when the command does.
fn run_watching(cmd: &mut Command, mut watch: impl FnMut(&str)) -> Result {
    println!("$ {}", show(cmd));
    flush();
    let mut child =
        cmd.stdout(Stdio::piped()).spawn().map_err(|e| Failure::new(format!("cannot start `{}`: {e}", show(cmd))))?;
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            println!("{line}");
            watch(&line);
        }
    }
    let status = child.wait().map_err(|e| Failure::new(format!("`{}`: {e}", show(cmd))))?;
    if status.success() {
        Ok(())
    } else {
        Err(Failure::new(format!("`{}` failed ({status})", show(cmd))))
    }
}

/// In `ok. 12 passed; 0 failed; …` the number before `label`.
fn count_before(s: &str, label: &str) -> u64 {
    s.find(label)
        .and_then(|i| s[..i].rsplit(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn banner(title: &str) {
    let line = "=".repeat(78);
    println!("\n{line}\n== {title}\n{line}");
    flush();
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 60.0 {
        format!("{s:.1}s")
    } else {
        format!("{}m{:02.0}s", (s / 60.0) as u64, s % 60.0)
    }
}

// ---------------------------------------------------------------------------
// Setup (idempotent: checks first, installs only what is missing)

fn setup() -> Result {
    setup_rustup()?;
    setup_apt()?;
    firmware::setup_tools()
}

fn setup_rustup() -> Result {
    if capture(Command::new("rustup").arg("--version")).is_none() {
        println!("setup: rustup not found; assuming the targets, nightly rust-src and clippy/rustfmt are installed");
        return Ok(());
    }
    // The toolchain that runs `cargo xtask` (stable unless overridden).
    let installed = capture(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    let missing: Vec<&str> =
        NO_STD_TARGETS.iter().map(|t| t.1).filter(|t| !installed.lines().any(|l| l == *t)).collect();
    if missing.is_empty() {
        println!("setup: targets {} present", NO_STD_TARGETS.map(|t| t.1).join(", "));
    } else {
        run(Command::new("rustup").args(["target", "add"]).args(&missing))?;
    }
    let components = capture(Command::new("rustup").args(["component", "list", "--installed"])).unwrap_or_default();
    let missing: Vec<&str> =
        ["clippy", "rustfmt"].into_iter().filter(|c| !components.lines().any(|l| l.starts_with(c))).collect();
    if missing.is_empty() {
        println!("setup: clippy, rustfmt present");
    } else {
        run(Command::new("rustup").args(["component", "add"]).args(&missing))?;
    }

    // Nightly: rust-src (for -Z build-std) and the core-only target.
    let toolchains = capture(Command::new("rustup").args(["toolchain", "list"])).unwrap_or_default();
    if !toolchains.lines().any(|l| l.starts_with("nightly")) {
        run(Command::new("rustup").args([
            "toolchain",
            "install",
            "nightly",
            "--profile",
            "minimal",
            "--component",
            "rust-src",
            "--target",
            CORE_ONLY_TARGET,
        ]))?;
        return Ok(());
    }
    let nightly_components =
        capture(Command::new("rustup").args(["component", "list", "--installed", "--toolchain", "nightly"]))
            .unwrap_or_default();
    if nightly_components.lines().any(|l| l.trim() == "rust-src") {
        println!("setup: nightly rust-src present");
    } else {
        run(Command::new("rustup").args(["component", "add", "rust-src", "--toolchain", "nightly"]))?;
    }
    let nightly_targets =
        capture(Command::new("rustup").args(["target", "list", "--installed", "--toolchain", "nightly"]))
            .unwrap_or_default();
    if nightly_targets.lines().any(|l| l == CORE_ONLY_TARGET) {
        println!("setup: nightly target {CORE_ONLY_TARGET} present");
    } else {
        run(Command::new("rustup").args(["target", "add", CORE_ONLY_TARGET, "--toolchain", "nightly"]))?;
    }
    Ok(())
}

fn apt_installed(package: &str) -> bool {
    capture(Command::new("dpkg").args(["-s", package]))
        .is_some_and(|s| s.lines().any(|l| l.starts_with("Status:") && l.contains("install ok installed")))
}

fn setup_apt() -> Result {
    if capture(Command::new("dpkg").arg("--version")).is_none() {
        println!("setup: no dpkg (not Debian/Ubuntu): install {} yourself", APT_PACKAGES.join(", "));
        return Ok(());
    }
    let missing: Vec<&str> = APT_PACKAGES.into_iter().filter(|p| !apt_installed(p)).collect();
    if missing.is_empty() {
        println!("setup: {} present", APT_PACKAGES.join(", "));
        return Ok(());
    }
    let root = capture(Command::new("id").arg("-u")).is_some_and(|s| s.trim() == "0");
    let apt = |args: &[&str]| {
        let mut c = if root {
            Command::new("apt-get")
        } else {
            let mut c = Command::new("sudo");
            c.args(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]);
            c
        };
        c.env("DEBIAN_FRONTEND", "noninteractive").args(args);
        c
    };
    run(&mut apt(&["update"]))?;
    run(apt(&["install", "-y", "--no-install-recommends"]).args(&missing))
}

// ---------------------------------------------------------------------------
// test

#[derive(Clone, Copy)]
enum Kind {
    /// A plain command.
    Plain,
    /// A `cargo test` whose `test result:` lines are counted.
    Tests,
}

struct Step {
    key: &'static str,
    title: String,
    kind: Kind,
    command: Command,
}

fn step(key: &'static str, title: impl Into<String>, kind: Kind, command: Command) -> Step {
    Step { key, title: title.into(), kind, command }
}

fn with_args(mut c: Command, args: &[&str]) -> Command {
    c.args(args);
    c
}

fn test_steps() -> Vec<Step> {
    let mut steps = vec![
        step(
            "fmt",
            "rustfmt check (whole workspace)",
            Kind::Plain,
            with_args(cargo(), &["fmt", "--all", "--", "--check"]),
        ),
        step(
            "clippy",
            "clippy on every host target (lib, tests, benches, examples, xtask; --features std,gpu,f16), \
             warnings are errors",
            Kind::Plain,
            // Every feature of the host build at once: no code is compiled
            // only without one of them (no `cfg(not(feature = …))`).
            with_args(
                cargo(),
                &["clippy", "--workspace", "--all-targets", "--features", "std,gpu,f16", "--", "-D", "warnings"],
            ),
        ),
        step(
            "test",
            "unit, integration and doc tests, examples built (--workspace --features std)",
            Kind::Tests,
            // --no-fail-fast: every test binary runs, so one CI log shows
            // every failure (the step still fails).
            with_args(cargo(), &["test", "--workspace", "--features", "std", "--no-fail-fast"]),
        ),
        step(
            "doctest",
            "doc tests without features (no_std API as users see it)",
            Kind::Tests,
            with_args(cargo(), &["test", "--doc"]),
        ),
    ];
    for (key, target) in NO_STD_TARGETS {
        steps.push(step(
            key,
            format!("no_std library build, release, {target}"),
            Kind::Plain,
            with_args(cargo(), &["build", "--lib", "--release", "--target", target]),
        ));
    }
    steps.push(step(
        "no-alloc",
        format!("core-only proof: nightly -Z build-std=core for {CORE_ONLY_TARGET} (any alloc use fails)"),
        Kind::Plain,
        with_args(cargo_nightly(), &["build", "-Z", "build-std=core", "--target", CORE_ONLY_TARGET, "--lib"]),
    ));
    steps.push(step(
        "clippy-thumbv7em",
        "clippy on the library for thumbv7em-none-eabihf (hard-float asm path)",
        Kind::Plain,
        with_args(cargo(), &["clippy", "--lib", "--target", "thumbv7em-none-eabihf", "--", "-D", "warnings"]),
    ));
    steps.push(step(
        "defmt-thumbv7em",
        "the defmt and f16 features build for thumbv7em-none-eabihf (defmt::Format on every public type)",
        Kind::Plain,
        with_args(
            cargo(),
            &[
                "clippy",
                "--lib",
                "--features",
                "defmt,f16",
                "--target",
                "thumbv7em-none-eabihf",
                "--",
                "-D",
                "warnings",
            ],
        ),
    ));
    steps.push(step(
        "benches",
        "benches compile, the GPU and f16 ones included (cargo build --benches --features std,gpu,f16)",
        Kind::Plain,
        with_args(cargo(), &["build", "--benches", "--features", "std,gpu,f16"]),
    ));
    steps.push(step(
        "f16",
        "sampled grids with half-precision storage: the suite's sdf_grid module with --features std,f16",
        Kind::Tests,
        // The suite needs `std` (quickhull); the filter keeps the grid tests.
        with_args(cargo(), &["test", "--features", "std,f16", "--test", "suite", "sdf_grid::"]),
    ));
    steps.push(step(
        "gpu",
        "the wgpu particle pipeline's tests, run for real on the first adapter (lavapipe in CI)",
        Kind::Tests,
        gpu_env(with_args(
            cargo(),
            &["test", "--features", "gpu", "--test", "gpu_particles", "--lib", "--no-fail-fast"],
        )),
    ));
    steps.push(step(
        "demo",
        "host demo smoke run (debug; fails on Undetermined or a closed-form mismatch)",
        Kind::Plain,
        with_args(cargo(), &["run", "--features", "std", "--example", "host_demo", "--", "--quiet"]),
    ));
    steps.extend(firmware::test_steps());
    steps.push(fuzz::smoke_step());
    steps
}

/// `XDG_RUNTIME_DIR` pointing at a private directory: Mesa's Vulkan loader
/// warns (harmlessly) without one.
fn gpu_env(mut c: Command) -> Command {
    let dir = env::temp_dir().join("narrowphase-xdg-runtime");
    if std::fs::create_dir_all(&dir).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        if env::var_os("XDG_RUNTIME_DIR").is_none() {
            c.env("XDG_RUNTIME_DIR", &dir);
        }
    }
    c
}

fn selected(key: &str, keys: &[String]) -> bool {
    keys.iter().any(|k| key == k || key.strip_prefix(k.as_str()).is_some_and(|r| r.starts_with('-')))
}

fn parse_keys(value: Option<&String>, flag: &str) -> Result<Vec<String>> {
    let v = value.ok_or_else(|| Failure::usage(format!("{flag} needs a value")))?;
    Ok(v.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
}

fn test(args: &[String]) -> Result {
    let mut do_setup = true;
    let mut only: Vec<String> = Vec::new();
    let mut skip: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--no-setup" => do_setup = false,
            "--only" => only.extend(parse_keys(it.next(), "--only")?),
            "--skip" => skip.extend(parse_keys(it.next(), "--skip")?),
            "--list" => {
                for s in test_steps() {
                    println!("{:<18} {}", s.key, s.title);
                }
                return Ok(());
            }
            other => return Err(Failure::usage(format!("unknown option `{other}` for test"))),
        }
    }
    let all = test_steps();
    for k in only.iter().chain(&skip) {
        if !all.iter().any(|s| selected(s.key, std::slice::from_ref(k))) {
            return Err(Failure::usage(format!("no step matches `{k}` (see `cargo xtask test --list`)")));
        }
    }
    let steps: Vec<Step> =
        all.into_iter().filter(|s| (only.is_empty() || selected(s.key, &only)) && !selected(s.key, &skip)).collect();

    let start = Instant::now();
    let mut report: Vec<(String, &'static str, Duration)> = Vec::new();
    let mut counts = TestCounts::default();
    let mut failure = None;

    if do_setup {
        banner("setup: rustup targets and components, nightly rust-src, apt packages");
        let t = Instant::now();
        let r = setup();
        report.push(("setup".into(), if r.is_ok() { "ok" } else { "FAILED" }, t.elapsed()));
        failure = r.err();
    }
    let total = steps.len();
    for (i, mut s) in steps.into_iter().enumerate() {
        if failure.is_some() {
            report.push((s.key.into(), "not run", Duration::ZERO));
            continue;
        }
        banner(&format!("[{}/{}] {}: {}", i + 1, total, s.key, s.title));
        let t = Instant::now();
        let r = match s.kind {
            Kind::Plain => run(&mut s.command),
            Kind::Tests => run_counting(&mut s.command, &mut counts),
        };
        let took = t.elapsed();
        println!("-- {}: {} in {}", s.key, if r.is_ok() { "ok" } else { "FAILED" }, secs(took));
        report.push((s.key.into(), if r.is_ok() { "ok" } else { "FAILED" }, took));
        failure = r.err();
    }

    banner("summary");
    for (key, state, took) in &report {
        let t = if *state == "not run" { String::new() } else { secs(*took) };
        println!("  {state:<8} {key:<18} {t:>8}");
    }
    println!("  total {} ({} test binaries)", secs(start.elapsed()), counts.binaries);
    // The plain closing line CI reads (libtest's `ignored` reported as skipped).
    println!("tests: {} passed, {} failed, {} skipped", counts.passed, counts.failed, counts.ignored);
    flush();
    match failure {
        None => Ok(()),
        Some(f) => Err(f),
    }
}

// ---------------------------------------------------------------------------
// demo, bench, fuzz

fn demo(args: &[String]) -> Result {
    // The host version (examples/host_demo.rs) stays a test step (`demo`).
    firmware::demo(args)
}

fn bench(args: &[String]) -> Result {
    let (mut cargo_args, criterion_args) = match args.iter().position(|a| a == "--") {
        Some(i) => (args[..i].to_vec(), args[i + 1..].to_vec()),
        None => (args.to_vec(), Vec::new()),
    };
    let do_setup = !cargo_args.iter().any(|a| a == "--no-setup");
    cargo_args.retain(|a| a != "--no-setup");
    if do_setup {
        banner("setup");
        setup()?;
    }
    // Only the bench targets: the library's and the tests' libtest harness
    // would reject criterion's options.
    let selects = |a: &String| {
        ["--bench", "--benches", "--lib", "--test", "--tests", "--all-targets"]
            .iter()
            .any(|f| a == f || a.starts_with(&format!("{f}=")))
    };
    if !cargo_args.iter().any(selects) {
        cargo_args.extend(["--bench".into(), "*".into()]);
    }
    let mut short: Vec<String> = Vec::new();
    if !criterion_args.iter().any(|a| a.starts_with("--warm-up-time")) {
        short.extend(["--warm-up-time".into(), "1".into()]);
    }
    if !criterion_args.iter().any(|a| a.starts_with("--measurement-time")) {
        short.extend(["--measurement-time".into(), "3".into()]);
    }
    banner("cargo bench");
    run(cargo().args(["bench", "--features", "std"]).args(&cargo_args).arg("--").args(&short).args(&criterion_args))
}

fn fuzz(args: &[String]) -> Result {
    fuzz::fuzz(args)
}
