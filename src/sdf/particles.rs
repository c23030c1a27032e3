//! The particle method of Krayer, Görges and Müller (*Intersection Distance
//! Field Collision for GPU*): particles on a grid of the region where two
//! bodies can meet, each projected onto the surface of their intersection.
//!
//! 1. **Region**: the intersection of the bodies' bounding boxes
//!    ([`Sdf::bounding_box`]).
//! 2. **Sample resolution** ([`sample_resolution`], the paper's Algorithm 1
//!    for any dimension): about `Nⁿ` particles, split among the axes in
//!    proportion to the box's sides, at least one per axis — a thin box
//!    (two bodies touching along a face) gets its particles where it is wide.
//! 3. **Placement** ([`particle_position`]): particle `i` at the centre of
//!    cell `i` of the box split `r_k` ways along axis `k` (x fastest).
//! 4. **Iterated projection** ([`iterate_projection`], Algorithm 2, Eq. 14):
//!    `p ← p − max(φ_A, φ_B)·∇` of the larger, until `max(φ_A, φ_B) < ε` (a
//!    hit on the surface of `A ∩ B`, or inside it) or the step cap. A hit
//!    gives the point, the normal `∇φ_B` (Eq. 16, out of B) and the depth
//!    `min(φ_A, φ_B)` (Eq. 15: negative inside both).
//! 5. **Contacts** ([`particle_contacts`]): hits go to a caller-owned buffer;
//!    the paper's future work done — when it is full the `k` deepest are kept
//!    (`k` = its length), and with [`ParticleParams::thinning`] at most one
//!    contact (the deepest) per coarse grid cell is kept.
//!
//! Every per-particle step is a pure function of the particle index, the
//! region, the resolution and the two SDFs, so that a GPU kernel can run it
//! independently per particle (the `gpu` feature mirrors it in WGSL).

use super::{Aabb, Sdf};
use crate::error::ParticleError;
use crate::math::{is_nan, max, min, norm, Real};
use nalgebra::SVector;

/// Largest particle count of one pair (`2^24`: one dispatch of 65 535
/// workgroups of 256 on a GPU, and an index exact in `f32`).
pub const MAX_PARTICLES: u32 = 1 << 24;

/// The per-axis sample resolution of a box with sides `extent` for about
/// `Nⁿ` particles (the paper's Algorithm 1, any dimension `n = D`), in the
/// original axis order.
///
/// The continuous solution gives the longest side `r₁ = N / (Π aᵢ)^(1/n)`
/// and the others `rᵢ = r₁·aᵢ` (`aᵢ = bᵢ/b₁`); then from the shortest side
/// up each `r_j` is rounded (at least 1) and the product's excess over `Nⁿ`
/// is divided equally among the longer sides (`r_i /= q^(1/(j−1))`). A flat
/// side (extent 0) gets one sample; a box that is a point gets one particle.
///
/// # Errors
///
/// - [`ParticleError::ZeroResolution`] if `n` is 0 (or `D = 0`);
/// - [`ParticleError::BadRegion`] if an extent is NaN, infinite or negative;
/// - [`ParticleError::TooManyParticles`] if `n^D`, or the product of the
///   rounded resolutions, exceeds [`MAX_PARTICLES`].
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::particles::sample_resolution;
/// use nalgebra::Vector3;
/// assert_eq!(sample_resolution(&Vector3::new(1.0_f64, 1.0, 1.0), 10).unwrap(), [10, 10, 10]);
/// // A slab 4 × 2 × 0.01: no particles wasted across its thickness.
/// let r = sample_resolution(&Vector3::new(4.0_f64, 2.0, 0.01), 10).unwrap();
/// assert_eq!(r[2], 1);
/// assert!(r[0] > r[1] && (r[0] * r[1] * r[2]) as f64 / 1000.0 > 0.8);
/// ```
pub fn sample_resolution<R: Real, const D: usize>(extent: &SVector<R, D>, n: u32) -> Result<[u32; D], ParticleError> {
    if n == 0 || D == 0 {
        return Err(ParticleError::ZeroResolution);
    }
    if !extent.iter().all(|e| e.finite() && *e >= R::ZERO) {
        return Err(ParticleError::BadRegion);
    }
    let dim = D as i32;
    let target = libm::pow(n as f64, dim as f64);
    if !(target <= MAX_PARTICLES as f64) {
        return Err(ParticleError::TooManyParticles);
    }
    // Axes by extent, longest first (insertion sort: D is small; stable, so
    // equal sides keep their order).
    let mut order: [usize; D] = core::array::from_fn(|i| i);
    for i in 1..D {
        let mut j = i;
        while j > 0 && extent[order[j - 1]].to_f64() < extent[order[j]].to_f64() {
            order.swap(j - 1, j);
            j -= 1;
        }
    }
    let b1 = extent[order[0]].to_f64();
    let mut r = [1.0_f64; D];
    if b1 > 0.0 {
        // Ratios, floored so that a flat side does not make r₁ infinite: a
        // ratio below 1/Nⁿ gives a resolution below 1, which rounds to 1.
        let floor = 1.0 / target;
        let a: [f64; D] = core::array::from_fn(|k| f64::max(extent[order[k]].to_f64() / b1, floor));
        let prod: f64 = a.iter().skip(1).product();
        let r1 = n as f64 / libm::pow(prod, 1.0 / dim as f64);
        for k in 0..D {
            r[k] = r1 * a[k];
        }
        // From the shortest side up: round, then give the excess (or the
        // lack) to the longer sides equally.
        for j in (0..D).rev() {
            r[j] = f64::max(libm::round(r[j]), 1.0);
            if j > 0 {
                let q = r.iter().product::<f64>() / target;
                let share = libm::pow(q, 1.0 / j as f64);
                if share.is_finite() && share > 0.0 {
                    for v in r.iter_mut().take(j) {
                        *v /= share;
                    }
                }
            }
        }
    }
    let total: f64 = r.iter().product();
    if !(total <= MAX_PARTICLES as f64) {
        return Err(ParticleError::TooManyParticles);
    }
    let mut out = [1u32; D];
    for k in 0..D {
        out[order[k]] = r[k] as u32;
    }
    Ok(out)
}

