// Bench-only C shim over coal 3.0.3 (double precision), written against its
// public headers. Every entry point is `extern "C"` and catches every C++
// exception: a failure is a null pointer or a negative status, never an
// exception crossing into Rust.
//
// Queries go through coal's per-pair functors `coal::ComputeDistance` and
// `coal::ComputeCollision`, which is how pinocchio calls coal (its
// GeometryData keeps one functor per collision pair): the narrow-phase
// function is looked up once per pair and the GJK/EPA solver (and EPA's
// storage) lives in the functor between queries.

#include <coal/collision.h>
#include <coal/distance.h>
#include <coal/narrowphase/narrowphase.h>
#include <coal/shape/convex.h>
#include <coal/shape/geometric_shapes.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <vector>

namespace {

// The functors keep their solver protected: these subclasses only read it
// (iteration counts) and reset or copy its guesses.
struct Distance : coal::ComputeDistance {
  using coal::ComputeDistance::ComputeDistance;
  coal::GJKSolver& gjk_solver() const { return solver; }
};

struct Collision : coal::ComputeCollision {
  using coal::ComputeCollision::ComputeCollision;
  coal::GJKSolver& gjk_solver() const { return solver; }
};

// Forget the last query's GJK direction and support-vertex hints: what a
// fresh solver (as `coal::distance` builds per call) starts from.
void cold(coal::GJKSolver& s) {
  s.cached_guess = coal::Vec3s(1, 0, 0);
  s.support_func_cached_guess = coal::support_func_guess_t::Zero();
}

struct Pair {
  Distance distance;
  Collision collision;
  coal::DistanceRequest unsigned_request;  // GJK only
  coal::DistanceRequest signed_request;    // GJK, then EPA when overlapping
  coal::DistanceRequest warm_request;      // unsigned, GJK warm-started
  coal::CollisionRequest collision_request;
  coal::CollisionRequest margin_request;   // security margin and early stop set per call
  coal::CollisionRequest warm_margin_request;  // the same, GJK warm-started
  coal::CollisionResult collision_result;  // reused: its contact vector keeps its capacity

  Pair(const coal::CollisionGeometry* a, const coal::CollisionGeometry* b,
       coal::GJKVariant variant)
      : distance(a, b),
        collision(a, b),
        unsigned_request(true, false),
        signed_request(true, true),
        warm_request(true, false),
        collision_request(coal::NO_REQUEST, 1),
        margin_request(coal::NO_REQUEST, 1),
        warm_margin_request(coal::NO_REQUEST, 1) {
    for (coal::QueryRequest* r :
         {static_cast<coal::QueryRequest*>(&unsigned_request),
          static_cast<coal::QueryRequest*>(&signed_request),
          static_cast<coal::QueryRequest*>(&warm_request),
          static_cast<coal::QueryRequest*>(&collision_request),
          static_cast<coal::QueryRequest*>(&margin_request),
          static_cast<coal::QueryRequest*>(&warm_margin_request)}) {
      r->gjk_variant = variant;
    }
    warm_request.gjk_initial_guess = coal::GJKInitialGuess::CachedGuess;
    warm_request.cached_gjk_guess = coal::Vec3s(1, 0, 0);
    warm_request.cached_support_func_guess = coal::support_func_guess_t::Zero();
    collision_request.enable_contact = false;
    margin_request.enable_contact = false;
    warm_margin_request.enable_contact = false;
    warm_margin_request.gjk_initial_guess = coal::GJKInitialGuess::CachedGuess;
    warm_margin_request.cached_gjk_guess = coal::Vec3s(1, 0, 0);
    warm_margin_request.cached_support_func_guess = coal::support_func_guess_t::Zero();
  }

