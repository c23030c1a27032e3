//! Code shared by the fuzz targets, one module per purpose. Each target
//! includes the whole tree with
//!
//! ```ignore
//! #[path = "shared/mod.rs"]
//! mod shared;
//! ```
//!
//! (the files here are not targets themselves). Not every target uses every
//! item, hence the `allow`s.
//!
//! The input types here derive `Arbitrary`: changing a type's fields or
//! variants changes how every recorded input (`fuzz/regressions/`) and every
//! local corpus decodes. Add new fields at the end of a target's `Input`:
//! the inputs recorded before then decode to the same values in the fields
//! they had (except an array that was last: `arbitrary` decodes its last
//! element again from the bytes after it). The seeds (`seeds.rs`) follow
//! the types through their `Encode` impls; a mismatch fails when the seeds
//! are written.
#![allow(dead_code, unused_macros, unused_imports)]

/// Numbers of the inputs: fixed point or raw `f64` bits.
pub mod num;

/// The support-map body model (`gjk_*`, `epa`, `mpr`, `superquadric`,
/// `ellipsoid_pair`) and the tolerance band of its cross-family oracles.
pub mod bodies;

/// Shape checks of the support-family answers shared by several targets.
pub mod checks;

/// The placement-invariance oracle: the same pair moved far from the origin.
pub mod placement;

/// The SDF body model of `gradient_contacts` and `particle_projection`, and
/// the pieces `interval_octree` and `grid_sampling` build theirs from.
pub mod sdf_bodies;

/// Ground truth of the `scene` target: signed distances of round-cored
/// bodies (spheres, capsules, boxes, rounded boxes, cylinders) from closed
/// forms, or certified brackets, in f64.
pub mod closed_form;

/// Structured seed inputs, written as the bytes the targets decode.
pub mod seeds;
