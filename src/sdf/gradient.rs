//! The projected-gradient methods of Liu et al. §4.3–4.4: intersection test
//! (Algorithm 2) and contact generation (Algorithm 3). In progress.
