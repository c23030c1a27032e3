//! The polytope SDF (the paper's Algorithm 4, then the plane-value ascent)
//! on a bipyramid with an arbitrary ring (3 to 64 vertices) and radii, at
//! arbitrary points (absolute, or scaled/jittered about a vertex; NaN, ±inf,
//! huge), with arbitrary hints (out-of-range ones included), in f32 or f64.
//!
//! Notation: `c` the polytope's centre (vertex mean), face `a` the plane
//! `nₐ·x = dₐ`, `δₐ = dₐ − nₐ·c > 0`, ray ratio `sₐ(x) = nₐ·(x − c)/δₐ`.
//!
//! Oracles:
//! - no panic, for every point and hint; the face indices returned by
//!   `sdf_face_climb`, `sdf_face_refine` and `sdf_face_scan` are in range;
//! - for finite points (not so huge that `|x|·size` overflows):
//!   - `eval_hinted(x, hint)` is exactly the plane value and normal of
//!     `sdf_face_refine(x, sdf_face_climb(x, hint))`, and leaves the hint at
//!     the climbed face; `eval(x)` is `eval_hinted` from hint 0;
//!   - the climbed face has the same ray ratio as `sdf_face_scan`'s (the
//!     global maximum): `|s_climb − s_scan| <= tol_s`, the rounding of the
//!     ratios times the face count (`16·ε·F·(|y| + |s|·(|d| + |c|))/δ_min`,
//!     `y = x − c`): where neighbours differ by less than the rounding (a
//!     fine ring seen from near the axis), the ascent may stop anywhere on
//!     that plateau;
//!   - lower bound: `value <= exact + tol`, `exact` the SDF by brute force
//!     in f64 (inside: max over faces of `n·x − d`; outside: the least
//!     point–triangle distance over the faces), `tol = 64·ε·(|x| + size)`;
//!   - outside, the value is not too small either: the ray from `c` leaves
//!     through face `a` at `p` and `x − p = (s−1)(p − c)`, so
//!     `exact <= (s−1)·R_c` and the value `δₐ(s−1) >= exact·δ_min/R_c`
//!     (`R_c` the largest vertex distance from `c`; the ascent only raises
//!     it): `value >= exact·δ_min/R_c − tol` — in particular the sign is
//!     right outside the band `exact·δ_min/R_c > tol`.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nalgebra::Vector3;
use narrowphase::prelude::*;
use narrowphase::sdf::{Sdf, SdfWarmStart};

