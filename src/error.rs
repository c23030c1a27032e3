//! Every typed error of the crate, in one place.
//!
//! An error means the input was refused before any query ran (a shape, a
//! polytope, a grid layout, a method's parameters). A query that ran and
//! could not decide is not an error: it answers `Undetermined` with an
//! [`Undetermined`](crate::query::Undetermined) reason.
//!
//! Every error implements [`Display`](core::fmt::Display) and
//! [`core::error::Error`], and is `#[non_exhaustive]`: match with a `_` arm.

use core::fmt;
#[cfg(feature = "gpu")]
use std::string::String;

/// A typed error for input that no query can accept (found at
/// construction time, before any query runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ShapeError {
    /// A parameter was NaN or infinite.
    NonFinite,
    /// A size (radius, half-extent, height) was zero or negative (also: an
    /// inverted interval or box, a zero normal; each constructor's
    /// `# Errors` section says when).
    NonPositiveSize,
    /// Sizes the scalar type cannot resolve: one outside
    /// [`min_extent`](crate::shape::min_extent)`..=`[`max_extent`](crate::shape::max_extent),
    /// or the largest more than [`MAX_ASPECT`](crate::shape::MAX_ASPECT)` / ε`
    /// times the smallest (`ε` the machine epsilon of the scalar type). Some
    /// constructors also use it for proportions out of range in another way
    /// (a nearly singular linear map, a torus without a hole); each one's
    /// `# Errors` section says when.
    BadAspect,
    /// A polytope failed validation; see the reason.
    Polytope(PolytopeError),
    /// A pose's rotation is not orthonormal within
    /// [`ROTATION_TOLERANCE`](crate::shape::ROTATION_TOLERANCE), or is a
    /// reflection (a scale or shear belongs in an
    /// [`Affine`](crate::shape::Affine) image).
    NotARotation,
    /// A shape exponent outside its admissible range: superquadric and
    /// superellipse exponents must lie in
    /// `[MIN_EXPONENT, 2 − MIN_EXPONENT]` (see
    /// [`MIN_EXPONENT`](crate::shape::MIN_EXPONENT)), inside the interval
    /// `(0, 2)` where the body is convex.
    BadExponent,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShapeError::NonFinite => "a parameter is NaN or infinite",
            ShapeError::NonPositiveSize => "a size is zero or negative",
            ShapeError::BadAspect => "the sizes are too far apart for the scalar type",
            ShapeError::Polytope(e) => return write!(f, "invalid polytope: {e}"),
            ShapeError::NotARotation => "the pose's rotation is not orthonormal, or is a reflection",
            ShapeError::BadExponent => "a shape exponent lies outside (0, 2)",
        })
    }
}

impl core::error::Error for ShapeError {}

/// Why polytope data was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum PolytopeError {
    /// Fewer than 4 vertices or 4 faces, or more than [`MAX_VERTICES`](crate::shape::MAX_VERTICES).
    BadCount,
    /// An offsets array has the wrong length, does not start at 0, is not
    /// non-decreasing or does not end at the length of the array it indexes,
    /// or an index points outside its array.
    BadIndex,
    /// A vertex or plane has a NaN or infinite coordinate.
    NonFinite,
    /// A face normal is not unit length.
    BadNormal,
    /// Two vertices coincide (closer than the tolerance).
    DuplicateVertex,
    /// A face has fewer than 3 vertices, a loop vertex is off its plane or
    /// appears twice in the loop, or the loop runs clockwise seen from
    /// outside (against its normal).
    BadFace,
    /// A vertex lies outside a face plane by more than the tolerance.
    NotConvex,
    /// A vertex is not a strict corner beyond rounding: it lies inside a
    /// face or on an edge, or it is reflex or flat by less than its
    /// coordinates' rounding (for some edge, the incident faces away from it
    /// do not put the vertex above its neighbour by more than `16ε` of the
    /// edge's length). Hill climbing could stop at such a vertex without
    /// reaching the maximum; the hull builder (`hull`, `std` feature) drops
    /// them.
    NotACorner,
    /// Some directed edge is used by no face or by two: the surface is not
    /// closed and consistently oriented, or the Euler characteristic is not 2.
    NotClosed,
    /// The vertex adjacency is not exactly the edge set of the faces, or is
    /// not symmetric.
    BadVertexAdjacency,
    /// The face adjacency does not name the face across each edge.
    BadFaceAdjacency,
}