  EIGEN_MAKE_ALIGNED_OPERATOR_NEW
};

coal::Transform3s transform(const double* tf) {
  // 9 rotation entries, row-major, then the translation.
  coal::Matrix3s r;
  r << tf[0], tf[1], tf[2], tf[3], tf[4], tf[5], tf[6], tf[7], tf[8];
  return coal::Transform3s(r, coal::Vec3s(tf[9], tf[10], tf[11]));
}

template <class F>
void* make(F f) {
  try {
    return f();
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

extern "C" {

const char* npcoal_version() { return COAL_VERSION; }

// ---- Shapes (coal's own constructor arguments) ----

void* npcoal_box(double x, double y, double z) {
  return make([&] { return static_cast<coal::CollisionGeometry*>(new coal::Box(x, y, z)); });
}
void* npcoal_sphere(double radius) {
  return make([&] { return static_cast<coal::CollisionGeometry*>(new coal::Sphere(radius)); });
}
void* npcoal_capsule(double radius, double lz) {
  return make([&] { return static_cast<coal::CollisionGeometry*>(new coal::Capsule(radius, lz)); });
}
void* npcoal_cylinder(double radius, double lz) {
  return make([&] { return static_cast<coal::CollisionGeometry*>(new coal::Cylinder(radius, lz)); });
}
void* npcoal_cone(double radius, double lz) {
  return make([&] { return static_cast<coal::CollisionGeometry*>(new coal::Cone(radius, lz)); });
}
void* npcoal_ellipsoid(double rx, double ry, double rz) {
  return make([&] { return static_cast<coal::CollisionGeometry*>(new coal::Ellipsoid(rx, ry, rz)); });
}

// A convex polytope: `n_points` vertices (x, y, z) and `n_triangles`
// triangles (3 vertex indices each) covering its boundary.
void* npcoal_convex(const double* points, uint32_t n_points, const uint32_t* triangles,
                    uint32_t n_triangles) {
  return make([&]() -> coal::CollisionGeometry* {
    auto pts = std::make_shared<std::vector<coal::Vec3s>>();
    pts->reserve(n_points);
    for (uint32_t i = 0; i < n_points; ++i) {
      pts->emplace_back(points[3 * i], points[3 * i + 1], points[3 * i + 2]);
    }
    auto tris = std::make_shared<std::vector<coal::Triangle>>();
    tris->reserve(n_triangles);
    for (uint32_t i = 0; i < n_triangles; ++i) {
      const uint32_t* t = triangles + 3 * i;
      if (t[0] >= n_points || t[1] >= n_points || t[2] >= n_points) return nullptr;
      tris->emplace_back(t[0], t[1], t[2]);
    }
    return new coal::Convex<coal::Triangle>(pts, n_points, tris, n_triangles);
  });
}

void npcoal_shape_free(void* shape) { delete static_cast<coal::CollisionGeometry*>(shape); }

// ---- Pairs: the functors and requests of one shape pair ----

// `variant`: 0 coal's default GJK, 1 Nesterov acceleration.
void* npcoal_pair_new(const void* a, const void* b, int variant) {
  if (variant != 0 && variant != 1) return nullptr;
  const coal::GJKVariant v =
      variant == 1 ? coal::GJKVariant::NesterovAcceleration : coal::GJKVariant::DefaultGJK;
  return make([&] {
    return new Pair(static_cast<const coal::CollisionGeometry*>(a),
                    static_cast<const coal::CollisionGeometry*>(b), v);
  });
}

void npcoal_pair_free(void* pair) { delete static_cast<Pair*>(pair); }

// Distance from cold guesses. `mode` 0: GJK only (`enable_signed_distance`
// false: 0 or below GJK's tolerance when the shapes overlap); 1: signed
// distance (EPA runs when GJK finds a collision: minus the penetration
// depth); 2: GJK only, warm-started from this pair's previous mode-2 query
// (`GJKInitialGuess::CachedGuess` and the support hints). Writes the
// distance, the unit normal from shape a towards shape b and the witness
// points (NaN where coal gives none). Returns 0, or -1 on an exception.
int npcoal_distance(void* pair, const double* tf_a, const double* tf_b, int mode, double* out_distance,
                    double* out_normal, double* out_p1, double* out_p2) {
  try {
    Pair& p = *static_cast<Pair*>(pair);
    coal::DistanceRequest* req = mode == 1 ? &p.signed_request : mode == 2 ? &p.warm_request : &p.unsigned_request;
    coal::GJKSolver& solver = p.distance.gjk_solver();
    if (mode != 2) cold(solver);
    coal::DistanceResult res;
    const double d = p.distance(transform(tf_a), transform(tf_b), *req, res);
    if (mode == 2) {
      req->cached_gjk_guess = solver.cached_guess;
      req->cached_support_func_guess = solver.support_func_cached_guess;
    }
    *out_distance = d;
    for (int k = 0; k < 3; ++k) {
      out_normal[k] = res.normal[k];
      out_p1[k] = res.nearest_points[0][k];
      out_p2[k] = res.nearest_points[1][k];
    }
    return 0;
  } catch (...) {
    return -1;
  }
}

// Forget the warm start of mode-2 queries (the start of a new trajectory).
void npcoal_pair_reset_warm(void* pair) {
  Pair& p = *static_cast<Pair*>(pair);
  p.warm_request.cached_gjk_guess = coal::Vec3s(1, 0, 0);
  p.warm_request.cached_support_func_guess = coal::support_func_guess_t::Zero();
  p.warm_margin_request.cached_gjk_guess = coal::Vec3s(1, 0, 0);
  p.warm_margin_request.cached_support_func_guess = coal::support_func_guess_t::Zero();
}

// Boolean collision from cold guesses (`enable_contact` false: no EPA;
// coal's default `distance_upper_bound`, so GJK runs to the distance). Returns 1 colliding, 0 apart, -1
// on an exception.
int npcoal_collide(void* pair, const double* tf_a, const double* tf_b) {
  try {
    Pair& p = *static_cast<Pair*>(pair);
    cold(p.collision.gjk_solver());
    p.collision_result.clear();
    const std::size_t n = p.collision(transform(tf_a), transform(tf_b), p.collision_request, p.collision_result);
    return n > 0 ? 1 : 0;
  } catch (...) {
    return -1;
  }
}

// As `npcoal_collide`, with `security_margin` = `margin`: 1 when the
// shapes are closer than `margin`, 0 when farther, -1 on an exception.
// `early` 0 keeps coal's default `distance_upper_bound` (the largest
// double: GJK runs to the distance, as `npcoal_collide` does); 1 sets it to
// `margin`, so GJK stops as soon as its lower bound clears the margin (the
// request a caller tunes for yes/no questions).
int npcoal_collide_margin(void* pair, const double* tf_a, const double* tf_b, double margin, int early) {
  try {
    Pair& p = *static_cast<Pair*>(pair);
    cold(p.collision.gjk_solver());
    coal::CollisionRequest& req = p.margin_request;
    req.security_margin = margin;
    req.distance_upper_bound = early ? margin : (std::numeric_limits<coal::CoalScalar>::max)();
    p.collision_result.clear();
    const std::size_t n = p.collision(transform(tf_a), transform(tf_b), req, p.collision_result);
    return n > 0 ? 1 : 0;
  } catch (...) {
    return -1;
  }
}

// As `npcoal_collide_margin`, warm-started from this pair's previous
// `npcoal_collide_warm` (`GJKInitialGuess::CachedGuess` and the support
// hints, as a controller keeps them per pair from tick to tick).
int npcoal_collide_warm(void* pair, const double* tf_a, const double* tf_b, double margin, int early) {
  try {
    Pair& p = *static_cast<Pair*>(pair);
    coal::CollisionRequest& req = p.warm_margin_request;
    req.security_margin = margin;
    req.distance_upper_bound = early ? margin : (std::numeric_limits<coal::CoalScalar>::max)();
    p.collision_result.clear();
    const std::size_t n = p.collision(transform(tf_a), transform(tf_b), req, p.collision_result);
    const coal::GJKSolver& solver = p.collision.gjk_solver();
    req.cached_gjk_guess = solver.cached_guess;
    req.cached_support_func_guess = solver.support_func_cached_guess;
    return n > 0 ? 1 : 0;
  } catch (...) {
    return -1;
  }
}

// GJK and EPA iterations of the pair's last distance query (EPA: 0 when it
// did not run).
void npcoal_last_iterations(const void* pair, uint64_t* gjk, uint64_t* epa) {
  const Pair& p = *static_cast<const Pair*>(pair);
  const coal::GJKSolver& s = p.distance.gjk_solver();
  *gjk = s.gjk.getNumIterations();
  *epa = s.epa.status == coal::details::EPA::DidNotRun ? 0 : s.epa.getNumIterations();
}

}  // extern "C"