/// The number of particles of a resolution (`Π r_k`; `None` above
/// [`MAX_PARTICLES`]).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::particles::{particle_count, MAX_PARTICLES};
/// assert_eq!(particle_count(&[4, 5, 6]), Some(120));
/// assert_eq!(particle_count(&[MAX_PARTICLES, 2]), None);
/// ```
pub fn particle_count<const D: usize>(resolution: &[u32; D]) -> Option<u32> {
    let mut c: u32 = 1;
    for &r in resolution {
        c = c.checked_mul(r)?;
    }
    if c <= MAX_PARTICLES {
        Some(c)
    } else {
        None
    }
}

/// The position of particle `i` of `region` split `resolution[k]` ways
/// along axis `k`: the centre of its cell, x fastest. `None` when `i` is
/// not below the particle count or a resolution is 0.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::{particles::particle_position, Aabb};
/// use nalgebra::Vector2;
/// let region = Aabb::new(Vector2::new(0.0_f64, 0.0), Vector2::new(4.0, 1.0)).unwrap();
/// assert_eq!(particle_position(&region, &[4, 1], 0), Some(Vector2::new(0.5, 0.5)));
/// assert_eq!(particle_position(&region, &[4, 1], 3), Some(Vector2::new(3.5, 0.5)));
/// assert_eq!(particle_position(&region, &[4, 1], 4), None);
/// ```
pub fn particle_position<R: Real, const D: usize>(
    region: &Aabb<R, D>,
    resolution: &[u32; D],
    i: u32,
) -> Option<SVector<R, D>> {
    let count = particle_count(resolution)?;
    if i >= count {
        return None;
    }
    let mut rest = i;
    let mut p = SVector::<R, D>::zeros();
    for k in 0..D {
        let r = *resolution.get(k)?;
        let idx = rest.checked_rem(r)?;
        rest /= r;
        // (idx + ½)/r of the side, from the lower corner.
        let t = (R::lit(idx as f64) + R::HALF) / R::lit(r as f64);
        p[k] = region.min[k] + (region.max[k] - region.min[k]) * t;
    }
    Some(p)
}

