//! The wgpu particle pipeline (in progress).
