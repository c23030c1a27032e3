//! Interval arithmetic with outward rounding (Liu et al. §3). In progress.
