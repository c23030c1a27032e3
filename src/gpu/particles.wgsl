// The particle method of Krayer et al. (Algorithm 3) on the GPU: one
// invocation per particle of every pair. Each WGSL function below is the twin
// of a Rust function of the crate (named in its comment); tests/gpu_particles.rs
// compares them.

struct Shape {
    // Sphere: (r, _, _, _); box: half-extents; capsule: (half-length, r);
    // cylinder: (r, half-height); torus: (major, minor); capped cone
    // (half-height, r at −h, r at +h); grid: origin (xyz), spacing (w).
    params: vec4<f32>,
    // Grid: the far corner (xyz). Capped cone: the side's normal in (ρ, z) (xy).
    far: vec4<f32>,
    // x: 0 sphere, 1 box, 2 capsule (axis z), 3 cylinder (axis z), 4 torus
    // (about z), 5 first-order grid, 6 capped cone (axis z; a cone has r = 0
    // at +h); y: a grid's first sample in grid_values.
    kind: vec4<u32>,
    // Grid: samples per axis (xyz).
    dims: vec4<u32>,
}

// A rigid pose, rows of [R | t]: world = R·local + t.
struct Pose {
    r0: vec4<f32>,
    r1: vec4<f32>,
    r2: vec4<f32>,
}

struct Pair {
    // Region min (xyz) and ε (w).
    lo: vec4<f32>,
    // Region max (xyz).
    hi: vec4<f32>,
    // Resolution per axis (xyz), particle count (w).
    res: vec4<u32>,
    // Shape (and pose) index of A and B, first particle, unused.
    ids: vec4<u32>,
}

