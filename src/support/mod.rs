//! Bodies seen through their support functions (Jovanoski, *The
//! Gilbert–Johnson–Keerthi (GJK) Algorithm*, Univ. Salzburg 2008):
//! GJK for distance and intersection, EPA for penetration depth, MPR for a
//! fast intersection test with penetration along the centre direction.

mod box_pair;
mod closed_form;
pub mod contact;
pub mod epa;
mod frame;
pub mod gjk;
pub mod mpr;
mod separating_axes;
mod simplex;

pub use simplex::Simplex;
