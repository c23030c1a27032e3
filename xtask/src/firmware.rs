//! The firmware crate (`firmware/`, its own workspace) on QEMU: the demo, the
//! on-target tests, instruction counts, stack bounds and the link checks.
//!
//! ```text
//! cargo xtask demo                   the firmware demo on mps2-an386 (Cortex-M4F)
//! cargo xtask icount [--update] [--verbose]  instruction counts vs firmware/icount.toml
//! cargo xtask icount --profile FAMILY   where one family's instructions go
//! cargo xtask fw tests m4f|m7|v6m    on-target checks, numbers compared with the host's
//! cargo xtask fw stack [--update]    stack high-water marks vs firmware/stack.toml
//! cargo xtask fw no-alloc | vsqrt    symbol and disassembly checks of the release ELFs
//! cargo xtask fw frames              per-function stack frames (nightly -Z emit-stack-sizes)
//! ```
//! The `fw-*` steps of `cargo xtask test` call these.

use std::collections::{BTreeMap, HashMap};
use std::env;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;

use super::{banner, capture, cargo, run, step, Failure, Kind, Result, Step};

/// The firmware crate, relative to the workspace root.
const FW: &str = "firmware";
const THUMBV7EM: &str = "thumbv7em-none-eabihf";
const THUMBV6M: &str = "thumbv6m-none-eabi";
/// Regression threshold of `icount`: a family's median or worst may grow by
/// this fraction before the check fails.
const ICOUNT_SLACK: f64 = 0.10;
/// Symbols that would mean a heap allocator is linked.
const ALLOC_SYMBOLS: [&str; 6] =
    ["__rust_alloc", "__rust_dealloc", "__rust_realloc", "__rust_alloc_zeroed", "__rdl_alloc", "__rg_alloc"];
/// The release binaries whose symbols are checked (panic_free has its own step).
const BINS: [&str; 4] = ["demo", "ontarget_tests", "icount", "stack"];

/// A QEMU machine the on-target tests run on.
struct Machine {
    key: &'static str,
    target: &'static str,
    machine: &'static str,
    cpu: &'static str,
    what: &'static str,
}

const MACHINES: [Machine; 3] = [
    Machine { key: "m4f", target: THUMBV7EM, machine: "mps2-an386", cpu: "cortex-m4", what: "Cortex-M4F" },
    Machine { key: "m7", target: THUMBV7EM, machine: "mps2-an500", cpu: "cortex-m7", what: "Cortex-M7" },
    Machine {
        key: "v6m",
        target: THUMBV6M,
        machine: "mps2-an385",
        cpu: "cortex-m3",
        what: "the thumbv6m (Cortex-M0 ISA, soft float) build on the Cortex-M3 machine",
    },
];

// ---------------------------------------------------------------------------
// Helpers

fn fw_cargo() -> Command {
    let mut c = cargo();
    c.current_dir(FW);
    c
}

/// This xtask binary (the `fw-*` steps call back into it).
fn xtask(args: &[&str]) -> Command {
    let mut c = Command::new(env::current_exe().unwrap_or_else(|_| "cargo-xtask".into()));
    c.args(args);
    c
}

fn host_triple() -> String {
    capture(Command::new("rustc").arg("-vV"))
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("host: ").map(str::to_string)))
        .unwrap_or_else(|| "x86_64-unknown-linux-gnu".into())
}

fn elf(target: &str, bin: &str) -> PathBuf {
    Path::new(FW).join("target").join(target).join("release").join(bin)
}

/// An LLVM tool: rustup's `llvm-tools` component first, then PATH.
fn llvm_tool(name: &str) -> Command {
    let sysroot = capture(Command::new("rustc").args(["--print", "sysroot"])).unwrap_or_default();
    let p = Path::new(sysroot.trim()).join("lib/rustlib").join(host_triple()).join("bin").join(name);
    Command::new(if p.exists() { p } else { PathBuf::from(name) })
}

/// Runs `cmd`, echoing and returning its stdout; an error for a non-zero exit.
fn run_capture(cmd: &mut Command) -> Result<String> {
    println!("$ {}", super::show(cmd));
    super::flush();
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Failure::new(format!("cannot start `{}`: {e}", super::show(cmd))))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    print!("{text}");
    if out.status.success() {
        Ok(text)
    } else {
        Err(Failure::new(format!("`{}` failed ({})", super::show(cmd), out.status)))
    }
}

/// `cargo run --release --bin BIN` on QEMU through firmware/qemu-run.sh.
fn run_bin(bin: &str, m: &Machine) -> Command {
    let mut c = fw_cargo();
    c.args(["run", "--release", "--bin", bin, "--target", m.target]).env("FW_MACHINE", m.machine).env("FW_CPU", m.cpu);
    c
}

fn words(line: &str, tag: &str) -> Option<Vec<String>> {
    let at = line.find(tag)?;
    Some(line[at + tag.len()..].split_whitespace().map(str::to_string).collect())
}

// ---------------------------------------------------------------------------
// Setup, demo, test steps

/// Installs the host tools the firmware needs when missing: defmt-print and
/// rustup's llvm-tools (llvm-nm, llvm-objdump). The targets and
/// `qemu-system-arm` come with the main setup's lists.
pub fn setup_tools() -> Result {
    if capture(Command::new("defmt-print").arg("--version")).is_some() {
        println!("setup: defmt-print present");
    } else {
        run(cargo().args(["install", "defmt-print", "--locked"]))?;
    }
    // `fw frames` builds with nightly (-Z emit-stack-sizes) for the target.
    let toolchains = capture(Command::new("rustup").args(["toolchain", "list"])).unwrap_or_default();
    if toolchains.lines().any(|l| l.starts_with("nightly")) {
        let t = capture(Command::new("rustup").args(["target", "list", "--installed", "--toolchain", "nightly"]))
            .unwrap_or_default();
        if t.lines().any(|l| l == THUMBV7EM) {
            println!("setup: nightly target {THUMBV7EM} present");
        } else {
            run(Command::new("rustup").args(["target", "add", THUMBV7EM, "--toolchain", "nightly"]))?;
        }
    }
    let components = capture(Command::new("rustup").args(["component", "list", "--installed"])).unwrap_or_default();
    if components.lines().any(|l| l.starts_with("llvm-tools")) {
        println!("setup: llvm-tools present");
    } else if capture(Command::new("rustup").arg("--version")).is_some() {
        run(Command::new("rustup").args(["component", "add", "llvm-tools"]))?;
    }
    Ok(())
}