/// What one particle's iterated projection found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection<R: Real, const D: usize> {
    /// `max(φ_A, φ_B) < ε` was reached: the point is on the surface of
    /// `A ∩ B` (or inside both, within `ε`).
    pub hit: bool,
    /// Where the projection stopped.
    pub point: SVector<R, D>,
    /// `∇φ_B` at the point (Eq. 16): B's outward normal, the direction to
    /// push A out of B.
    pub normal: SVector<R, D>,
    /// `min(φ_A, φ_B)` at the point (Eq. 15): negative when the point is
    /// inside both bodies, its magnitude a depth.
    pub depth: R,
    /// Projection steps taken.
    pub steps: u32,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for Projection<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "Projection {{ hit: {}, point: {}, normal: {}, depth: {}, steps: {} }}",
            self.hit,
            self.point.as_slice(),
            self.normal.as_slice(),
            self.depth,
            self.steps
        )
    }
}

/// The paper's Algorithm 2: project `p` onto the surface of `A ∩ B` by
/// `p ← p − max(φ_A, φ_B)·g`, `g` the gradient of the larger SDF (Eq. 14),
/// at most `max_steps` times; a hit when `max(φ_A, φ_B) < epsilon`. A NaN
/// value is never a hit.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::particles::iterate_projection;
/// use narrowphase::sdf::Transformed;
/// use narrowphase::shape::Sphere;
/// use nalgebra::{Matrix2, Vector2};
/// // Two unit discs 1.5 apart overlap in a lens. A point above it is projected
/// // onto A, then onto B, and lands on the lens's boundary: on B's circle, inside A.
/// let disc = |x: f64| Transformed::new(Sphere::new(1.0).unwrap(), Matrix2::identity(), 1.0, Vector2::new(x, 0.0)).unwrap();
/// let p = iterate_projection(&Vector2::new(0.75, 2.0), &disc(0.0), &disc(1.5), 1e-9, 16);
/// assert!(p.hit && p.steps == 2);
/// assert!(((p.point - Vector2::new(1.5, 0.0)).norm() - 1.0).abs() < 1e-12);
/// assert!((p.depth - (p.point.norm() - 1.0)).abs() < 1e-12 && p.depth < 0.0);
/// assert!((p.normal - (p.point - Vector2::new(1.5, 0.0))).norm() < 1e-12); // ∇φ_B
/// ```
pub fn iterate_projection<R: Real, const D: usize, A: Sdf<R, D> + ?Sized, B: Sdf<R, D> + ?Sized>(
    p: &SVector<R, D>,
    a: &A,
    b: &B,
    epsilon: R,
    max_steps: u32,
) -> Projection<R, D> {
    let mut p = *p;
    let mut steps = 0;
    loop {
        let (sa, sb) = (a.eval(&p), b.eval(&p));
        let (da, db) = (sa.value, sb.value);
        if is_nan(da) || is_nan(db) {
            return Projection { hit: false, point: p, normal: sb.gradient, depth: da + db, steps };
        }
        let (d, g) = if da >= db { (da, sa.gradient) } else { (db, sb.gradient) };
        if d < epsilon {
            return Projection { hit: true, point: p, normal: sb.gradient, depth: min(da, db), steps };
        }
        if steps >= max_steps {
            return Projection { hit: false, point: p, normal: sb.gradient, depth: min(da, db), steps };
        }
        p -= g * d;
        steps += 1;
    }
}

/// Parameters of [`particle_contacts`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ParticleParams<R> {
    /// Base resolution `N`: about `Nⁿ` particles per pair (the paper's
    /// Table 1 uses 5, 10, 15, 20).
    pub resolution: u32,
    /// Projection steps per particle.
    pub max_steps: u32,
    /// The iso value `ε` of a hit, relative to the region's diagonal.
    pub epsilon: R,
    /// Cell size of the thinning grid relative to the region's diagonal:
    /// at most one contact (the deepest) per cell. `None`: no thinning.
    pub thinning: Option<R>,
}

impl<R: Real> Default for ParticleParams<R> {
    /// `N = 10`, 16 steps, `ε = 1e-4` of the diagonal, no thinning.
    fn default() -> Self {
        Self { resolution: 10, max_steps: 16, epsilon: R::lit(1.0e-4), thinning: None }
    }
}

