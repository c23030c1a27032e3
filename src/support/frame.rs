//! The pair frame: every query of this family computes with both bodies
//! seen from body A's centre ([`Relative`]), so that its answer depends on
//! the relative placement only, and moves the points of its answer back to
//! the world frame at the end.
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

use super::gjk::GjkOutcome;
use super::mpr::MprOutcome;
use crate::math::{Pt3, Real, Vec3};
use crate::query::{Penetration, Proximity, Separation, Witness};
use crate::shape::{Relative, SupportMap};

/// Runs `query` on `a` and `b` seen from A's centre and returns its answer
/// with its points in the world frame.
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
    query(&Relative::new(a, origin), &Relative::new(b, origin)).to_world(&origin.coords)
}

/// An answer whose points move with the frame.
pub(crate) trait ToWorld<R: Real> {
    /// The same answer with every point moved by `offset`.
    fn to_world(self, offset: &Vec3<R>) -> Self;
}

impl<R: Real> ToWorld<R> for Witness<R> {
    #[inline]
    fn to_world(self, offset: &Vec3<R>) -> Self {
        Witness {
            point_a: Pt3::from(self.point_a.coords + offset),
            point_b: Pt3::from(self.point_b.coords + offset),
            ..self
        }
    }
}

impl<R: Real> ToWorld<R> for Separation<R> {
    #[inline]
    fn to_world(self, offset: &Vec3<R>) -> Self {
        Separation { witness: self.witness.to_world(offset), ..self }
    }
}

impl<R: Real> ToWorld<R> for Penetration<R> {
    #[inline]
    fn to_world(self, offset: &Vec3<R>) -> Self {
        Penetration { witness: self.witness.to_world(offset), ..self }
    }
}

impl<R: Real> ToWorld<R> for Proximity<R> {
    #[inline]
    fn to_world(self, offset: &Vec3<R>) -> Self {
        match self {
            Proximity::Separated(s) => Proximity::Separated(s.to_world(offset)),
            Proximity::Penetrating(p) => Proximity::Penetrating(p.to_world(offset)),
            undetermined => undetermined,
        }
    }
}

impl<R: Real> ToWorld<R> for GjkOutcome<R> {
    #[inline]
    fn to_world(self, offset: &Vec3<R>) -> Self {
        match self {
            GjkOutcome::Separated(s) => GjkOutcome::Separated(s.to_world(offset)),
            GjkOutcome::Intersecting(simplex) => GjkOutcome::Intersecting(simplex.moved(offset)),
            undetermined => undetermined,
        }
    }
}

impl<R: Real> ToWorld<R> for MprOutcome<R> {
    #[inline]
    fn to_world(self, offset: &Vec3<R>) -> Self {
        match self {
            MprOutcome::Penetrating(p) => MprOutcome::Penetrating(p.to_world(offset)),
            other => other,
        }
    }
}