/// The firmware demo on mps2-an386 with `-icount shift=7`: QEMU's clock then
/// advances 128 ns per executed instruction, which the demo reads from
/// SysTick to count each control tick's instructions
/// (`firmware/src/meter.rs`).
fn demo_command() -> Command {
    let mut c = run_bin("demo", &MACHINES[0]);
    c.args(["--", "-icount", "shift=7"]);
    c
}

/// `cargo xtask demo`: set up, then the firmware demo on the emulated Cortex-M4F.
pub fn demo(args: &[String]) -> Result {
    if let Some(a) = args.iter().find(|a| *a != "--no-setup") {
        return Err(Failure::usage(format!("unknown option `{a}` for demo")));
    }
    if args.is_empty() {
        banner("setup: targets, qemu-system-arm, defmt-print");
        super::setup_rustup()?;
        super::setup_apt()?;
        setup_tools()?;
    }
    banner("firmware demo on QEMU mps2-an386 (Cortex-M4F)");
    run_demo(&mut demo_command())
}

/// What the demo prints once it has counted every tick's instructions.
const COUNTS_LINE: &str = "instructions per tick";

/// Runs the demo, its output passed through line by line, and fails when
/// it fails or printed no instruction counts: under `-icount` the meter must
/// calibrate, and a demo that silently stopped counting would pass
/// otherwise.
fn run_demo(cmd: &mut Command) -> Result {
    let mut counted = false;
    super::run_watching(cmd, |line| counted |= line.starts_with(COUNTS_LINE))?;
    if !counted {
        return Err(Failure::new(format!(
            "the demo printed no `{COUNTS_LINE}` line: its meter did not calibrate under -icount (firmware/src/meter.rs)"
        )));
    }
    Ok(())
}

/// The `fw-*` steps of `cargo xtask test`.
pub fn test_steps() -> Vec<Step> {
    let mut host = fw_cargo();
    host.args(["test", "--lib", "--target", &host_triple()]);
    let demo = xtask(&["demo", "--no-setup"]);
    let mut panic_free = fw_cargo();
    panic_free.args(["build", "--release", "--bin", "panic_free", "--target", THUMBV7EM]);
    vec![
        step("fw-host", "firmware cases and workloads on the host (same closed forms; poly200.rs up to date)", Kind::Tests, host),
        step("fw-tests-m4f", "on-target checks on QEMU mps2-an386 (Cortex-M4F), numbers vs the host's", Kind::Plain, xtask(&["fw", "tests", "m4f"])),
        step("fw-tests-m7", "on-target checks on QEMU mps2-an500 (Cortex-M7), numbers vs the host's", Kind::Plain, xtask(&["fw", "tests", "m7"])),
        step("fw-tests-v6m", "on-target checks, thumbv6m build on QEMU mps2-an385, numbers vs the host's", Kind::Plain, xtask(&["fw", "tests", "v6m"])),
        step("fw-demo", "firmware demo on QEMU mps2-an386 (exit status 0 = every closed-form check passed, nothing undetermined, answers bit for bit the host test's; and each tick's instructions counted)", Kind::Plain, demo),
        step("fw-panic-free", "release link with a panic handler that calls an undefined symbol (any surviving panic path fails the link)", Kind::Plain, panic_free),
        step("fw-no-alloc", "no allocator symbols (__rust_alloc, …) in the release ELFs", Kind::Plain, xtask(&["fw", "no-alloc"])),
        step("fw-vsqrt", "Real::sqrt is vsqrt.f32 inside the kernel on thumbv7em-none-eabihf (disassembly)", Kind::Plain, xtask(&["fw", "vsqrt"])),
        step("fw-stack", "stack high-water mark per query family within firmware/stack.toml", Kind::Plain, xtask(&["fw", "stack"])),
        step("fw-icount", "instruction counts per query family within 10 % of firmware/icount.toml", Kind::Plain, xtask(&["fw", "icount"])),
    ]
}

/// `cargo xtask fw <check>`.
pub fn fw(args: &[String]) -> Result {
    let (sub, rest) = match args.split_first() {
        Some((s, r)) => (s.as_str(), r),
        None => {
            return Err(Failure::usage("fw needs a check: tests m4f|m7|v6m, stack, icount, no-alloc, vsqrt, frames"))
        }
    };
    let update = rest.iter().any(|a| a == "--update");
    match sub {
        "tests" => {
            let key = rest.first().map(String::as_str).unwrap_or("m4f");
            let m = MACHINES
                .iter()
                .find(|m| m.key == key)
                .ok_or_else(|| Failure::usage(format!("unknown machine `{key}` (m4f, m7, v6m)")))?;
            on_target_tests(m)
        }
        "stack" => stack(update),
        "icount" => icount(update, rest.iter().any(|a| a == "--verbose")),
        "no-alloc" => no_alloc(),
        "vsqrt" => vsqrt(),
        "frames" => frames(),
        other => Err(Failure::usage(format!("unknown fw check `{other}`"))),
    }
}