#[derive(Arbitrary, Debug)]
enum PointIn {
    Abs([Num; 3]),
    /// `c + scale·(v − c) + jitter/2^k`: on, inside or outside the surface
    /// near vertex `v`.
    Vertex {
        v: u8,
        scale: Num,
        jitter: [i8; 3],
        k: u8,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    f64: bool,
    n: u8,
    r: Num,
    top: Num,
    bottom: Num,
    points: Vec<(PointIn, u32)>,
}

encode_enum!(PointIn { Abs(v), Vertex { v, scale, jitter, k } });
encode_struct!(Input { f64, n, r, top, bottom, points });

/// Rings of every size (scan and climb), regular, flat-topped and needle
/// bipyramids, points inside, on and outside near vertices and far away,
/// hints in and out of range.
fn seeds() -> Vec<Input> {
    let mut rng = Rng::new(10);
    let mut out = Vec::new();
    for i in 0..200 {
        let shape = |rng: &mut Rng| match i % 4 {
            0 => Num::of(rng.pick(&[0.5, 1.0, 2.0, 48.0])),
            1 => Num::Raw(rng.pick(&[1e-6, 2.1e-106, 1e-30])),
            2 => Num::of(rng.pick(&[64.0, 100.0])),
            _ => seed_num(rng),
        };
        let points = (0..rng.range(1, 12))
            .map(|_| {
                let p = if rng.below(3) == 0 {
                    PointIn::Abs([seed_num(&mut rng), seed_num(&mut rng), seed_num(&mut rng)])
                } else {
                    let jitter = [rng.range(-127, 127) as i8, rng.range(-127, 127) as i8, rng.range(-127, 127) as i8];
                    let scale = Num::of(rng.pick(&[0.0, 0.5, 0.99, 1.0, 1.01, 2.0, 10.0]));
                    PointIn::Vertex { v: rng.next() as u8, scale, jitter, k: rng.range(0, 40) as u8 }
                };
                (p, rng.pick(&[0, 1, 5, 63, 127, u32::MAX]))
            })
            .collect();
        out.push(Input { f64: i % 2 == 0, n: i as u8, r: shape(&mut rng), top: shape(&mut rng), bottom: shape(&mut rng), points });
    }
    out
}

#[path = "shared/mod.rs"]
mod shared;
use shared::bodies::{PolyStore, MAX_RING};
use shared::bodies::seed_num;
use shared::num::Num;
use shared::seeds::{encode_enum, encode_struct, Rng};

/// Closest point to `p` on the triangle `abc` (Ericson, Real-Time Collision
/// Detection §5.1.5), f64.
fn closest_on_triangle(p: &Vector3<f64>, a: &Vector3<f64>, b: &Vector3<f64>, c: &Vector3<f64>) -> Vector3<f64> {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return *a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return *b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return *c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    a + ab * (vb * denom) + ac * (vc * denom)
}

fn run<R: Real>(input: &Input) {
    let (r, top, bottom) = (input.r.get(), input.top.get(), input.bottom.get());
    if !(r > 0.0 && top > 0.0 && bottom > 0.0 && (r + top + bottom).is_finite()) {
        return;
    }
    let mut store = PolyStore::<R>::new();
    store.bipyramid(3 + input.n as usize % (MAX_RING - 2), r, top, bottom);
    let Some(p) = store.polytope() else { return };
    let data = p.data();
    let faces = data.faces;
    let nf = faces.len();
    let eps = R::EPSILON.to_f64();
    let c = p.center().coords;
    let c64 = c.map(|v| v.to_f64());
    let verts: Vec<Vector3<f64>> = data.vertices.iter().map(|v| v.coords.map(|x| x.to_f64())).collect();
    let planes: Vec<(Vector3<f64>, f64)> =
        faces.iter().map(|f| (f.normal.map(|x| x.to_f64()), f.offset.to_f64())).collect();
    let size = verts.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let r_c = verts.iter().map(|v| (v - c64).norm()).fold(0.0, f64::max);
    let deltas: Vec<f64> = planes.iter().map(|(n, d)| d - n.dot(&c64)).collect();
    let delta_min = deltas.iter().copied().fold(f64::INFINITY, f64::min);
    if !(delta_min > 0.0) {
        // The centre is not strictly inside every rounded plane: Polytope::new
        // accepted it, but the ray ratios are then meaningless.
        panic!("centre not strictly inside the face planes: δ_min = {delta_min}");
    }

    for (pt, hint0) in input.points.iter().take(16) {
        let x: Vector3<R> = match pt {
            PointIn::Abs(v) => Vector3::new(R::lit(v[0].get()), R::lit(v[1].get()), R::lit(v[2].get())),
            PointIn::Vertex { v, scale, jitter, k } => {
                let vert = verts[*v as usize % verts.len()];
                let j =
                    Vector3::new(jitter[0] as f64, jitter[1] as f64, jitter[2] as f64) / 2f64.powi((*k % 40) as i32);
                let x = c64 + (vert - c64) * scale.get() + j;
                x.map(R::lit)
            }
        };
        // Never panics, indices in range.
        let mut hint = SdfWarmStart(*hint0);
        let s = p.eval_hinted(&x, &mut hint);
        let climbed = p.sdf_face_climb(&x, *hint0 as usize);
        let refined = p.sdf_face_refine(&x, climbed);
        let scanned = p.sdf_face_scan(&x);
        let _ = p.sdf_face_refine(&x, *hint0 as usize);
        let plain = p.eval(&x);
        assert!(climbed < nf && refined < nf && scanned < nf, "face index out of range");
        assert!((hint.0 as usize) < nf, "hint left out of range: {}", hint.0);

        let x64 = x.map(|v| v.to_f64());
        let xn = x64.norm();
        let limit = if eps > 1e-10 { 1e30 } else { 1e280 };
        if !(xn.is_finite() && xn * (1.0 + size) < limit) {
            continue;
        }
        // eval_hinted = refine(climb(hint)).
        let value = |f: usize| faces[f].normal.dot(&x) - faces[f].offset;
        let v = s.value;
        assert!(
            v == value(refined) || (v.to_f64().is_nan() && value(refined).to_f64().is_nan()),
            "eval_hinted {v:?} is not the value {:?} of refine(climb) = face {refined} (climbed {climbed})",
            value(refined)
        );
        assert_eq!(s.gradient, faces[refined].normal, "gradient is not the refined face's normal");
        assert_eq!(hint.0 as usize, climbed, "the hint is not the climbed face");
        let s0 = p.eval_hinted(&x, &mut SdfWarmStart(0));
        assert!(
            plain.value == s0.value || plain.value.to_f64().is_nan(),
            "eval {:?} differs from eval_hinted from 0 {:?}",
            plain.value,
            s0.value
        );

        // The climbed face has the scan's ray ratio.
        let y = x64 - c64;
        let ratio = |f: usize| planes[f].0.dot(&y) / deltas[f];
        let (sc, ss) = (ratio(climbed), ratio(scanned));
        let dc = planes.iter().map(|(_, d)| d.abs()).fold(0.0, f64::max) + c64.norm();
        // Rounding of one comparison, times the number of faces: on a
        // plateau (a fine ring seen from near the axis) neighbours differ by
        // less than the rounding, and the ascent may stop anywhere on it.
        let tol_s = 16.0 * eps * nf as f64 * (y.norm() + ss.abs() * dc) / delta_min;
        assert!(
            (sc - ss).abs() <= tol_s,
            "climbed face {climbed} (s = {sc}) is not the scan's face {scanned} (s = {ss}), tol {tol_s}, x = {x64:?}, start {hint0}; ring {}, r {r}, top {top}, bottom {bottom}, f64 {}", nf / 2, input.f64
        );

        // Lower bound of the exact SDF, and not too low outside.
        let planes_max = planes.iter().map(|(n, d)| n.dot(&x64) - d).fold(f64::NEG_INFINITY, f64::max);
        let exact = if planes_max <= 0.0 {
            planes_max
        } else {
            let fv = data.face_vertices;
            (0..nf)
                .map(|f| {
                    let (a, b, cc) =
                        (verts[fv[3 * f] as usize], verts[fv[3 * f + 1] as usize], verts[fv[3 * f + 2] as usize]);
                    (x64 - closest_on_triangle(&x64, &a, &b, &cc)).norm()
                })
                .fold(f64::INFINITY, f64::min)
        };
        let tol = 64.0 * eps * (xn + size);
        let v64 = v.to_f64();
        assert!(v64 <= exact + tol, "value {v64} above the exact SDF {exact} (tol {tol}) at {x64:?}");
        if exact > 0.0 {
            let floor = exact * delta_min / r_c;
            assert!(
                v64 >= floor - tol,
                "value {v64} below exact·δ_min/R_c = {floor} (exact {exact}, tol {tol}) at {x64:?}: climbed {climbed} (s {sc}), refined {refined}, scanned {scanned} (s {ss})"
            );
        }
    }
}

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    if input.f64 {
        run::<f64>(&input)
    } else {
        run::<f32>(&input)
    }
});
