//! The particle method of Krayer et al.: per-axis sample resolution
//! (Algorithm 1) and iterated projection onto the intersection surface
//! (Algorithm 2, Eq. 14–16). In progress.
