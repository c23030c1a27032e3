//! A robot control loop on the emulated Cortex-M4F (QEMU mps2-an386): the
//! robot cell of `narrowphase_firmware::cell` through `narrowphase::scene`,
//! 1000 ticks (one second at 1 kHz).
//!
//! Each tick: forward kinematics of the arm's trajectory and the person's
//! walk (f32), `Scene::set_pose` for the 9 bodies and `Scene::tick`; then
//! every one of the 27 pairs' answers is checked against its closed form
//! computed here in f64 (`cell::check`, `truth`). A line is printed every
//! 50 ticks and whenever the set of pairs within their margins changes:
//! the closest pair (the smallest certified lower bound, with the closed
//! form beside it), the pairs within their margins, penetrations,
//! undetermined pairs, and the instructions of the tick (poses set + tick)
//! with their time at 168 MHz if each took one cycle — an estimate.
//!
//! Instructions are counted with SysTick under `-icount shift=7` (see
//! `meter.rs`); `cargo xtask demo` passes that option. The exit status is 0
//! only if every check passed, no pair was undetermined, and the answers'
//! digest equals the host's (`cell::DIGEST`: the target computed every
//! answer bit for bit as the host test did).
//!
//! Run: `cargo xtask demo`, or in `firmware/`
//! `cargo run --release --bin demo -- -icount shift=7`.
#![no_std]
#![no_main]

#[path = "../fw.rs"]
mod fw;
#[path = "../meter.rs"]
mod meter;

use cortex_m_rt::entry;
use narrowphase::error::SceneError;
use narrowphase::prelude::Pose;
use narrowphase::scene::TickSummary;
use narrowphase_firmware::cell::{self, motion, CellDemo, Failure, TickReport, BODY_COUNT, TICKS};

/// A report line every this many ticks (and on every change).
const EVERY: usize = 50;
/// The core clock the time estimate assumes (an STM32F4-class part).
const MHZ: u32 = 168;

#[entry]
fn main() -> ! {
    let ok = run();
    fw::exit(ok)
}

/// The measured work of one control tick, out of line so that the meter
/// brackets exactly one call.
#[inline(never)]
fn control_tick(demo: &mut CellDemo, poses: &[Pose<f32>; BODY_COUNT]) -> Result<TickSummary<f32>, SceneError> {
    demo.tick(poses)
}

/// `x` metres (not negative) as micrometres with two decimals: (whole, hundredths).
fn um(x: f64) -> (u32, u32) {
    let hundredths = libm::round(x * 1e8) as u32;
    (hundredths / 100, hundredths % 100)
}

/// `x` metres as millimetres with two decimals: (sign, whole, hundredths).
fn mm(x: f32) -> (&'static str, u32, u32) {
    let hundredths = libm::roundf(libm::fabsf(x) * 1e5) as u32;
    (if x < 0.0 { "-" } else { "" }, hundredths / 100, hundredths % 100)
}

fn print(demo: &CellDemo, r: &TickReport, instructions: Option<u32>) {
    let within = demo.within_names(r);
    let s = &r.summary;
    let Some((a, b, lower, measured, exact)) = r.closest else {
        defmt::println!("tick {=usize} | no pair decided | undetermined {=u16}", r.tick, s.undetermined);
        return;
    };
    // A measured pair shows its distance; a clear one the bound it is above.
    let (rel, value) = match measured {
        Some(m) => ("", m),
        None => (">= ", lower),
    };
    let ((vs, vw, vf), (es, ew, ef)) = (mm(value), mm(exact as f32));
    match instructions {
        Some(n) => {
            let tenths = n * 10 / MHZ;
            defmt::println!(
                "tick {=usize} | min distance {=str}{=str}{=u32}.{=u32:02} mm ({=str}/{=str}; exact {=str}{=u32}.{=u32:02}) | within margin {=u16}: {=str} | penetrating {=u16} | undetermined {=u16} | {=u32} instr ~{=u32}.{=u32} us",
                r.tick, rel, vs, vw, vf, a, b, es, ew, ef, s.within_margin, within.as_str(), s.penetrating, s.undetermined,
                n, tenths / 10, tenths % 10
            );
        }
        None => defmt::println!(
            "tick {=usize} | min distance {=str}{=str}{=u32}.{=u32:02} mm ({=str}/{=str}; exact {=str}{=u32}.{=u32:02}) | within margin {=u16}: {=str} | penetrating {=u16} | undetermined {=u16}",
            r.tick, rel, vs, vw, vf, a, b, es, ew, ef, s.within_margin, within.as_str(), s.penetrating, s.undetermined
        ),
    }
}