/// A contact of the particle method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParticleContact<R: Real, const D: usize> {
    /// On the surface of `A ∩ B` (within `ε`).
    pub point: SVector<R, D>,
    /// `∇φ_B` at the point: out of B.
    pub normal: SVector<R, D>,
    /// `min(φ_A, φ_B)`: ≤ 0 inside both; `−depth` is how deep.
    pub depth: R,
    /// The particle it came from.
    pub particle: u32,
    /// Its thinning cell (all zeros without thinning).
    pub cell: [i32; D],
}

impl<R: Real, const D: usize> Default for ParticleContact<R, D> {
    fn default() -> Self {
        Self { point: SVector::zeros(), normal: SVector::zeros(), depth: R::ZERO, particle: 0, cell: [0; D] }
    }
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for ParticleContact<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "ParticleContact {{ point: {}, normal: {}, depth: {}, particle: {} }}",
            self.point.as_slice(),
            self.normal.as_slice(),
            self.depth,
            self.particle
        )
    }
}

/// What [`particle_contacts`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParticleReport<R: Real, const D: usize> {
    /// The region searched; `None` when the bounding boxes do not meet (the
    /// bodies are apart; no particle placed).
    pub region: Option<Aabb<R, D>>,
    /// Resolution per axis (`[0; D]` without a region).
    pub resolution: [u32; D],
    /// Particles placed and projected.
    pub particles: u32,
    /// Projections that hit the intersection surface.
    pub hits: u32,
    /// Contacts in the buffer.
    pub stored: u32,
    /// Hits merged into a stored contact of the same thinning cell.
    pub merged: u32,
    /// Hits dropped (or stored contacts replaced) because the buffer was
    /// full: the buffer keeps the deepest.
    pub dropped: u32,
    /// Projections that met a NaN.
    pub nonfinite: u32,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for ParticleReport<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "ParticleReport {{ particles: {}, hits: {}, stored: {}, merged: {}, dropped: {}, nonfinite: {} }}",
            self.particles,
            self.hits,
            self.stored,
            self.merged,
            self.dropped,
            self.nonfinite
        )
    }
}

/// One pair's particle set: the region (the intersection of the bounding
/// boxes), its resolution and particle count, and the absolute `ε` and
/// thinning cell. [`particle_contacts`] runs on it, and the `gpu` pipeline
/// builds its per-pair inputs from it, so both project the same particles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairSetup<R: Real, const D: usize> {
    /// Where the particles are placed.
    pub region: Aabb<R, D>,
    /// Particles per axis (Algorithm 1).
    pub resolution: [u32; D],
    /// `Π resolution` (at most [`MAX_PARTICLES`]).
    pub count: u32,
    /// The hit threshold `ε`, absolute: [`ParticleParams::epsilon`] times
    /// the region's diagonal (the bodies' bounding radius for a point).
    pub epsilon: R,
    /// The thinning cell, absolute, if any.
    pub cell: Option<R>,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for PairSetup<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "PairSetup {{ region: {}, count: {}, epsilon: {} }}", self.region, self.count, self.epsilon)
    }
}