/// `cargo xtask icount [--update] [--verbose]`, or `--profile FAMILY`.
pub fn icount_command(args: &[String]) -> Result {
    if let Some(i) = args.iter().position(|a| a == "--profile") {
        let family =
            args.get(i + 1).ok_or_else(|| Failure::usage("--profile needs a family (see firmware/icount.toml)"))?;
        return icount_profile(family);
    }
    icount(args.iter().any(|a| a == "--update"), args.iter().any(|a| a == "--verbose"))
}

// ---------------------------------------------------------------------------
// On-target tests vs the host

/// `CASE name index bits truth tol` → (name index) → (value, tol).
fn case_lines(text: &str) -> BTreeMap<(String, u32), (f32, f64)> {
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let Some(w) = words(line, "CASE ") else { continue };
        if w.len() < 5 {
            continue;
        }
        let (Ok(i), Ok(bits), Ok(tol)) = (w[1].parse::<u32>(), u32::from_str_radix(&w[2], 16), w[4].parse::<f64>())
        else {
            continue;
        };
        m.insert((w[0].clone(), i), (f32::from_bits(bits), tol));
    }
    m
}

fn on_target_tests(m: &Machine) -> Result {
    println!("on-target checks on {} ({} {}, {})", m.what, m.machine, m.cpu, m.target);
    let target = run_capture(&mut run_bin("ontarget_tests", m))?;
    if !target.lines().any(|l| l.contains("CASES passed=") && l.contains(" failed=0")) {
        return Err(Failure::new("the target did not report `CASES … failed=0`"));
    }
    let mut host_cmd = fw_cargo();
    host_cmd.args(["test", "--lib", "--target", &host_triple(), "cases_pass_on_the_host", "--", "--nocapture"]);
    println!("$ {}", super::show(&host_cmd));
    let host = host_cmd.stderr(Stdio::null()).output().map_err(|e| Failure::new(format!("host cases: {e}")))?;
    if !host.status.success() {
        return Err(Failure::new("the host run of the cases failed (see `cargo xtask test --only fw-host`)"));
    }
    let (t, h) = (case_lines(&target), case_lines(&String::from_utf8_lossy(&host.stdout)));
    if t.is_empty() || t.len() != h.len() {
        return Err(Failure::new(format!("{} checks on the target, {} on the host", t.len(), h.len())));
    }
    let (mut identical, mut worst, mut bad) = (0, 0.0_f64, Vec::new());
    for (key, (vt, tol)) in &t {
        let Some((vh, _)) = h.get(key) else {
            bad.push(format!("{} #{}: not run on the host", key.0, key.1));
            continue;
        };
        if vt.to_bits() == vh.to_bits() {
            identical += 1;
            continue;
        }
        let d = (*vt as f64 - *vh as f64).abs();
        worst = worst.max(d);
        if d.is_nan() || d > *tol {
            bad.push(format!("{} #{}: target {vt:e} vs host {vh:e} (tol {tol:e})", key.0, key.1));
        }
    }
    println!(
        "{} checks passed on the target against the closed forms; vs the host: {identical} bit-identical, \
         largest difference {worst:e}, {} beyond the f32 tolerance",
        t.len(),
        bad.len()
    );
    if bad.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(format!("target and host differ:\n  {}", bad.join("\n  "))))
    }
}

// ---------------------------------------------------------------------------
// Symbol and disassembly checks

fn build_bins(target: &str) -> Result {
    let mut c = fw_cargo();
    c.args(["build", "--release", "--target", target]);
    for b in BINS {
        c.args(["--bin", b]);
    }
    run(&mut c)
}

fn no_alloc() -> Result {
    build_bins(THUMBV7EM)?;
    let mut elfs: Vec<PathBuf> = BINS.iter().map(|b| elf(THUMBV7EM, b)).collect();
    let pf = elf(THUMBV7EM, "panic_free");
    if pf.exists() {
        elfs.push(pf);
    }
    let mut found = Vec::new();
    for e in &elfs {
        let syms = capture(llvm_tool("llvm-nm").arg(e))
            .ok_or_else(|| Failure::new(format!("llvm-nm {} failed (rustup component add llvm-tools)", e.display())))?;
        for l in syms.lines() {
            if let Some(name) = l.split_whitespace().last() {
                if ALLOC_SYMBOLS.iter().any(|a| name.starts_with(a)) {
                    found.push(format!("{}: {name}", e.display()));
                }
            }
        }
        println!("{}: no allocator symbols", e.display());
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(format!("allocator symbols linked:\n  {}", found.join("\n  "))))
    }
}

