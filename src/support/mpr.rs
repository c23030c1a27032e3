//! MPR (in progress).