/// The particle set of a pair ([`PairSetup`]); `Ok(None)` when the bounding
/// boxes do not meet (no particle: the bodies are apart).
///
/// # Errors
///
/// In this order, the first failure decides:
/// - [`ParticleError::BadParams`] if `params.max_steps` is 0,
///   `params.epsilon` is NaN, infinite or negative, or `params.thinning` is
///   `Some` of a value that is not finite and positive;
/// - [`ParticleError::ZeroResolution`] if `params.resolution` is 0 (or
///   `D = 0`);
/// - [`ParticleError::BadRegion`] if a body's bounding box has a NaN or
///   inverted bound, or the boxes meet in a region that is not finite (two
///   bodies unbounded along the same axis) or whose diagonal overflows;
/// - [`ParticleError::TooManyParticles`] if `Nⁿ`, or the rounded
///   resolution's product, exceeds [`MAX_PARTICLES`].
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::particles::{pair_setup, ParticleParams};
/// use narrowphase::shape::Cuboid;
/// use narrowphase::sdf::Transformed;
/// use nalgebra::{Matrix3, Vector3};
/// // Two unit cubes overlapping in a 1 × 2 × 2 slab around x = 0.5.
/// let cube = |x: f64| Transformed::new(Cuboid::new(Vector3::new(1.0, 1.0, 1.0)).unwrap(),
///     Matrix3::identity(), 1.0, Vector3::new(x, 0.0, 0.0)).unwrap();
/// let s = pair_setup(&cube(0.0), &cube(1.0), &ParticleParams::default()).unwrap().unwrap();
/// assert_eq!((s.region.min.x, s.region.max.x), (0.0, 1.0));
/// assert_eq!(s.count, s.resolution.iter().product::<u32>());
/// assert!((s.epsilon - 1e-4 * 3.0).abs() < 1e-12); // ε times the diagonal, |(1, 2, 2)| = 3
/// assert_eq!(pair_setup(&cube(0.0), &cube(3.0), &ParticleParams::default()), Ok(None));
/// ```
pub fn pair_setup<R: Real, const D: usize, A: Sdf<R, D> + ?Sized, B: Sdf<R, D> + ?Sized>(
    a: &A,
    b: &B,
    params: &ParticleParams<R>,
) -> Result<Option<PairSetup<R, D>>, ParticleError> {
    let ok = |x: R| x.finite() && x >= R::ZERO;
    if params.max_steps == 0 || !ok(params.epsilon) || params.thinning.is_some_and(|t| !(ok(t) && t > R::ZERO)) {
        return Err(ParticleError::BadParams);
    }
    if params.resolution == 0 || D == 0 {
        return Err(ParticleError::ZeroResolution);
    }
    let (ba, bb) = (a.bounding_box(), b.bounding_box());
    if ba.check().is_err() || bb.check().is_err() {
        return Err(ParticleError::BadRegion);
    }
    let Some(region) = ba.intersection(&bb) else { return Ok(None) };
    if !region.is_finite() {
        return Err(ParticleError::BadRegion);
    }
    let extent = region.extent();
    let resolution = sample_resolution(&extent, params.resolution)?;
    let count = particle_count(&resolution).ok_or(ParticleError::TooManyParticles)?;
    let diagonal = norm(&extent);
    if !diagonal.finite() {
        return Err(ParticleError::BadRegion);
    }
    // A point-like region (touching corners): the bodies' own size instead.
    let scale = if diagonal > R::ZERO { diagonal } else { max(a.bounding_ball().radius, R::MIN_POSITIVE) };
    Ok(Some(PairSetup {
        region,
        resolution,
        count,
        epsilon: params.epsilon * scale,
        cell: params.thinning.map(|t| t * scale),
    }))
}