fn vsqrt() -> Result {
    build_bins(THUMBV7EM)?;
    let e = elf(THUMBV7EM, "ontarget_tests");
    let dis = capture(llvm_tool("llvm-objdump").args(["-d", "--demangle", "--no-show-raw-insn"]).arg(&e))
        .ok_or_else(|| Failure::new("llvm-objdump failed (rustup component add llvm-tools)"))?;
    let (mut func, mut in_kernel) = (String::new(), false);
    let (mut count, mut funcs, mut calls) = (0usize, BTreeMap::<String, usize>::new(), Vec::new());
    for l in dis.lines() {
        if let (Some(a), true) = (l.find(" <"), l.ends_with(">:")) {
            func = l[a + 2..l.len() - 2].to_string();
            in_kernel = func.starts_with("narrowphase::");
            continue;
        }
        if !in_kernel {
            continue;
        }
        if l.contains("vsqrt.f32") {
            count += 1;
            *funcs.entry(func.clone()).or_default() += 1;
        }
        if (l.contains("\tbl\t") || l.contains("\tb.w\t") || l.contains("\tb\t")) && l.contains("sqrt") {
            calls.push(format!("{func}: {}", l.trim()));
        }
    }
    for (f, n) in &funcs {
        println!("  {n:3} x vsqrt.f32 in {f}");
    }
    println!("{count} vsqrt.f32 in {} kernel functions of {}", funcs.len(), e.display());
    if !calls.is_empty() {
        return Err(Failure::new(format!("kernel code calls a software square root:\n  {}", calls.join("\n  "))));
    }
    if count == 0 {
        return Err(Failure::new("no vsqrt.f32 in the kernel's functions"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Stored tables: `[family]` sections of `key = integer`

type Table = BTreeMap<String, BTreeMap<String, u64>>;

fn read_table(path: &Path) -> Result<Table> {
    let text = fs::read_to_string(path).map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    let mut t = Table::new();
    let mut section = String::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(s) = line.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = s.trim().to_string();
        } else if let Some((k, v)) = line.split_once('=') {
            let v =
                v.trim().parse().map_err(|_| Failure::new(format!("{}: bad number in `{line}`", path.display())))?;
            t.entry(section.clone()).or_default().insert(k.trim().to_string(), v);
        }
    }
    Ok(t)
}

fn write_table(path: &Path, header: &str, t: &Table) -> Result {
    let mut s = String::from(header);
    for (name, kv) in t {
        s.push_str(&format!("\n[{name}]\n"));
        for (k, v) in kv {
            s.push_str(&format!("{k} = {v}\n"));
        }
    }
    fs::write(path, s).map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    println!("wrote {}", path.display());
    Ok(())
}

// ---------------------------------------------------------------------------
// Stack

const STACK_HEADER: &str = "\
# Stack high-water mark per query family, bytes below the caller's stack
# pointer (RAM painted, query run, lowest overwritten word found), maximum
# over the family's corpus; release build, thumbv7em-none-eabihf, QEMU
# mps2-an386. `bound` is the documented bound (measured + 1/8, rounded up to
# 64 bytes): `cargo xtask test --only fw-stack` fails when a query grows past
# it. Where a query reserves more than its corpus paints (`contact`'s EPA
# workspace, built on the stack only on the path that runs EPA), `frame` is
# that reservation as measured with every slot written, and the bound is
# taken from it. Written by `cargo xtask fw stack --update`, which keeps
# each `frame`.
";

fn stack(update: bool) -> Result {
    let out = run_capture(&mut run_bin("stack", &MACHINES[0]))?;
    let mut fresh: BTreeMap<String, u64> = BTreeMap::new();
    for line in out.lines() {
        if let Some(w) = words(line, "STACK ") {
            if let (Some(name), Some(Ok(b))) = (w.first(), w.get(1).map(|b| b.parse::<u64>())) {
                fresh.insert(name.clone(), b);
            }
        }
    }
    if fresh.is_empty() {
        return Err(Failure::new("no STACK lines from the firmware"));
    }
    let path = Path::new(FW).join("stack.toml");
    if update {
        let stored = read_table(&path).unwrap_or_default();
        let t: Table = fresh
            .iter()
            .map(|(n, &b)| {
                let frame = stored.get(n).and_then(|s| s.get("frame")).copied();
                let reserved = b.max(frame.unwrap_or(0));
                let bound = (reserved + reserved / 8).div_ceil(64) * 64;
                let mut row = BTreeMap::from([("measured".to_string(), b), ("bound".to_string(), bound)]);
                if let Some(frame) = frame {
                    row.insert("frame".to_string(), frame);
                }
                (n.clone(), row)
            })
            .collect();
        return write_table(&path, STACK_HEADER, &t);
    }
    let stored = read_table(&path)?;
    let mut bad = Vec::new();
    println!("{:<36} {:>9} {:>9} {:>9}", "family", "measured", "stored", "bound");
    for (name, b) in &fresh {
        let s = stored.get(name);
        let bound = s.and_then(|s| s.get("bound")).copied();
        let was = s.and_then(|s| s.get("measured")).copied();
        let show = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
        println!("{name:<36} {b:>9} {:>9} {:>9}", show(was), show(bound));
        match bound {
            Some(bound) if *b <= bound => {}
            Some(bound) => bad.push(format!("{name}: {b} bytes > bound {bound}")),
            None => bad.push(format!("{name}: no bound in {}", path.display())),
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(format!("stack bounds exceeded:\n  {}", bad.join("\n  "))))
    }
}

// ---------------------------------------------------------------------------
// Instruction counts

const ICOUNT_HEADER: &str = "\
# Instructions per query on the emulated Cortex-M4F (QEMU mps2-an386,
# `-singlestep -d exec,nochain`: one trace line per executed instruction),
# release build of firmware/src/bin/icount.rs, counted between the
# bench_start/bench_stop markers with the `empty` family's median (the
# marker overhead) subtracted. `median` is the lower median, `worst` the
# maximum over the family's corpus (`n` queries). Written by
# `cargo xtask icount --update`; `cargo xtask icount` and the fw-icount test
# step fail when a median, worst or bound grows by more than 10 %, or when a
# family's worst exceeds the bound of its sweep.
#
# `*_sweep` families run each pose once per iteration cap 1, 2, ..., up to a
# cap every pose finishes under: `first` is the most any pose cost at cap 1,
# `step` the most one more iteration added (count at cap k less count at cap
# k - 1, the exits' difference included), and `bound = first + 63 * step`
# the worst case at `Budget::default()`'s cap of 64 iterations, for the
# family of the same name without `_sweep`. A `plain_` sweep runs the same
# poses with the boxes seen through their support functions alone, so that
# GJK iterates on every pose: the sweep without `plain_` takes the larger
# of the two steps.
";

/// Address and size of every function symbol (`llvm-nm -S --demangle`).
fn symbols(e: &Path) -> Result<Vec<(u64, u64, String)>> {
    let out = capture(llvm_tool("llvm-nm").args(["-S", "--demangle"]).arg(e))
        .ok_or_else(|| Failure::new("llvm-nm failed (rustup component add llvm-tools)"))?;
    let mut v = Vec::new();
    for l in out.lines() {
        let mut it = l.splitn(4, ' ');
        let (Some(a), Some(s), Some(_), Some(name)) = (it.next(), it.next(), it.next(), it.next()) else { continue };
        if let (Ok(a), Ok(s)) = (u64::from_str_radix(a, 16), u64::from_str_radix(s, 16)) {
            v.push((a & !1, s, name.to_string()));
        }
    }
    Ok(v)
}

/// One family's raw counts (marker overhead included), in program order,
/// and for an iteration-cap sweep the caps each of its poses ran at.
struct Counts {
    name: String,
    counts: Vec<u64>,
    sweep_caps: Option<usize>,
}

/// Runs the icount firmware under the exec trace; returns every family's
/// counts in program order.
fn trace_counts() -> Result<Vec<Counts>> {
    Ok(trace(None)?.families)
}

/// What one run of the exec trace gives: every family's counts, and where
/// profiled (marker pairs `lo..hi` in program order) the instructions per
/// PC and those inside `compiler_builtins`' memory routines per calling PC
/// (the last instruction outside them).
struct Trace {
    families: Vec<Counts>,
    pcs: PerPc,
    copies: PerPc,
    elf: PathBuf,
}

/// Instructions per address.
type PerPc = HashMap<u64, u64>;

/// An address's inlined frames, innermost first: function, `file:line`,
/// and whether the file is the workspace's own.
type Frames = Vec<(String, String, bool)>;

fn trace(profile: Option<(usize, usize)>) -> Result<Trace> {
    let m = &MACHINES[0];
    let mut b = fw_cargo();
    b.args(["build", "--release", "--bin", "icount", "--target", m.target]);
    run(&mut b)?;
    let e = elf(m.target, "icount");
    let syms = symbols(&e)?;
    let addr = |n: &str| syms.iter().find(|s| s.2 == n).map(|s| s.0);
    let (Some(start), Some(stop)) = (addr("bench_start"), addr("bench_stop")) else {
        return Err(Failure::new("bench_start/bench_stop not found in the icount ELF"));
    };
    if start == stop {
        return Err(Failure::new("bench_start and bench_stop share an address (merged functions)"));
    }
    // The polytope validator (`Polytope::new`, run once before any marker)
    // is most of the trace: leave it out of the log. No query calls it.
    let skip: Vec<(u64, u64)> = syms
        .iter()
        .filter(|s| s.2.starts_with("narrowphase::shape::polytope::check_") && s.1 > 0)
        .map(|s| (s.0, s.0 + s.1))
        .collect();
    let mut filter = Vec::new();
    let mut from = 0u64;
    let mut sorted = skip.clone();
    sorted.sort();
    for (lo, hi) in sorted {
        if lo > from {
            filter.push(format!("0x{from:x}..0x{:x}", lo - 1));
        }
        from = from.max(hi);
    }
    filter.push(format!("0x{from:x}..0xffffffff"));

    let fifo = Path::new(FW).join("target").join("icount.trace.fifo");
    let _ = fs::remove_file(&fifo);
    run(Command::new("mkfifo").arg(&fifo))?;
    let mut qemu = Command::new("qemu-system-arm");
    qemu.args(["-machine", m.machine, "-cpu", m.cpu, "-nographic", "-monitor", "none", "-serial", "none"])
        .args(["-semihosting-config", "enable=on,target=native", "-singlestep", "-d", "exec,nochain"])
        .arg("-dfilter")
        .arg(filter.join(","))
        .arg("-D")
        .arg(&fifo)
        .arg("-kernel")
        .arg(&e);
    println!("$ {}", super::show(&qemu));
    super::flush();
    let mut q = qemu
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::new(format!("cannot start qemu-system-arm: {e} (cargo xtask test installs it)")))?;
    let qout = q.stdout.take().ok_or_else(|| Failure::new("no qemu stdout"))?;
    let mut decoder = Command::new("defmt-print")
        .arg("-e")
        .arg(&e)
        .stdin(Stdio::from(qout))
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::new(format!("cannot start defmt-print: {e}")))?;
    let mut dout = decoder.stdout.take().ok_or_else(|| Failure::new("no defmt-print stdout"))?;
    let log_reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = dout.read_to_string(&mut s);
        s
    });

    // Count trace lines from the first instruction of bench_start to the
    // first of bench_stop, in a thread: opening the FIFO blocks until QEMU
    // opens its end.
    let fifo_r = fifo.clone();
    let memory: Vec<(u64, u64)> = syms
        .iter()
        .filter(|s| s.1 > 0 && (s.2.starts_with("compiler_builtins::mem") || s.2.starts_with("__aeabi_mem")))
        .map(|s| (s.0, s.0 + s.1))
        .collect();
    let counter = thread::spawn(move || -> std::io::Result<(Vec<u64>, u64, PerPc, PerPc)> {
        let mut rd = BufReader::with_capacity(1 << 20, fs::File::open(&fifo_r)?);
        let (mut counts, mut current, mut line, mut total) = (Vec::new(), None::<u64>, Vec::new(), 0u64);
        let (mut pcs, mut copies) = (HashMap::new(), HashMap::new());
        let (mut previous, mut caller) = (0u64, None::<u64>);
        while rd.read_until(b'\n', &mut line)? > 0 {
            total += 1;
            // "Trace 0: 0x7f.. [00000000/000067a4/00000000/ff200000] symbol"
            let pc = line
                .iter()
                .position(|&c| c == b'/')
                .and_then(|i| {
                    let rest = &line[i + 1..];
                    let j = rest.iter().position(|&c| c == b'/')?;
                    u64::from_str_radix(std::str::from_utf8(&rest[..j]).ok()?, 16).ok()
                })
                .map(|p| p & !1);
            if let Some(c) = current.as_mut() {
                *c += 1;
            }
            let profiled = profile.is_some_and(|(lo, hi)| (lo..hi).contains(&counts.len()));
            if let (Some(pc), true, Some(_)) = (pc, profiled, current) {
                *pcs.entry(pc).or_insert(0) += 1;
                if memory.iter().any(|&(lo, hi)| (lo..hi).contains(&pc)) {
                    let from = *caller.get_or_insert(previous);
                    *copies.entry(from).or_insert(0) += 1;
                } else {
                    caller = None;
                }
                previous = pc;
            }
            if pc == Some(start) {
                current = Some(1);
            } else if pc == Some(stop) {
                if let Some(c) = current.take() {
                    counts.push(c - 1);
                }
            }
            line.clear();
        }
        Ok((counts, total, pcs, copies))
    });
    let status = q.wait().map_err(|e| Failure::new(format!("qemu: {e}")))?;
    // If QEMU died before opening its end, the counter still waits in
    // open(): open the writing end ourselves (non-blocking; it fails
    // harmlessly when no reader waits) so that it sees end-of-file.
    {
        use std::os::unix::fs::OpenOptionsExt;
        const O_NONBLOCK: i32 = 0o4000; // Linux
        let _ = fs::OpenOptions::new().write(true).custom_flags(O_NONBLOCK).open(&fifo);
    }
    let (counts, total, pcs, copies) = counter
        .join()
        .map_err(|_| Failure::new("the trace counter panicked"))?
        .map_err(|e| Failure::new(format!("reading the trace {}: {e}", fifo.display())))?;
    let _ = decoder.wait();
    let log = log_reader.join().unwrap_or_default();
    let _ = fs::remove_file(&fifo);
    print!("{log}");
    println!("{total} trace lines, {} marker pairs", counts.len());
    if !status.success() {
        return Err(Failure::new(format!("the icount firmware failed ({status}): an undetermined answer?")));
    }
    // Attribute the pairs to the families the firmware announced.
    let mut families = Vec::new();
    let mut it = counts.into_iter();
    let mut sweep: Option<(String, usize)> = None;
    for l in log.lines() {
        if let Some(w) = words(l, "SWEEP ") {
            sweep = w.get(1).and_then(|n| n.parse().ok()).map(|caps| (w[0].clone(), caps));
        } else if let Some(w) = words(l, "FAMILY ") {
            let n: usize = w.get(1).and_then(|n| n.parse().ok()).unwrap_or(0);
            let c: Vec<u64> = it.by_ref().take(n).collect();
            if c.len() != n {
                return Err(Failure::new(format!("{}: {n} queries announced, {} marker pairs", w[0], c.len())));
            }
            let sweep_caps = sweep.take().filter(|(name, _)| *name == w[0]).map(|(_, caps)| caps);
            families.push(Counts { name: w[0].clone(), counts: c, sweep_caps });
        }
    }
    if it.next().is_some() {
        return Err(Failure::new("more marker pairs than announced queries"));
    }
    Ok(Trace { families, pcs, copies, elf: e })
}