impl fmt::Display for PolytopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PolytopeError::BadCount => "fewer than 4 vertices or faces, or more than MAX_VERTICES",
            PolytopeError::BadIndex => "an offsets array or an index is out of range",
            PolytopeError::NonFinite => "a vertex or plane coordinate is NaN or infinite",
            PolytopeError::BadNormal => "a face normal is not unit length",
            PolytopeError::DuplicateVertex => "two vertices coincide",
            PolytopeError::BadFace => "a face is not a counter-clockwise loop on its plane",
            PolytopeError::NotConvex => "a vertex lies outside a face plane",
            PolytopeError::NotACorner => "a vertex is not a strict corner",
            PolytopeError::NotClosed => "the surface is not closed and consistently oriented",
            PolytopeError::BadVertexAdjacency => "the vertex adjacency is not the edge set of the faces",
            PolytopeError::BadFaceAdjacency => "the face adjacency does not name the face across each edge",
        })
    }
}

impl core::error::Error for PolytopeError {}

/// Why a grid or a layout was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum GridError {
    /// An axis has fewer than 2 samples (zero or one: no cell to
    /// interpolate in).
    TooFewSamples,
    /// The number of samples (or of stored values) overflows `usize`, or an
    /// axis has more than [`MAX_SAMPLES_PER_AXIS`](crate::sdf::grid::MAX_SAMPLES_PER_AXIS) samples.
    TooManySamples,
    /// The spacing is NaN, infinite, not positive, or too small for the
    /// coordinates to tell neighbouring samples apart (below
    /// `64·ε·max|coordinate|`).
    BadSpacing,
    /// The origin has a NaN or infinite coordinate (for
    /// [`GridLayout::covering`](crate::sdf::grid::GridLayout::covering): the
    /// box has a NaN, infinite or inverted bound).
    NonFiniteOrigin,
    /// The far corner `origin + spacing·(dims − 1)` overflows, or a
    /// coordinate of the grid box lies beyond the kernel's extent
    /// `sqrt(MAX)/1e3` ([`max_extent`](crate::shape::max_extent)).
    NonFiniteBounds,
    /// The slice does not hold exactly the values the layout needs.
    LengthMismatch {
        /// Values the layout needs (samples, or 4 × samples for first order).
        expected: usize,
        /// Values the slice holds.
        found: usize,
    },
    /// A stored value (or, in a builder, the SDF's value or gradient once
    /// converted to the storage type, e.g. beyond `F16::MAX`) is NaN or
    /// infinite, or (in a grid) beyond the kernel's extent `sqrt(MAX)/1e3`.
    NonFiniteValue {
        /// Position of the first such value in the slice.
        index: usize,
    },
}

impl fmt::Display for GridError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GridError::TooFewSamples => f.write_str("an axis has fewer than 2 samples"),
            GridError::TooManySamples => f.write_str("too many samples"),
            GridError::BadSpacing => f.write_str("the spacing is NaN, infinite, not positive or too small"),
            GridError::NonFiniteOrigin => f.write_str("the origin is NaN or infinite"),
            GridError::NonFiniteBounds => f.write_str("the far corner overflows"),
            GridError::LengthMismatch { expected, found } => {
                write!(f, "the layout needs {expected} values, the slice holds {found}")
            }
            GridError::NonFiniteValue { index } => write!(f, "value {index} is NaN, infinite or out of range"),
        }
    }
}

impl core::error::Error for GridError {}