/// The particle method on one pair: particles on the intersection of the
/// bounding boxes, projected onto the surface of `A ∩ B`; hits into `out`
/// (the deepest kept when it is full; one per thinning cell with
/// [`ParticleParams::thinning`]).
///
/// # Errors
///
/// Those of [`pair_setup`], checked before any particle is placed (disjoint
/// bounding boxes are not an error: an empty report with no region):
/// - [`ParticleError::BadParams`] if `params.max_steps` is 0,
///   `params.epsilon` is NaN, infinite or negative, or `params.thinning` is
///   `Some` of a value that is not finite and positive;
/// - [`ParticleError::ZeroResolution`] if `params.resolution` is 0 (or
///   `D = 0`);
/// - [`ParticleError::BadRegion`] if a body's bounding box has a NaN or
///   inverted bound, or the boxes meet in a region that is not finite (two
///   bodies unbounded along the same axis) or whose diagonal overflows;
/// - [`ParticleError::TooManyParticles`] if `Nⁿ`, or the rounded
///   resolution's product, exceeds [`MAX_PARTICLES`].
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::particles::{particle_contacts, ParticleContact, ParticleParams};
/// use narrowphase::sdf::Transformed;
/// use narrowphase::shape::{Cuboid, Sphere};
/// use nalgebra::{Matrix3, Vector3};
/// // A unit ball sunk 0.2 into the top of a 2 × 2 × 2 cube.
/// let cube = Cuboid::new(Vector3::new(1.0_f64, 1.0, 1.0)).unwrap();
/// let ball = Transformed::new(Sphere::new(1.0).unwrap(), Matrix3::identity(), 1.0, Vector3::new(0.0, 0.0, 1.8)).unwrap();
/// let mut out = [ParticleContact::default(); 64];
/// let rep = particle_contacts(&cube, &ball, &ParticleParams::default(), &mut out).unwrap();
/// assert!(rep.hits > 0);
/// // Particles inside both stop at once; their depth is min(φ_A, φ_B). The deepest
/// // point of the overlap is the ball's bottom, 0.2 inside the cube.
/// let deepest = out[..rep.stored as usize].iter().map(|c| c.depth).fold(0.0, f64::min);
/// assert!(deepest <= -0.1 && deepest >= -0.2 - 1e-6);
/// assert_eq!(rep.stored, 64); // the 64 deepest of the hits
/// assert_eq!(rep.dropped, rep.hits - 64);
/// ```
pub fn particle_contacts<R: Real, const D: usize, A: Sdf<R, D> + ?Sized, B: Sdf<R, D> + ?Sized>(
    a: &A,
    b: &B,
    params: &ParticleParams<R>,
    out: &mut [ParticleContact<R, D>],
) -> Result<ParticleReport<R, D>, ParticleError> {
    let mut rep = ParticleReport {
        region: None,
        resolution: [0; D],
        particles: 0,
        hits: 0,
        stored: 0,
        merged: 0,
        dropped: 0,
        nonfinite: 0,
    };
    let Some(setup) = pair_setup(a, b, params)? else { return Ok(rep) };
    let PairSetup { region, resolution, count, epsilon, cell } = setup;
    rep.region = Some(region);
    rep.resolution = resolution;
    for i in 0..count {
        let Some(p) = particle_position(&region, &resolution, i) else { break };
        rep.particles += 1;
        let proj = iterate_projection(&p, a, b, epsilon, params.max_steps);
        if is_nan(proj.depth) {
            rep.nonfinite += 1;
            continue;
        }
        if !proj.hit {
            continue;
        }
        rep.hits += 1;
        let key = match cell {
            Some(c) if c > R::ZERO => thinning_cell(&proj.point, &region.min, c),
            _ => [0; D],
        };
        let contact =
            ParticleContact { point: proj.point, normal: proj.normal, depth: proj.depth, particle: i, cell: key };
        store(out, &mut rep, contact, cell.is_some());
    }
    Ok(rep)
}

/// The thinning cell of a point (clamped to `i32`).
fn thinning_cell<R: Real, const D: usize>(p: &SVector<R, D>, origin: &SVector<R, D>, cell: R) -> [i32; D] {
    core::array::from_fn(|k| {
        let t = ((p[k] - origin[k]) / cell).to_f64();
        libm::floor(t).clamp(i32::MIN as f64, i32::MAX as f64) as i32
    })
}

/// Stores a hit: merged into its thinning cell's contact (the deeper
/// stays), else appended, else it replaces the shallowest stored contact
/// when deeper (the buffer keeps the deepest).
fn store<R: Real, const D: usize>(
    out: &mut [ParticleContact<R, D>],
    rep: &mut ParticleReport<R, D>,
    c: ParticleContact<R, D>,
    thinning: bool,
) {
    let n = rep.stored as usize;
    let stored = out.get_mut(..n).unwrap_or_default();
    if thinning {
        if let Some(same) = stored.iter_mut().find(|s| s.cell == c.cell) {
            if c.depth < same.depth {
                *same = c;
            }
            rep.merged += 1;
            return;
        }
    }
    if let Some(slot) = out.get_mut(n) {
        *slot = c;
        rep.stored += 1;
        return;
    }
    rep.dropped += 1;
    let stored = out.get_mut(..n).unwrap_or_default();
    let mut shallowest: Option<&mut ParticleContact<R, D>> = None;
    for s in stored.iter_mut() {
        if shallowest.as_ref().is_none_or(|m| s.depth > m.depth) {
            shallowest = Some(s);
        }
    }
    if let Some(s) = shallowest {
        if c.depth < s.depth {
            *s = c;
        }
    }
}

#[cfg(feature = "defmt")]
#[allow(dead_code)]
fn _defmt_check() {
    fn check<T: defmt::Format>() {}
    check::<ParticleError>();
    check::<ParticleParams<f32>>();
    check::<Projection<f32, 3>>();
    check::<ParticleContact<f64, 2>>();
    check::<ParticleReport<f32, 3>>();
    check::<PairSetup<f32, 3>>();
}