/// `cargo xtask icount --profile FAMILY`: one family's instructions per
/// query by the innermost function and source line they come from
/// (`llvm-addr2line -i`: inlined code counts where it was written), and
/// its copies through `memcpy`/`memmove`/`memset` by the line that called
/// them. Two runs of the trace: the first finds the family's marker pairs.
fn icount_profile(family: &str) -> Result {
    let families = trace(None)?.families;
    let k = families
        .iter()
        .position(|f| f.name == family)
        .ok_or_else(|| Failure::usage(format!("no family `{family}` in the icount firmware")))?;
    let lo: usize = families.iter().take(k).map(|f| f.counts.len()).sum();
    let n = families.get(k).map_or(0, |f| f.counts.len());
    let t = trace(Some((lo, lo + n)))?;
    let mut addresses: Vec<u64> = t.pcs.keys().chain(t.copies.keys()).copied().collect();
    addresses.sort_unstable();
    addresses.dedup();
    let frames = inlined_frames(&t.elf, &addresses)?;
    // The innermost frame of the workspace's own code (the kernel, the
    // firmware), else the innermost: `f32::mul` inlined into GJK counts as GJK.
    let innermost = |pc: &u64| {
        let f = frames.get(pc);
        let own = f.and_then(|f| f.iter().find(|x| x.2)).or_else(|| f.and_then(|f| f.first()));
        own.map(|x| (x.0.clone(), x.1.clone())).unwrap_or_default()
    };
    let mut by_function: HashMap<String, u64> = HashMap::new();
    let mut by_line: HashMap<String, u64> = HashMap::new();
    for (pc, c) in &t.pcs {
        let (function, line) = innermost(pc);
        *by_function.entry(function).or_insert(0) += c;
        *by_line.entry(line).or_insert(0) += c;
    }
    let mut by_caller: HashMap<String, u64> = HashMap::new();
    for (pc, c) in &t.copies {
        let (function, line) = innermost(pc);
        *by_caller.entry(format!("{function} ({line})")).or_insert(0) += c;
    }
    let total: u64 = t.pcs.values().sum();
    println!("\n{family}: {n} queries, {} instructions a query (marker overhead included)", total / n.max(1) as u64);
    for (title, table) in
        [("function", by_function), ("source line", by_line), ("copies, by the line calling them", by_caller)]
    {
        let mut rows: Vec<(String, u64)> = table.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        println!("\nby {title} (instructions a query, share):");
        for (name, c) in rows.iter().take(25) {
            println!("{:>8.1} {:>5.1} %  {name}", *c as f64 / n.max(1) as f64, 100.0 * *c as f64 / total.max(1) as f64);
        }
    }
    Ok(())
}