/// A typed error of the gradient methods' set-up (never of a query's
/// numbers: those give `Undetermined`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum GradientError {
    /// [`GradientParams::check`](crate::sdf::gradient::GradientParams::check) failed: a step or tolerance
    /// that is NaN, infinite or not positive, or a merge radius that is NaN,
    /// infinite or negative. Also a `reach` or `boundary` of
    /// [`protrusion_points`](crate::sdf::gradient::protrusion_points) out of range.
    InvalidParams,
    /// A box with a NaN or inverted bound.
    InvalidBox(ShapeError),
    /// A box (or both bodies) without a finite extent: no scale, no lattice.
    Unbounded,
    /// Zero detection points per axis were asked for.
    ZeroPoints,
    /// The caller's buffer holds `capacity` points, `needed` are required
    /// (`usize::MAX` when the count overflows). Nothing is written partially
    /// on purpose: a lattice with missing cells would silently leave regions
    /// unsearched.
    Capacity {
        /// Points required.
        needed: usize,
        /// Points the buffer holds.
        capacity: usize,
    },
    /// More grid samples than [`MAX_PROTRUSION_SAMPLES`](crate::sdf::gradient::MAX_PROTRUSION_SAMPLES) were asked for.
    TooManySamples {
        /// Samples requested (`usize::MAX` when the count overflows).
        requested: usize,
    },
}

impl fmt::Display for GradientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GradientError::InvalidParams => {
                f.write_str("a step, tolerance or merge radius is NaN, infinite or not positive")
            }
            GradientError::InvalidBox(e) => write!(f, "invalid box: {e}"),
            GradientError::Unbounded => f.write_str("no finite extent to scale by"),
            GradientError::ZeroPoints => f.write_str("zero detection points per axis"),
            GradientError::Capacity { needed, capacity } => {
                write!(f, "the buffer holds {capacity} points, {needed} are needed")
            }
            GradientError::TooManySamples { requested } => write!(f, "{requested} samples exceed the cap"),
        }
    }
}

impl core::error::Error for GradientError {}

/// Why [`octree::intersect`](crate::sdf::octree::intersect) could not start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum OctreeError {
    /// The region has a NaN or infinite bound, or is inverted (two
    /// unbounded bodies, or an invalid bounding box).
    BadRegion,
    /// `max_depth > MAX_DEPTH`, an empty stack, or `D` outside `1..=16`.
    BadParams,
}

impl fmt::Display for OctreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OctreeError::BadRegion => "the region is NaN, infinite or inverted",
            OctreeError::BadParams => "depth, stack or dimension out of range",
        })
    }
}

impl core::error::Error for OctreeError {}

/// Why a particle query could not start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ParticleError {
    /// Base resolution `N = 0`, or a dimension `D = 0`.
    ZeroResolution,
    /// An extent or a region bound that is NaN, infinite or negative
    /// (inverted box, unbounded bodies on both sides).
    BadRegion,
    /// `Nⁿ` (or the rounded resolution's product) exceeds [`MAX_PARTICLES`](crate::sdf::particles::MAX_PARTICLES).
    TooManyParticles,
    /// A step cap of 0, an `epsilon` that is NaN, infinite or negative, or
    /// a `thinning` cell that is not finite and positive (0 included: a
    /// cell of size 0 would put every contact in a cell of its own).
    BadParams,
}

impl fmt::Display for ParticleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParticleError::ZeroResolution => "zero resolution or dimension",
            ParticleError::BadRegion => "the region is NaN, infinite or inverted",
            ParticleError::TooManyParticles => "more particles than MAX_PARTICLES",
            ParticleError::BadParams => "a step cap, epsilon or thinning cell is out of range",
        })
    }
}

impl core::error::Error for ParticleError {}

/// Bad input to a scene: refused with nothing changed.
///
/// ```
/// use narrowphase::error::SceneError;
/// assert_eq!(SceneError::UnknownBody(7).to_string(), "no body 7 in the scene");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SceneError {
    /// The body list is full (`BODIES`).
    BodyCapacity,
    /// The pair list would exceed its capacity (`PAIRS`); `needed` pairs
    /// were asked for.
    PairCapacity {
        /// Pairs the request needed in all.
        needed: usize,
    },
    /// A pair of a body with itself.
    SelfPair,
    /// A body index that is not in the scene (or a parent index not added
    /// before its child).
    UnknownBody(u16),
    /// A margin or distance bound that is NaN, infinite or negative.
    BadMargin,
    /// A body's shape was refused by its constructor.
    Shape(ShapeError),
    /// A pose was refused: NaN or infinite, or a rotation further than
    /// [`ROTATION_TOLERANCE`](crate::shape::ROTATION_TOLERANCE) from
    /// orthonormal; the body keeps its previous pose.
    Pose {
        /// The body.
        body: u16,
        /// [`ShapeError::NonFinite`] or [`ShapeError::NotARotation`].
        error: ShapeError,
    },
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneError::BodyCapacity => f.write_str("the scene's body list is full"),
            SceneError::PairCapacity { needed } => write!(f, "the pair list cannot hold {needed} pairs"),
            SceneError::SelfPair => f.write_str("a pair of a body with itself"),
            SceneError::UnknownBody(i) => write!(f, "no body {i} in the scene"),
            SceneError::BadMargin => f.write_str("a margin or bound is NaN, infinite or negative"),
            SceneError::Shape(e) => write!(f, "invalid shape: {e}"),
            SceneError::Pose { body, error } => write!(f, "invalid pose for body {body}: {error}"),
        }
    }
}

