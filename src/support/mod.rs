//! Bodies seen through their support functions (gjk-epa-support-mappings.txt):
//! GJK for distance and intersection, EPA for penetration depth, MPR for a
//! fast intersection test with penetration along the centre direction.

pub mod contact;
pub mod epa;
mod frame;
pub mod gjk;
pub mod mpr;
mod simplex;

pub use simplex::Simplex;
