//! Target-only (included with `#[path]` by the demo): instructions of a
//! stretch of code, read from SysTick while QEMU runs with
//! `-icount shift=7`.
//!
//! QEMU's DWT cycle counter reads 0, and without `-icount` its timers follow
//! the host's clock. With `-icount shift=N` the emulated time advances by
//! exactly 2^N ns per executed instruction, so SysTick (on the core clock,
//! 25 MHz on mps2-an386) counts 2^N · 0.025 times per instruction: 3.2 for
//! N = 7, enough to resolve single instructions; the 24-bit counter then
//! wraps after 5.2 M instructions, far above a tick. The rate is not
//! assumed but measured at start-up on a loop of a known number of
//! instructions; a run without `-icount` fails that calibration (its counts
//! are not proportional to the work) and the meter reports nothing.
//!
//! Instructions, not cycles: QEMU does not model the pipeline, flash wait
//! states or the 14-cycle `vsqrt.f32`.

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;

/// SysTick's reload: the full 24 bits.
const RELOAD: u32 = 0x00FF_FFFF;

/// Exactly `2 n` instructions plus a constant: `n` times `subs` and `bne`.
#[inline(never)]
fn spin(n: u32) {
    // SAFETY: register-only loop, no memory, no stack.
    unsafe {
        core::arch::asm!("1:", "subs {n}, {n}, #1", "bne 1b", n = inout(reg) n => _, options(nomem, nostack));
    }
}

/// SysTick counts elapsed over `f` (it counts down, modulo 2^24).
#[inline(always)]
fn counts<T>(f: impl FnOnce() -> T) -> (T, u32) {
    let start = SYST::get_current();
    let out = f();
    let end = SYST::get_current();
    (out, start.wrapping_sub(end) & RELOAD)
}

/// Counts instructions, once calibrated.
pub struct Meter {
    /// SysTick counts per instruction.
    rate: f32,
    /// Counts of an empty measurement (the reads themselves).
    overhead: u32,
}

impl Meter {
    /// Starts SysTick on the core clock and measures its rate on loops of
    /// 2 000, 22 000 and 42 000 instructions. `None` when the counts are
    /// not proportional to the instructions (QEMU without `-icount`).
    pub fn calibrate(mut syst: SYST) -> Option<Self> {
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(RELOAD);
        syst.clear_current();
        syst.enable_counter();
        let overhead = counts(|| core::hint::black_box(0)).1;
        let [a, b, c] = [1_000, 11_000, 21_000].map(|n| counts(|| spin(core::hint::black_box(n))).1);
        // 20 000 loop iterations = 40 000 instructions between a and c.
        let rate = c.wrapping_sub(a) as f32 / 40_000.0;
        // The middle loop must sit on the line through the other two
        // within one instruction's counts (QEMU reads the timer to a few
        // counts: 1.5 off the line has been seen); host-clock timing misses
        // that by thousands.
        let predicted = a as f32 + rate * 20_000.0;
        let linear = rate > 1.0 && (b as f32 - predicted).abs() <= rate;
        linear.then_some(Self { rate, overhead })
    }

    /// `f`'s result and the instructions it executed.
    pub fn measure<T>(&self, f: impl FnOnce() -> T) -> (T, u32) {
        let (out, n) = counts(f);
        let instructions = n.saturating_sub(self.overhead) as f32 / self.rate;
        (out, (instructions + 0.5) as u32)
    }
}
