//! EPA (in progress).