impl core::error::Error for SceneError {}

/// Why no hull was built.
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum HullError {
    /// Fewer than 4 input points.
    TooFewPoints,
    /// An input coordinate is NaN or infinite.
    NonFinite,
    /// An input coordinate exceeds [`crate::shape::max_extent`]
    /// of the scalar type (squared lengths would overflow).
    TooLarge,
    /// The cloud has no volume at the builder's resolution: all points
    /// coincide, or lie on one line or one plane (or the cloud is smaller
    /// than [`crate::shape::min_extent`]).
    Degenerate,
    /// The hull needs more than `u16::MAX` vertices or faces, or more
    /// than `u16::MAX` loop or adjacency entries (the CSR offsets are `u16`),
    /// or the input has more than `u32::MAX` points.
    TooManyVertices,
    /// The floating-point computation became inconsistent (a horizon that is
    /// not a simple loop, a zero-area face). Not expected for finite input.
    Numerical,
    /// The result failed [`Polytope::new`](crate::shape::Polytope::new). Not expected; a builder bug.
    Invalid(PolytopeError),
}

#[cfg(feature = "std")]
impl fmt::Display for HullError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HullError::TooFewPoints => f.write_str("fewer than 4 points"),
            HullError::NonFinite => f.write_str("a coordinate is NaN or infinite"),
            HullError::TooLarge => f.write_str("a coordinate exceeds the largest accepted extent"),
            HullError::Degenerate => f.write_str("the points are coincident, collinear or coplanar"),
            HullError::TooManyVertices => f.write_str("the hull does not fit u16 indices"),
            HullError::Numerical => f.write_str("the hull computation became numerically inconsistent"),
            HullError::Invalid(e) => write!(f, "the hull failed validation: {e:?}"),
        }
    }
}

#[cfg(feature = "std")]
impl core::error::Error for HullError {}

/// Why the GPU pipeline could not answer.
#[cfg(feature = "gpu")]
#[cfg_attr(docsrs, doc(cfg(feature = "gpu")))]
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GpuError {
    /// No GPU adapter (not even a software one such as Mesa's lavapipe).
    NoAdapter(String),
    /// The adapter refused a device.
    Device(String),
    /// A request beyond a limit: `what`, how much was asked, the limit.
    LimitExceeded {
        /// The quantity.
        what: &'static str,
        /// Requested.
        requested: u64,
        /// Allowed.
        limit: u64,
    },
    /// A pair names a shape that was not uploaded, or poses and shapes
    /// differ in number.
    BadIndex {
        /// The index.
        index: u32,
        /// Shapes uploaded.
        shapes: u32,
    },
    /// A pair's particle set could not be built (as on the CPU).
    Particles(ParticleError),
    /// A pose that is not finite.
    NonFinitePose(u32),
    /// Reading results back failed.
    Readback(String),
}

#[cfg(feature = "gpu")]
impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoAdapter(s) => write!(f, "no GPU adapter: {s}"),
            GpuError::Device(s) => write!(f, "no GPU device: {s}"),
            GpuError::LimitExceeded { what, requested, limit } => {
                write!(f, "{what}: {requested} requested, limit {limit}")
            }
            GpuError::BadIndex { index, shapes } => write!(f, "shape index {index}, {shapes} shapes uploaded"),
            GpuError::Particles(e) => write!(f, "particle set: {e:?}"),
            GpuError::NonFinitePose(i) => write!(f, "pose {i} is not finite"),
            GpuError::Readback(s) => write!(f, "readback: {s}"),
        }
    }
}

#[cfg(feature = "gpu")]
impl core::error::Error for GpuError {}
