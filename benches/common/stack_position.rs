//! Timing at sixteen stack positions across a 4 KiB page, for the benches
//! that time rounds of interleaved cases.
//!
//! A 16- or 32-byte store that straddles a page completes late on Intel
//! cores (a loop of such stores: 8 ns a store against 0.34 within a page),
//! and whether one of a query's stores straddles one depends on where the
//! caller's stack stands. So at some positions a cell, ours or a
//! competitor's, takes up to twice its time, and the ratios of a run timed
//! at one position depend on where its stack began (the environment's size
//! moves it). Timing round `r` at position `r mod 16` makes a median over
//! the rounds a median over positions, which such outliers do not move.

use std::hint::black_box;

/// Times `run` (seconds) with the stack moved down by `256 · (round mod
/// 16)` bytes: the rounds of a case visit sixteen stack positions across a
/// 4 KiB page. Every case of one round runs at the same position, so a
/// per-round ratio compares like with like.
#[inline(never)]
pub fn at_stack_position(round: usize, run: &mut dyn FnMut()) -> f64 {
    // One arm per size: a frame of a chosen size needs a constant (no
    // `alloca` in Rust).
    match round % 16 {
        0 => below::<0>(run),
        1 => below::<256>(run),
        2 => below::<512>(run),
        3 => below::<768>(run),
        4 => below::<1024>(run),
        5 => below::<1280>(run),
        6 => below::<1536>(run),
        7 => below::<1792>(run),
        8 => below::<2048>(run),
        9 => below::<2304>(run),
        10 => below::<2560>(run),
        11 => below::<2816>(run),
        12 => below::<3072>(run),
        13 => below::<3328>(run),
        14 => below::<3584>(run),
        _ => below::<3840>(run),
    }
}

/// Times `run` below a frame of `N` bytes ([`at_stack_position`]), left
/// uninitialised: nothing writes it, so nothing but the stack moves, and
/// the timer runs inside the frame.
#[inline(never)]
fn below<const N: usize>(run: &mut dyn FnMut()) -> f64 {
    let pad = std::mem::MaybeUninit::<[u8; N]>::uninit();
    black_box(&pad);
    let t = std::time::Instant::now();
    run();
    t.elapsed().as_secs_f64()
}
