//! Sampled SDF grids over borrowed slices (Krayer et al. §3.2): zeroth order
//! (trilinear values) and first order (Eq. 9–12). In progress.