/// Each address's inlined frames, innermost first: function (its hash
/// dropped, legacy-mangled punctuation restored), `file:line` (the file's
/// name only) and whether the file is the workspace's own (not the
/// standard library's or a dependency's).
fn inlined_frames(e: &Path, addresses: &[u64]) -> Result<HashMap<u64, Frames>> {
    let mut a2l = llvm_tool("llvm-addr2line");
    a2l.args(["-a", "-f", "-i", "-C", "-e"]).arg(e).args(addresses.iter().map(|a| format!("0x{a:x}")));
    let out =
        capture(&mut a2l).ok_or_else(|| Failure::new("llvm-addr2line failed (rustup component add llvm-tools)"))?;
    let root = env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    let mut frames: HashMap<u64, Frames> = HashMap::new();
    let mut current = None;
    let mut lines = out.lines();
    while let Some(l) = lines.next() {
        if let Some(hex) = l.strip_prefix("0x") {
            current = u64::from_str_radix(hex, 16).ok();
            continue;
        }
        let location = lines.next().unwrap_or_default();
        let function = match l.rfind("::h") {
            Some(i) if l.len() - i == 19 => &l[..i],
            _ => l,
        };
        let function = [
            ("_$LT$", "<"),
            ("$LT$", "<"),
            ("$GT$", ">"),
            ("$u20$", " "),
            ("$u7b$", "{"),
            ("$u7d$", "}"),
            ("$C$", ","),
            ("..", "::"),
        ]
        .iter()
        .fold(function.to_string(), |f, (from, to)| f.replace(from, to));
        let own = !root.is_empty() && location.starts_with(&root);
        let line = location.rsplit('/').next().unwrap_or(location).split(' ').next().unwrap_or_default();
        if let Some(pc) = current {
            frames.entry(pc).or_default().push((function, line.to_string(), own));
        }
    }
    Ok(frames)
}

