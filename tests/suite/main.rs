//! The integration tests: one binary, a module per family (a test is
//! `family::name`, e.g. `cargo test --features std --test suite gjk::`).
//! Ground truth never comes from the code under test: closed forms, brute
//! force, an independent implementation (parry3d), or another family of the
//! crate checked against one of those.
//!
//! `regressions` holds the tests of the inputs kept in `fuzz/regressions/`,
//! a submodule per fuzz target.
//!
//! Two suites are binaries of their own (see `Cargo.toml`): `no_alloc`
//! installs a counting global allocator (the whole process's), and
//! `gpu_particles` needs the `gpu` feature and sets the process's
//! `XDG_RUNTIME_DIR` for the Vulkan loader.

#[path = "../common/mod.rs"]
mod common;

mod adversarial;
mod boxes;
mod closed_form;
mod closed_form_cylinder;
mod contact_margin;
mod ellipsoid_method;
mod epa;
mod gjk;
mod invariance;
mod minkowski;
mod mpr;
mod parry_crosscheck;
mod polytope;
mod polytope_gjk;
mod properties;
mod regressions;
mod scene;
mod sdf_gradient;
mod sdf_grid;
mod sdf_interval;
mod sdf_particles;
mod sdf_polytope;
mod sdf_protocol;
mod sdf_shapes;
mod sdf_vs_support;
mod superquadric;
mod warm_start;