fn failure(f: &Failure) {
    let v = &f.verdict;
    defmt::error!(
        "tick {=usize} {=str}/{=str}: {=str} (kernel {=f64}, closed form {=f64}, slack {=f64} / {=f64})",
        f.tick,
        f.a,
        f.b,
        v.failure.unwrap_or(""),
        v.reported,
        v.exact,
        v.slack.certificate,
        v.slack.value
    );
}

fn run() -> bool {
    let meter = cortex_m::Peripherals::take().and_then(|p| meter::Meter::calibrate(p.SYST));
    if meter.is_none() {
        defmt::warn!("instruction counts need QEMU's -icount shift=7 (cargo xtask demo passes it): not measured");
    }
    let mut demo = match CellDemo::new() {
        Ok(d) => d,
        Err(e) => {
            defmt::error!("the cell does not build: {}", e);
            return false;
        }
    };
    defmt::println!(
        "robot cell: 6-axis arm (5 capsules, polytope gripper), table, person; {=usize} bodies, {=usize} pairs; {=usize} ticks at 1 kHz; budget {=u32} GJK/EPA iterations per tick; f32",
        BODY_COUNT,
        demo.scene().pairs().len(),
        TICKS,
        cell::BUDGET_ITERATIONS
    );
    defmt::println!(
        "scene memory: {=usize} bytes (bodies, pairs with their warm starts, one EPA workspace; a static on a real controller)",
        core::mem::size_of::<cell::CellScene>()
    );
    defmt::println!(
        "min distance: the smallest certified lower bound of the tick (its pair; the closed form); instr: instructions of the tick (9 x set_pose + Scene::tick) on QEMU; us: their time at {=u32} MHz if each took one cycle, an estimate",
        MHZ
    );
    let mut counts = [0u32; TICKS];
    let mut busiest: Option<(u32, usize, TickSummary<f32>)> = None;
    for (tick, count) in counts.iter_mut().enumerate() {
        let poses = motion::poses(tick);
        let (summary, n) = match &meter {
            Some(m) => m.measure(|| control_tick(&mut demo, &poses)),
            None => (control_tick(&mut demo, &poses), 0),
        };
        let summary = match summary {
            Ok(s) => s,
            Err(e) => {
                defmt::error!("tick {=usize}: a pose was refused: {}", tick, e);
                return false;
            }
        };
        *count = n;
        if busiest.is_none_or(|b| n > b.0) {
            busiest = Some((n, tick, summary));
        }
        let report = demo.check(tick, &summary, &mut |f| failure(f));
        if tick % EVERY == 0 || tick + 1 == TICKS || report.changed || report.failures > 0 {
            print(&demo, &report, meter.as_ref().map(|_| n));
        }
    }

    let t = *demo.tally();
    let [err, value, bound] = [t.max_error.0, t.max_value_slack, t.max_certificate_slack].map(um);
    defmt::println!(
        "{=u32} answers checked against closed forms ({=u32} measured): {=u32} failed; largest |measured - exact| {=u32}.{=u32:02} um; slacks up to {=u32}.{=u32:02} um (measured values) and {=u32}.{=u32:02} um (certified bounds); at most {=u32} of {=u32} iterations in a tick",
        t.checks,
        t.measured,
        t.failures,
        err.0,
        err.1,
        value.0,
        value.1,
        bound.0,
        bound.1,
        t.max_iterations.0,
        cell::BUDGET_ITERATIONS
    );
    if meter.is_some() {
        counts.sort_unstable();
        let (median, worst) = (counts[(TICKS - 1) / 2], counts[TICKS - 1]);
        defmt::println!(
            "instructions per tick (poses set + Scene::tick): median {=u32}, worst {=u32} (~{=u32} us at {=u32} MHz, estimate)",
            median,
            worst,
            worst / MHZ,
            MHZ
        );
        if let Some((_, tick, s)) = busiest {
            defmt::println!("the tick with the most instructions, {=usize}: {}", tick, s);
        }
    }
    let digest = demo.digest();
    let same = digest == cell::DIGEST;
    if same {
        defmt::println!("answers digest {=u64:016x}: bit for bit the host test's", digest);
    } else {
        defmt::error!("answers digest {=u64:016x}, the host test's is {=u64:016x}", digest, cell::DIGEST);
    }
    let ok = t.failures == 0 && t.undetermined_ticks == 0 && same;
    if ok {
        defmt::println!("all {=u32} checks passed", t.checks);
    } else {
        defmt::error!(
            "demo failed: {=u32} of {=u32} checks failed, {=u32} ticks with undetermined pairs, digest {=str}",
            t.failures,
            t.checks,
            t.undetermined_ticks,
            if same { "equal" } else { "different" }
        );
    }
    ok
}