fn icount(update: bool, verbose: bool) -> Result {
    let families = trace_counts()?;
    if verbose {
        for f in &families {
            println!("{}: {:?}", f.name, f.counts);
        }
    }
    let median = |v: &[u64]| {
        let mut s = v.to_vec();
        s.sort_unstable();
        s.get(s.len().saturating_sub(1) / 2).copied().unwrap_or(0)
    };
    let overhead = families.iter().find(|f| f.name == "empty").map_or(0, |f| median(&f.counts));
    let mut fresh = Table::new();
    let mut bounds = Vec::new();
    for f in &families {
        if f.name == "empty" {
            continue;
        }
        let net: Vec<u64> = f.counts.iter().map(|x| x.saturating_sub(overhead)).collect();
        let worst = net.iter().copied().max().unwrap_or(0);
        let row = BTreeMap::from([
            ("n".to_string(), net.len() as u64),
            ("median".to_string(), median(&net)),
            ("worst".to_string(), worst),
        ]);
        if let Some(caps) = f.sweep_caps {
            bounds.push(sweep_bound(&f.name, &net, caps)?);
        }
        fresh.insert(f.name.clone(), row);
    }
    with_plain_steps(&mut bounds);
    for b in &bounds {
        if let Some(row) = fresh.get_mut(&b.name) {
            row.insert("first".to_string(), b.first);
            row.insert("step".to_string(), b.step);
            row.insert("bound".to_string(), b.at(DEFAULT_CAP));
        }
    }
    println!("marker overhead (empty family, subtracted): {overhead} instructions");
    print_bounds(&bounds, &fresh)?;
    let path = Path::new(FW).join("icount.toml");
    if update {
        print_icount(&fresh, None);
        return write_table(&path, ICOUNT_HEADER, &fresh);
    }
    let stored = read_table(&path)?;
    let bad = print_icount(&fresh, Some(&stored));
    if bad.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(format!(
            "instruction counts regressed by more than {:.0} % (or no stored entry):\n  {}\n\
             (if intended: cargo xtask icount --update)",
            ICOUNT_SLACK * 100.0,
            bad.join("\n  ")
        )))
    }
}

/// The iteration cap of `Budget::default()`, at which the bounds are stated.
const DEFAULT_CAP: u64 = 64;

/// A worst-case instruction bound from an iteration-cap sweep: a query that
/// may run `cap` iterations costs at most `first + (cap − 1) · step`, with
/// `first` the most any pose cost at cap 1 (set-up, one iteration, exit)
/// and `step` the most one more iteration added at any pose and cap
/// (count at cap k less count at cap k − 1: the iteration, and the
/// difference of the two exits).
struct SweepBound {
    /// The sweep (`<family>_sweep`).
    name: String,
    first: u64,
    step: u64,
    /// The sweep's own costliest iteration, before [`with_plain_steps`]
    /// raised `step` to its plain twin's (printed beside it).
    own_step: u64,
    /// Iterations the costliest pose ran (its count stops changing after).
    deepest: usize,
}

impl SweepBound {
    fn at(&self, cap: u64) -> u64 {
        self.first + cap.saturating_sub(1) * self.step
    }
    /// The families this sweep bounds: the name without `_sweep`, as a prefix.
    fn bounds(&self, family: &str) -> bool {
        self.name.strip_suffix("_sweep").is_some_and(|stem| family != self.name && family.starts_with(stem))
    }
}

/// The bound of one sweep's counts (`caps` per pose, pose-major).
fn sweep_bound(name: &str, net: &[u64], caps: usize) -> Result<SweepBound> {
    if caps == 0 || !net.len().is_multiple_of(caps) {
        return Err(Failure::new(format!("{name}: {} counts are not whole sweeps of {caps} caps", net.len())));
    }
    let (mut first, mut step, mut deepest) = (0, 0, 0);
    for pose in net.chunks(caps) {
        first = first.max(pose[0]);
        for (k, w) in pose.windows(2).enumerate() {
            step = step.max(w[1].saturating_sub(w[0]));
            if w[1] != w[0] {
                deepest = deepest.max(k + 2);
            }
        }
    }
    Ok(SweepBound { name: name.to_string(), first, step, own_step: step, deepest })
}

