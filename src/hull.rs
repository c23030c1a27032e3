//! Host-side quickhull builder (in progress).
