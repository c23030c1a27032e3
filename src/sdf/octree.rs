//! The octree intersection regions of Liu et al. Algorithm 1. In progress.
