//! The kernel's core checks on the target (`narrowphase_firmware::cases`,
//! the same list the host runs in `src/host_tests.rs`): every check printed
//! as `CASE name index value-bits truth tol` and a summary; exit status 0
//! only if every check passed.
//!
//! ```text
//! cargo run --release --bin ontarget_tests                 # Cortex-M4F, mps2-an386
//! FW_MACHINE=mps2-an500 FW_CPU=cortex-m7 cargo run --release --bin ontarget_tests
//! cargo run --release --bin ontarget_tests --target thumbv6m-none-eabi   # mps2-an385
//! ```
#![no_std]
#![no_main]

#[path = "../fw.rs"]
mod fw;

use cortex_m_rt::entry;
use narrowphase_firmware::cases::run_all;

#[entry]
fn main() -> ! {
    defmt::println!("ontarget_tests: narrowphase core checks, f32");
    let tally = run_all(&mut |c| {
        defmt::println!(
            "CASE {=str} {=u16} {=u32:08x} {=f64} {=f64}",
            c.name,
            c.index,
            c.value.to_bits(),
            c.truth,
            c.tol
        );
        if !c.ok {
            defmt::error!("FAILED {}", c);
        }
    });
    defmt::println!("CASES passed={=u32} failed={=u32}", tally.passed, tally.failed);
    fw::exit(tally.failed == 0 && tally.passed > 0)
}
