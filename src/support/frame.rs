//! The pair frame: every query of this family computes with both bodies
//! seen from body A's centre ([`Relative`]), so that its answer depends on
//! the relative placement only, and moves the points of its answer back to
//! the world frame.
//!
//! Why: the rounding of a world coordinate is `ε·|x|`. A pair 5 mm apart at
//! 10 km from the world origin keeps its 5 mm in the pair frame (f32 rounds
//! at 0.5 mm there, at 0.06 µm in the pair frame); computed in the world
//! frame, the difference `a − b` of two support points carried an error of
//! a millimetre and the tolerance `tolerance · scale` grew with the world
//! coordinates, not with the bodies. In the pair frame both follow the
//! size of the bodies and their distance.
//!
//! Distances, depths, bounds and normals are those of the pair frame. The
//! witness points are world points: each coordinate carries the rounding of
//! its own magnitude, half an ulp (0.5 mm at 10 km in f32).

use crate::math::{Real, Vec3};
use crate::query::{Proximity, Witness};
use crate::shape::{Relative, SupportMap};

/// Runs `query` on `a` and `b` seen from A's centre and returns its answer
/// with its points in the world frame. MPR's answers go through it (their
/// `ToWorld` is beside them, in `mpr`); GJK and
/// `contact` move their points where they build each answer instead (their
/// answers are larger, and a copy of a finished one costs a Cortex-M4F
/// tick a few hundred instructions).
#[inline]
pub(crate) fn in_pair_frame<R, A, B, T>(
    a: &A,
    b: &B,
    query: impl FnOnce(&Relative<'_, A, R>, &Relative<'_, B, R>) -> T,
) -> T
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
    T: ToWorld<R>,
{
    let origin = a.center();
    let mut answer = query(&Relative::new(a, origin), &Relative::new(b, origin));
    answer.to_world(&origin.coords);
    answer
}

/// An answer whose points move with the frame.
pub(crate) trait ToWorld<R: Real> {
    /// Moves every point of the answer by `offset`.
    fn to_world(&mut self, offset: &Vec3<R>);
}

impl<R: Real> ToWorld<R> for Witness<R> {
    #[inline]
    fn to_world(&mut self, offset: &Vec3<R>) {
        self.point_a += offset;
        self.point_b += offset;
    }
}

impl<R: Real> ToWorld<R> for Proximity<R> {
    #[inline]
    fn to_world(&mut self, offset: &Vec3<R>) {
        match self {
            Proximity::Separated(s) => s.witness.to_world(offset),
            Proximity::Penetrating(p) => p.witness.to_world(offset),
            Proximity::Undetermined { .. } => {}
        }
    }
}
