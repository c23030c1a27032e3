//! `fuzz/regressions/polytope_sdf/`: the polytope SDF's face climb
//! (Algorithm 4, `Polytope::sdf_face_climb`) on coplanar faces. Truth: the
//! scan over every face (`sdf_face_scan`) and the sign of a point well
//! outside.

use nalgebra::Vector3;
use narrowphase::error::PolytopeError;
use narrowphase::prelude::*;

use super::Bipyramid;

/// Coplanar faces — a flat face triangulated, as any mesh exporter writes
/// one — tie exactly in the ray ratio `sₐ` that Algorithm 4 ascends, so a
/// strict ascent can stop on a plateau: from a base triangle whose one top
/// neighbour is lower it stops, although another top face (next to another
/// base triangle) is the ray's exit face. The inputs
/// `polytope_sdf/f64-flat-top-bipyramid19-climb-stops-on-tied-faces` and
/// `ellipsoid_method/f64-flat-bottom-bipyramid21-cone-penetrating-4.1-apart`
/// are bipyramids whose flat apex is a corner only within rounding (4.7e-62
/// against coordinates of 51), which `Polytope::new` rejects
/// (`NotACorner`: such a vertex cannot be told from a reflex one, and reflex
/// vertices trap hill climbing, see `polytope::`). The tie is kept with the
/// same ring and apex over an exactly flat base triangulated as a fan from a
/// ring vertex: 19 coplanar base triangles, no vertex inside. Truth: from
/// every start face the climb ends on the scan's face, and the value at a
/// point ~9 outside the pyramid is positive.
#[test]
fn polytope_sdf_sign_with_a_flat_triangulated_base() {
    let (n, r, top) = (21, 51.199_218_75, 66.363_281_25);
    let flat_apex = Bipyramid::new(n, r, top, 4.667_261_458_395_856e-62);
    assert_eq!(Polytope::new(flat_apex.data()), Err(ShapeError::Polytope(PolytopeError::NotACorner)));
    let fan = Bipyramid::fan_pyramid(n, r, top);
    let p = fan.polytope();
    let x = Vector3::new(-2.598_322_064_052_48, -59.851_867_574_696_28, 3.789_609_520_735_27);
    // Exact distance to the pyramid: well outside (the ring's inradius is
    // 50.9, the point is 59.9 from the axis, 3.8 above the base).
    let mut bad = vec![];
    for start in 0..p.data().faces.len() {
        let s = p.eval_hinted(&x, &mut SdfWarmStart(start as u32));
        let climbed = p.sdf_face_climb(&x, start);
        let scanned = p.sdf_face_scan(&x);
        if s.value.is_nan() || s.value <= 0.0 || climbed != scanned {
            bad.push((start, climbed, scanned, s.value));
        }
    }
    assert!(bad.is_empty(), "(start, climbed, scanned, value) with the wrong face or sign: {bad:?}");
}
