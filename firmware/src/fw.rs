//! Target-only glue shared by the firmware binaries (included with
//! `#[path]`, not part of the library): the defmt logger over semihosting,
//! a panic handler that reports and exits non-zero, and the exit call.

use cortex_m as _; // critical-section-single-core: the critical section defmt needs
use cortex_m_semihosting::debug;
use defmt_semihosting as _;

/// Ends the QEMU run with `code` as its exit status.
pub fn exit(ok: bool) -> ! {
    debug::exit(if ok { debug::EXIT_SUCCESS } else { debug::EXIT_FAILURE });
    #[allow(clippy::empty_loop)]
    loop {}
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    match info.location() {
        Some(l) => defmt::error!("panic at {=str}:{=u32}", l.file(), l.line()),
        None => defmt::error!("panic"),
    }
    exit(false)
}