/// Raises each sweep's `step` to that of its `plain_` sweep where there is
/// one: the same poses with GJK iterating on every one of them (the bodies
/// seen through their support functions alone), where the query's own sweep
/// sees GJK's iterations only on the poses its closed forms leave open.
/// Through the support functions alone both bodies' support points are
/// transformed, where the query's GJK works in the first body's frame, so
/// a plain iteration is expected to cost at least as much as the query's
/// (measured so on the box queries, not proved).
fn with_plain_steps(bounds: &mut [SweepBound]) {
    let plain: Vec<(String, u64)> =
        bounds.iter().filter_map(|b| b.name.strip_prefix("plain_").map(|name| (name.to_string(), b.step))).collect();
    for b in bounds.iter_mut() {
        if let Some((_, step)) = plain.iter().find(|(name, _)| *name == b.name) {
            b.step = b.step.max(*step);
        }
    }
}

/// Prints each sweep's bound at the default cap and checks it against the
/// worst count of every family it bounds (a count above it would disprove it).
fn print_bounds(bounds: &[SweepBound], fresh: &Table) -> Result {
    if bounds.is_empty() {
        return Ok(());
    }
    println!("worst-case bounds at the default cap of {DEFAULT_CAP} iterations (first + (cap - 1) * step):");
    let mut broken = Vec::new();
    for b in bounds {
        let bound = b.at(DEFAULT_CAP);
        println!(
            "  {:<34} first {:>6}  step {:>6} (own {:>6})  deepest pose {:>2} iterations  bound {:>8}",
            b.name, b.first, b.step, b.own_step, b.deepest, bound
        );
        for (family, kv) in fresh.iter().filter(|(f, _)| b.bounds(f)) {
            let worst = kv.get("worst").copied().unwrap_or(0);
            println!("    {family:<32} worst {worst:>8} ({:.1} % of the bound)", 100.0 * worst as f64 / bound as f64);
            if worst > bound {
                broken.push(format!("{family}: worst {worst} above the bound {bound} of {}", b.name));
            }
        }
    }
    if broken.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(format!("a measured count exceeds its derived bound:\n  {}", broken.join("\n  "))))
    }
}

/// Prints the table (with the stored values and the change when given);
/// returns the regressions.
fn print_icount(fresh: &Table, stored: Option<&Table>) -> Vec<String> {
    let mut bad = Vec::new();
    println!(
        "{:<36} {:>4} {:>9} {:>9} {:>14} {:>14}",
        "family", "n", "median", "worst", "stored median", "stored worst"
    );
    for (name, kv) in fresh {
        let get = |t: &BTreeMap<String, u64>, k: &str| t.get(k).copied().unwrap_or(0);
        let (n, med, worst) = (get(kv, "n"), get(kv, "median"), get(kv, "worst"));
        let Some(stored) = stored else {
            println!("{name:<36} {n:>4} {med:>9} {worst:>9}");
            continue;
        };
        let Some(old) = stored.get(name) else {
            println!("{name:<36} {n:>4} {med:>9} {worst:>9} {:>14} {:>14}", "-", "-");
            bad.push(format!("{name}: not in the stored table"));
            continue;
        };
        let change = |new: u64, was: u64| {
            let pct = if was > 0 { (new as f64 / was as f64 - 1.0) * 100.0 } else { 0.0 };
            format!("{was} ({pct:+.1}%)")
        };
        let (om, ow) = (get(old, "median"), get(old, "worst"));
        println!("{name:<36} {n:>4} {med:>9} {worst:>9} {:>14} {:>14}", change(med, om), change(worst, ow));
        let limit = |was: u64| (was as f64 * (1.0 + ICOUNT_SLACK)).ceil() as u64;
        if med > limit(om) || worst > limit(ow) {
            bad.push(format!("{name}: median {om} -> {med}, worst {ow} -> {worst}"));
        }
        let (bound, ob) = (get(kv, "bound"), get(old, "bound"));
        if bound > limit(ob) {
            bad.push(format!("{name}: bound {ob} -> {bound}"));
        }
    }
    bad
}

// ---------------------------------------------------------------------------
// Per-function stack frames

/// `cargo xtask fw frames`: the stack binary built with nightly's
/// `-Z emit-stack-sizes` (its own target dir), frames from
/// `llvm-readobj --stack-sizes`, largest first. The kernel's functions are
/// marked `*`; inlined callees count in their caller's frame.
fn frames() -> Result {
    let mut c = super::cargo_nightly();
    c.current_dir(FW).args([
        "rustc",
        "--release",
        "--bin",
        "stack",
        "--target",
        THUMBV7EM,
        "--target-dir",
        "target/stack-sizes",
        "--",
        "-Z",
        "emit-stack-sizes",
    ]);
    run(&mut c)?;
    let e = Path::new(FW).join("target/stack-sizes").join(THUMBV7EM).join("release/stack");
    let out = capture(llvm_tool("llvm-readobj").args(["--stack-sizes", "--demangle"]).arg(&e))
        .ok_or_else(|| Failure::new("llvm-readobj failed (rustup component add llvm-tools)"))?;
    let mut frames: Vec<(u64, String)> = Vec::new();
    let mut name = None;
    for l in out.lines() {
        let l = l.trim();
        if let Some(n) = l.strip_prefix("Functions: [").and_then(|n| n.strip_suffix(']')) {
            name = Some(n.to_string());
        } else if let (Some(size), Some(n)) = (l.strip_prefix("Size: 0x"), name.take()) {
            frames.push((u64::from_str_radix(size, 16).unwrap_or(0), n));
        }
    }
    if frames.is_empty() {
        return Err(Failure::new("no .stack_sizes entries in the ELF"));
    }
    frames.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    println!("{:>7}  function (* = narrowphase)", "bytes");
    for (size, n) in &frames {
        let kernel = n.trim_start_matches('<').starts_with("narrowphase::");
        let mark = if kernel { '*' } else { ' ' };
        println!("{size:>7} {mark} {n}");
    }
    Ok(())
}
