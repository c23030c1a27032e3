//! `cargo xtask accuracy [POSES] [SEED]`: the collision-accuracy table of
//! Ruan et al. (ICRA 2019, Table III) on our code — γ (Eq. 20) by Monte
//! Carlo over poses for GJK on inscribed meshes of the paper's Table II
//! densities against the exact Minkowski checker, 2D and 3D, E–E and E–S,
//! printed beside the paper's numbers. The work is done by the
//! `accuracy_table` example (it needs the crate and the `std` hull builder);
//! this command builds it in release and runs it.

use super::{banner, cargo, run, Failure, Result};

/// Runs `examples/accuracy_table.rs` with the given arguments (number of
/// poses per case, default 100 000; RNG seed, default 2019).
pub fn accuracy(args: &[String]) -> Result {
    if let Some(bad) = args.iter().find(|a| a.parse::<u64>().is_err()) {
        return Err(Failure::usage(format!("accuracy takes [POSES] [SEED] (integers), not `{bad}`")));
    }
    if args.len() > 2 {
        return Err(Failure::usage("accuracy takes at most two arguments: [POSES] [SEED]"));
    }
    banner("accuracy table (Table III)");
    run(cargo().args(["run", "--release", "--features", "std", "--example", "accuracy_table", "--"]).args(args))
}
