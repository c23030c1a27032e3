//! Stack high-water mark per query family (`narrowphase_firmware::workload`).
//!
//! Before each query the RAM between the end of the static data (`__sheap`)
//! and the stack pointer is painted with a pattern; after it the lowest
//! overwritten word gives the depth the query reached below the caller's
//! stack pointer. Prints `STACK name bytes` per family (the maximum over its
//! corpus); `cargo xtask test --only fw-stack` compares them with the bounds
//! in `firmware/stack.toml`.
#![no_std]
#![no_main]

#[path = "../fw.rs"]
mod fw;

use core::ptr::{addr_of, read_volatile, write_volatile};

use cortex_m_rt::entry;
use narrowphase::support::epa::DefaultEpa;
use narrowphase_firmware::workload::{run, Probe, FAMILIES};

const PAINT: u32 = 0xDEAD_C0DE;

extern "C" {
    /// cortex-m-rt: the first free RAM word after .data/.bss/.uninit.
    static __sheap: u32;
}

struct StackProbe {
    sp: u32,
    max: u32,
    overflow: bool,
}

impl StackProbe {
    fn bottom() -> u32 {
        // Only the address of the linker symbol is taken.
        addr_of!(__sheap) as u32
    }
}

impl Probe for StackProbe {
    /// Inlined into the caller: no frame of its own below the caller's
    /// stack pointer, which is what the query starts from.
    #[inline(always)]
    fn start(&mut self) {
        let sp = cortex_m::register::msp::read();
        let mut p = Self::bottom();
        while p < sp {
            // SAFETY: free RAM between the static data and the stack pointer.
            unsafe { write_volatile(p as *mut u32, PAINT) };
            p += 4;
        }
        self.sp = sp;
    }
    #[inline(always)]
    fn stop(&mut self) {
        let bottom = Self::bottom();
        let mut p = bottom;
        // SAFETY: as above; the query has returned, its frames are free.
        while p < self.sp && unsafe { read_volatile(p as *const u32) } == PAINT {
            p += 4;
        }
        if p == bottom {
            self.overflow = true;
        }
        self.max = self.max.max(self.sp - p);
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
    defmt::println!(
        "PAINTABLE {=u32} bytes between the static data and the stack pointer",
        cortex_m::register::msp::read() - StackProbe::bottom()
    );
    for f in FAMILIES {
        let mut probe = StackProbe { sp: 0, max: 0, overflow: false };
        let a = run(f, &mut probe, &poly, epa);
        defmt::println!("STACK {=str} {=u32} n={=u32}", f.name(), probe.max, f.count() as u32);
        ok &= a.undetermined == 0 && !probe.overflow;
    }
    fw::exit(ok)
}