struct Params {
    n_pairs: u32,
    // This dispatch runs particles [first, end) of the frame (global indices;
    // the write pass runs in batches of whole pairs when contacts are many).
    end: u32,
    max_steps: u32,
    // Invocations per row of the dispatch grid (x groups · 64).
    row: u32,
    first: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct Contact {
    // Point (xyz) and depth min(φ_A, φ_B) (w).
    p: vec4<f32>,
    // ∇φ_B (xyz).
    n: vec4<f32>,
    // Pair, particle index within the pair, projection steps, unused.
    ids: vec4<u32>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> shapes: array<Shape>;
@group(0) @binding(2) var<storage, read> poses: array<Pose>;
@group(0) @binding(3) var<storage, read> pairs: array<Pair>;
// Inclusive running particle counts: pair k owns [ends[k-1], ends[k]).
@group(0) @binding(4) var<storage, read> ends: array<u32>;
@group(0) @binding(5) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read> offsets: array<u32>;
@group(0) @binding(7) var<storage, read_write> contacts: array<Contact>;
// Points for the twin tests (xyz; w = shape index), results (grad, value).
@group(0) @binding(8) var<storage, read> probes: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> probe_out: array<vec4<f32>>;
// Every first-order grid's [½∇f, f] per sample (one vec4 a sample: one
// load per corner), x fastest, concatenated.
@group(0) @binding(10) var<storage, read> grid_values: array<vec4<f32>>;

// x/|x| or 0 (src/sdf/shapes.rs unit_or_zero).
fn unit_or_zero(x: vec3<f32>, n: f32) -> vec3<f32> {
    if (n > 0.0) {
        return x / n;
    }
    return vec3<f32>(0.0);
}

// src/sdf/shapes.rs box_sdf in 3D: (gradient, value).
fn box_sdf3(b: vec3<f32>, x: vec3<f32>) -> vec4<f32> {
    var outside = vec3<f32>(0.0);
    var inside = -3.4e38;
    var axis = 0u;
    for (var i = 0u; i < 3u; i++) {
        let q = abs(x[i]) - b[i];
        // NaN in, NaN out (a NaN fails both comparisons below).
        if (q != q) {
            return vec4<f32>(0.0, 0.0, 0.0, q);
        }
        if (q > 0.0) {
            outside[i] = select(q, -q, x[i] < 0.0);
        }
        if (q > inside) {
            inside = q;
            axis = i;
        }
    }
    if (inside > 0.0) {
        let n = length(outside);
        return vec4<f32>(unit_or_zero(outside, n), n);
    }
    var g = vec3<f32>(0.0);
    g[axis] = select(1.0, -1.0, x[axis] < 0.0);
    return vec4<f32>(g, inside);
}

// src/sdf/shapes.rs box_sdf in 2D, as (gradient.xy, 0, value).
fn box_sdf2(b: vec2<f32>, x: vec2<f32>) -> vec4<f32> {
    var outside = vec2<f32>(0.0);
    var inside = -3.4e38;
    var axis = 0u;
    for (var i = 0u; i < 2u; i++) {
        let q = abs(x[i]) - b[i];
        // NaN in, NaN out (a NaN fails both comparisons below).
        if (q != q) {
            return vec4<f32>(0.0, 0.0, 0.0, q);
        }
        if (q > 0.0) {
            outside[i] = select(q, -q, x[i] < 0.0);
        }
        if (q > inside) {
            inside = q;
            axis = i;
        }
    }
    if (inside > 0.0) {
        let n = length(outside);
        var g = vec2<f32>(0.0);
        if (n > 0.0) {
            g = outside / n;
        }
        return vec4<f32>(g, 0.0, n);
    }
    var g = vec2<f32>(0.0);
    g[axis] = select(1.0, -1.0, x[axis] < 0.0);
    return vec4<f32>(g, 0.0, inside);
}

// src/sdf/grid/mod.rs FirstOrderGrid::eval_inside: Eq. 9–12 in the cell's
// frame at a point c of the grid box (locate, trilinear weights, the eight
// corners' first-order expansions, gradient 2ā clamped to length 1).
fn grid_corner(s: Shape, base: u32, f: vec3<f32>, g: vec3<f32>, bit: vec3<u32>) -> vec4<f32> {
    let n = s.dims.xyz;
    let w3 = select(g, f, bit == vec3<u32>(1u));
    let w = w3.x * w3.y * w3.z;
    let v = grid_values[base + bit.x + n.x * (bit.y + n.y * bit.z)];
    let a = v.xyz;
    let u = f - vec3<f32>(bit);
    return vec4<f32>(a * w, w * (v.w + (a.x * u.x + a.y * u.y + a.z * u.z) * s.params.w));
}

fn grid_inside(s: Shape, c: vec3<f32>) -> vec4<f32> {
    let h = s.params.w;
    let n = s.dims.xyz;
    let t = clamp((c - s.params.xyz) / h, vec3<f32>(0.0), vec3<f32>(n - 1u));
    let cell = min(vec3<u32>(t), n - 2u);
    let f = clamp(t - vec3<f32>(cell), vec3<f32>(0.0), vec3<f32>(1.0));
    let base = s.kind.y + cell.x + n.x * (cell.y + n.y * cell.z);
    let g = vec3<f32>(1.0) - f;
    var acc = vec4<f32>(0.0);
    acc += grid_corner(s, base, f, g, vec3<u32>(0u, 0u, 0u));
    acc += grid_corner(s, base, f, g, vec3<u32>(1u, 0u, 0u));
    acc += grid_corner(s, base, f, g, vec3<u32>(0u, 1u, 0u));
    acc += grid_corner(s, base, f, g, vec3<u32>(1u, 1u, 0u));
    acc += grid_corner(s, base, f, g, vec3<u32>(0u, 0u, 1u));
    acc += grid_corner(s, base, f, g, vec3<u32>(1u, 0u, 1u));
    acc += grid_corner(s, base, f, g, vec3<u32>(0u, 1u, 1u));
    acc += grid_corner(s, base, f, g, vec3<u32>(1u, 1u, 1u));
    let value = acc.w;
    let a_bar = acc.xyz;
    var grad = a_bar * 2.0;
    let len = length(grad);
    if (len > 1.0) {
        grad = grad / len;
    }
    return vec4<f32>(grad, value);
}

// src/sdf/grid/mod.rs eval_anywhere for a first-order grid: inside the box
// the interpolant; outside φ = √(|x − c|² + max(f̃(c), 0)²), c the nearest
// point of the box.
fn grid_sdf(s: Shape, x: vec3<f32>) -> vec4<f32> {
    if (any(x != x)) {
        return vec4<f32>(x.x + x.y + x.z);
    }
    let c = min(max(x, s.params.xyz), s.far.xyz);
    let inside = grid_inside(s, c);
    let d = x - c;
    if (all(d == vec3<f32>(0.0))) {
        return inside;
    }
    let fp = max(inside.w, 0.0);
    let phi = length(vec4<f32>(d, fp));
    let along = select(vec3<f32>(0.0), inside.xyz, d == vec3<f32>(0.0));
    var grad = along * (fp / phi) + d / phi;
    let len = length(grad);
    if (len > 1.0) {
        grad = grad / len;
    }
    return vec4<f32>(grad, phi);
}

// The running state of capped_cone_sdf's edge loop.
struct ConeScan {
    best: f32,
    best_normal: vec2<f32>,
    nearest: f32,
    nearest_vec: vec2<f32>,
    nan: bool,
}

// One edge a → b (outward normal n) of the trapezoid, as one turn of the
// loop in src/sdf/shapes.rs CappedCone::eval_2d.
fn cone_edge(st: ConeScan, p: vec2<f32>, a: vec2<f32>, b: vec2<f32>, n: vec2<f32>) -> ConeScan {
    var out = st;
    let line = dot(n, p - a);
    if (line != line) {
        out.nan = true;
        return out;
    }
    if (line > out.best) {
        out.best = line;
        out.best_normal = n;
    }
    let ab = b - a;
    let len2 = dot(ab, ab);
    var t = 0.0;
    if (len2 > 0.0) {
        t = dot(p - a, ab) / len2;
    }
    t = clamp(t, 0.0, 1.0);
    let d = p - (a + ab * t);
    var d2 = dot(d, d);
    if (!(d2 <= 3.4028235e38)) {
        d2 = 3.4028235e38;
    }
    if (d2 < out.nearest) {
        out.nearest = d2;
        out.nearest_vec = d;
    }
    return out;
}

// src/sdf/shapes.rs CappedCone (Sdf<R, 3>): the exact trapezoid SDF in
// (ρ, z), lifted. k = (h, r_bottom, r_top), side = the slanted edge's normal.
fn capped_cone_sdf(k: vec3<f32>, side: vec2<f32>, x: vec3<f32>) -> vec4<f32> {
    let rho = length(x.xy);
    let p = vec2<f32>(rho, x.z);
    let h = k.x;
    var st = ConeScan(-3.4028235e38, vec2<f32>(0.0), 3.4028235e38, vec2<f32>(0.0), false);
    st = cone_edge(st, p, vec2<f32>(0.0, -h), vec2<f32>(k.y, -h), vec2<f32>(0.0, -1.0));
    st = cone_edge(st, p, vec2<f32>(k.y, -h), vec2<f32>(k.z, h), side);
    st = cone_edge(st, p, vec2<f32>(k.z, h), vec2<f32>(0.0, h), vec2<f32>(0.0, 1.0));
    if (st.nan) {
        return vec4<f32>(0.0, 0.0, 0.0, p.x + p.y);
    }
    var value = st.best;
    var g = st.best_normal;
    if (st.best > 0.0) {
        let n = length(st.nearest_vec);
        value = n;
        if (n > 0.0) {
            g = st.nearest_vec / n;
        }
    }
    var gxy = vec2<f32>(0.0);
    if (rho > 0.0) {
        gxy = g.x * x.xy / rho;
    }
    return vec4<f32>(gxy, g.y, value);
}

// The SDF of a shape in its own frame: (gradient, value). Twins of the Sdf
// impls of Sphere, Cuboid, Capsule, Cylinder, CappedCone (src/sdf/shapes.rs),
// Torus (src/sdf/torus.rs) and FirstOrderGrid (src/sdf/grid/mod.rs).
fn sdf_local(s: Shape, x: vec3<f32>) -> vec4<f32> {
    let k = s.params;
    switch s.kind.x {
        case 0u: {
            let n = length(x);
            return vec4<f32>(unit_or_zero(x, n), n - k.x);
        }
        case 1u: {
            return box_sdf3(k.xyz, x);
        }
        case 2u: {
            let h = k.x;
            var d = x;
            d.z = x.z - clamp(x.z, -h, h);
            let n = length(d);
            return vec4<f32>(unit_or_zero(d, n), n - k.y);
        }
        case 3u: {
            let rho = length(x.xy);
            let s2 = box_sdf2(vec2<f32>(k.x, k.y), vec2<f32>(rho, x.z));
            var gxy = vec2<f32>(0.0);
            if (rho > 0.0) {
                gxy = s2.x * x.xy / rho;
            }
            return vec4<f32>(gxy, s2.y, s2.w);
        }
        case 5u: {
            return grid_sdf(s, x);
        }
        case 6u: {
            return capped_cone_sdf(k.xyz, s.far.xy, x);
        }
        default: {
            let rho = length(x.xy);
            let q = vec2<f32>(rho - k.x, x.z);
            let d = length(q);
            let value = d - k.y;
            if (!(d > 0.0)) {
                return vec4<f32>(0.0, 0.0, 0.0, value);
            }
            var gxy = vec2<f32>(0.0);
            if (rho > 0.0) {
                gxy = x.xy * (q.x / d / rho);
            }
            return vec4<f32>(gxy, q.y / d, value);
        }
    }
}

// Placed<S>: φ(Rᵀ(x − t)), gradient rotated back (src/sdf/shapes.rs).
fn sdf(shape_index: u32, x: vec3<f32>) -> vec4<f32> {
    let pose = poses[shape_index];
    let d = x - vec3<f32>(pose.r0.w, pose.r1.w, pose.r2.w);
    let local = d.x * pose.r0.xyz + d.y * pose.r1.xyz + d.z * pose.r2.xyz;
    let s = sdf_local(shapes[shape_index], local);
    let g = vec3<f32>(dot(pose.r0.xyz, s.xyz), dot(pose.r1.xyz, s.xyz), dot(pose.r2.xyz, s.xyz));
    return vec4<f32>(g, s.w);
}

// src/sdf/particles.rs particle_position: the centre of cell `i`, x fastest.
fn particle_position(pair: Pair, i: u32) -> vec3<f32> {
    let r = pair.res.xyz;
    let idx = vec3<u32>(i % r.x, (i / r.x) % r.y, i / (r.x * r.y));
    let t = (vec3<f32>(idx) + 0.5) / vec3<f32>(r);
    return pair.lo.xyz + (pair.hi.xyz - pair.lo.xyz) * t;
}

struct Projection {
    point: vec3<f32>,
    normal: vec3<f32>,
    depth: f32,
    steps: u32,
    hit: bool,
}

// src/sdf/particles.rs iterate_projection (Algorithm 2, Eq. 14–16).
fn iterate_projection(p0: vec3<f32>, a: u32, b: u32, eps: f32, max_steps: u32) -> Projection {
    var p = p0;
    var steps = 0u;
    loop {
        let sa = sdf(a, p);
        let sb = sdf(b, p);
        let da = sa.w;
        let db = sb.w;
        // NaN is never a hit (x != x only for NaN).
        if (da != da || db != db) {
            return Projection(p, sb.xyz, da + db, steps, false);
        }
        var d = db;
        var g = sb.xyz;
        if (da >= db) {
            d = da;
            g = sa.xyz;
        }
        if (d < eps) {
            return Projection(p, sb.xyz, min(da, db), steps, true);
        }
        if (steps >= max_steps) {
            return Projection(p, sb.xyz, min(da, db), steps, false);
        }
        p = p - g * d;
        steps = steps + 1u;
    }
    return Projection(p, vec3<f32>(0.0), 0.0, steps, false);
}

// Algorithm 3 line 3: the pair of particle `i`, the first k with ends[k] > i.
fn lower_bound(i: u32) -> u32 {
    var lo = 0u;
    var hi = params.n_pairs;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (ends[mid] > i) {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    return lo;
}

struct Particle {
    pair: u32,
    local: u32,
    proj: Projection,
}

fn run_particle(i: u32) -> Particle {
    let k = lower_bound(i);
    let pair = pairs[k];
    let local = i - pair.ids.z;
    let p = particle_position(pair, local);
    return Particle(k, local, iterate_projection(p, pair.ids.x, pair.ids.y, pair.lo.w, params.max_steps));
}

// Pass 1: count the hits of every pair.
@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = params.first + gid.x + gid.y * params.row;
    if (i >= params.end) {
        return;
    }
    let r = run_particle(i);
    if (r.proj.hit) {
        atomicAdd(&counts[r.pair], 1u);
    }
}

// Pass 2: the same projections, hits written compactly at the pair's offset
// (prefix sum of pass 1's counts) plus a per-pair cursor.
@compute @workgroup_size(64)
fn write(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = params.first + gid.x + gid.y * params.row;
    if (i >= params.end) {
        return;
    }
    let r = run_particle(i);
    if (r.proj.hit) {
        let slot = offsets[r.pair] + atomicAdd(&counts[r.pair], 1u);
        contacts[slot] = Contact(vec4<f32>(r.proj.point, r.proj.depth), vec4<f32>(r.proj.normal, 0.0), vec4<u32>(r.pair, r.local, r.proj.steps, 0u));
    }
}

// The twins under test: the placed SDF of shape w at point xyz.
@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&probes)) {
        return;
    }
    let q = probes[i];
    probe_out[i] = sdf(u32(q.w), q.xyz);
}
