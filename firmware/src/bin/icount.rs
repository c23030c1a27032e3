//! Instruction counts per query family (`narrowphase_firmware::workload`).
//!
//! Each query runs between calls of the `bench_start` and `bench_stop`
//! markers. Run under QEMU with `-singlestep -d exec,nochain` every executed
//! instruction is one trace line; `cargo xtask icount` (and the `fw-icount`
//! test step) counts the lines between the two markers' addresses (from `nm`),
//! subtracts the `empty` family's overhead, and compares median and worst per
//! family with `firmware/icount.toml`.
//!
//! The firmware prints `FAMILY name count` before each family, so the counter
//! can attribute the marker pairs, and `ANSWERS …` after it; it exits
//! non-zero if any query was undetermined.
#![no_std]
#![no_main]

#[path = "../fw.rs"]
mod fw;

use core::ptr::{addr_of_mut, write_volatile};

use cortex_m_rt::entry;
use narrowphase::support::epa::DefaultEpa;
use narrowphase_firmware::workload::{run, Probe, FAMILIES};

/// Written (volatile) by the markers so that they are distinct functions
/// with a body: empty or identical bodies get merged into one address.
static mut MARK: u32 = 0;

/// Start marker: its first instruction starts a count.
#[no_mangle]
#[inline(never)]
pub extern "C" fn bench_start() {
    // SAFETY: a plain word only the markers write; single core, no interrupts.
    unsafe { write_volatile(addr_of_mut!(MARK), 0x5157_4254) };
}

/// Stop marker: its first instruction ends a count.
#[no_mangle]
#[inline(never)]
pub extern "C" fn bench_stop() {
    // SAFETY: as above.
    unsafe { write_volatile(addr_of_mut!(MARK), 0x5354_4f50) };
}

struct Markers;

impl Probe for Markers {
    #[inline(always)]
    fn start(&mut self) {
        bench_start();
    }
    #[inline(always)]
    fn stop(&mut self) {
        bench_stop();
    }
}

static mut EPA: DefaultEpa<f32> = DefaultEpa::new();

#[entry]
fn main() -> ! {
    // SAFETY: the only reference to EPA, taken once, before anything else runs.
    let epa = unsafe { &mut *core::ptr::addr_of_mut!(EPA) };
    let Ok(poly) = narrowphase_firmware::poly200() else {
        defmt::error!("poly200 does not validate");
        fw::exit(false)
    };
    let mut ok = true;
    for f in FAMILIES {
        if let Some(caps) = f.sweep_caps() {
            defmt::println!("SWEEP {=str} {=u32}", f.name(), caps as u32);
        }
        defmt::println!("FAMILY {=str} {=u32}", f.name(), f.count() as u32);
        let a = run(f, &mut Markers, &poly, epa);
        defmt::println!(
            "ANSWERS {=str} separated={=u32} contact={=u32} undetermined={=u32} capped={=u32}",
            f.name(),
            a.separated,
            a.contact,
            a.undetermined,
            a.capped
        );
        ok &= a.undetermined == 0;
    }
    defmt::println!("ICOUNT done");
    fw::exit(ok)
}
