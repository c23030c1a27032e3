//! The demo loop's state: the scene, the checks' tally, the report of each
//! tick and a digest of every answer (to compare the host's with the
//! target's).

use narrowphase::error::SceneError;
use narrowphase::prelude::Pose;
use narrowphase::scene::{PairOutcome, TickSummary};

use super::check::{check_pair, Verdict};
use super::{build, CellScene, BODIES, BODY_COUNT, NAMES};

/// FNV-1a (64 bit) of every answer of the 1000 ticks: for each tick the
/// summary's counts and, per pair, its outcome, bounds, measured distance
/// and witness points (f32 bits) and iterations. The host test computes it
/// and the firmware demo compares its own with it: equal means the target
/// answered every query bit for bit as the host did. A kernel change that
/// moves any answer changes it (the host test prints the new value).
pub const DIGEST: u64 = 0x4843_d53c_d625_1a9d;

/// What the checks found so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// Pair answers checked against a closed form.
    pub checks: u32,
    /// Of those, failed.
    pub failures: u32,
    /// Measured pairs (`Near` or `WithinMargin` with a measurement).
    pub measured: u32,
    /// Largest |measured − exact| (m), its tick and pair index.
    pub max_error: (f64, usize, u16),
    /// Largest slack used on a measured value (m).
    pub max_value_slack: f64,
    /// Largest certificate slack used (m).
    pub max_certificate_slack: f64,
    /// Largest iteration count of a tick and its tick.
    pub max_iterations: (u32, usize),
    /// Ticks with an undetermined pair.
    pub undetermined_ticks: u32,
}

/// A failed check, for the caller to print.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Failure {
    /// The tick.
    pub tick: usize,
    /// The pair's first body.
    pub a: &'static str,
    /// The pair's second body.
    pub b: &'static str,
    /// The check.
    pub verdict: Verdict,
}

/// One tick as the report lines show it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TickReport {
    /// The tick (t = tick ms).
    pub tick: usize,
    /// The scene's counts.
    pub summary: TickSummary<f32>,
    /// The pair with the smallest certified lower bound: its bodies, that
    /// bound, its measured signed distance where it was measured, and its
    /// exact signed distance (the closed form).
    pub closest: Option<(&'static str, &'static str, f32, Option<f32>, f64)>,
    /// Bit `i`: pair `i` is within its margin.
    pub within: u64,
    /// The set of pairs within their margins differs from the last tick's.
    pub changed: bool,
    /// Failed checks in this tick.
    pub failures: u32,
}

/// A short text in a fixed buffer (no allocator): the names of the pairs
/// within their margins.
pub struct Line {
    buf: [u8; 160],
    len: usize,
}

impl Line {
    /// Empty.
    pub const fn new() -> Self {
        Self { buf: [0; 160], len: 0 }
    }
    /// Appends `s`, or "..." when it does not fit.
    pub fn push(&mut self, s: &str) {
        let (end, room) = (self.len + s.len(), self.buf.len());
        if let Some(dst) = self.buf.get_mut(self.len..end).filter(|_| end + 3 <= room) {
            dst.copy_from_slice(s.as_bytes());
            self.len = end;
        } else if let Some(dst) = self.buf.get_mut(self.len..self.len + 3) {
            dst.copy_from_slice(b"...");
            self.len += 3;
        }
    }
    /// The text.
    pub fn as_str(&self) -> &str {
        self.buf.get(..self.len).and_then(|b| core::str::from_utf8(b).ok()).unwrap_or("")
    }
}

impl Default for Line {
    fn default() -> Self {
        Self::new()
    }
}

/// FNV-1a, 64 bit.
struct Fnv(u64);

impl Fnv {
    fn word(&mut self, w: u32) {
        for byte in w.to_le_bytes() {
            self.0 = (self.0 ^ byte as u64).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    fn real(&mut self, x: f32) {
        self.word(x.to_bits());
    }
}

/// The cell, its scene and the checks' state.
pub struct CellDemo {
    scene: CellScene,
    within: u64,
    tally: Tally,
    digest: Fnv,
}

impl CellDemo {
    /// Builds the scene ([`super::build`]).
    ///
    /// # Errors
    /// As [`super::build`].
    pub fn new() -> Result<Self, SceneError> {
        let mut scene = CellScene::new();
        build(&mut scene)?;
        Ok(Self { scene, within: 0, tally: Tally::default(), digest: Fnv(0xCBF2_9CE4_8422_2325) })
    }

    /// The scene.
    pub fn scene(&self) -> &CellScene {
        &self.scene
    }

    /// The control tick: every pose set, then `Scene::tick`. This is what
    /// the firmware counts the instructions of.
    ///
    /// # Errors
    /// A pose `Scene::set_pose` refuses.
    pub fn tick(&mut self, poses: &[Pose<f32>; BODY_COUNT]) -> Result<TickSummary<f32>, SceneError> {
        for (i, p) in poses.iter().enumerate() {
            self.scene.set_pose(i as u16, p)?;
        }
        Ok(self.scene.tick(&super::budget()))
    }

    /// The names of pair `i`'s bodies.
    pub fn pair_names(&self, i: usize) -> (&'static str, &'static str) {
        let name = |b: u16| NAMES.get(b as usize).copied().unwrap_or("?");
        self.scene.pairs().get(i).map_or(("?", "?"), |p| (name(p.a), name(p.b)))
    }

    /// Checks every pair's answer of the last tick against the closed
    /// forms (`on_failure` gets each failed check), folds the answers into
    /// the digest and returns the tick's report.
    pub fn check(
        &mut self,
        tick: usize,
        summary: &TickSummary<f32>,
        on_failure: &mut dyn FnMut(&Failure),
    ) -> TickReport {
        let mut poses = [Pose::identity(); BODY_COUNT];
        for (slot, b) in poses.iter_mut().zip(self.scene.bodies()) {
            *slot = *b.placed().pose();
        }
        let (mut within, mut failures, mut closest_exact) = (0u64, 0u32, f64::NAN);
        let closest = summary.closest.map(|c| c.pair as usize);
        for (i, pair) in self.scene.pairs().iter().enumerate() {
            let v = check_pair(pair, &BODIES, &poses);
            if closest == Some(i) {
                closest_exact = v.exact;
            }
            let t = &mut self.tally;
            t.checks += 1;
            t.max_certificate_slack = t.max_certificate_slack.max(v.slack.certificate);
            if pair.outcome.measured().is_some() {
                t.measured += 1;
                t.max_value_slack = t.max_value_slack.max(v.slack.value);
                if v.error > t.max_error.0 {
                    t.max_error = (v.error, tick, i as u16);
                }
            }
            if v.failure.is_some() {
                t.failures += 1;
                failures += 1;
                let (a, b) = self.pair_names(i);
                on_failure(&Failure { tick, a, b, verdict: v });
            }
            if pair.outcome.violates_margin() == Some(true) {
                within |= 1 << (i % 64);
            }
            fold(&mut self.digest, pair);
        }
        self.fold_summary(summary);
        if summary.undetermined > 0 {
            self.tally.undetermined_ticks += 1;
        }
        if summary.iterations > self.tally.max_iterations.0 {
            self.tally.max_iterations = (summary.iterations, tick);
        }
        let closest = summary.closest.map(|c| {
            let (a, b) = self.pair_names(c.pair as usize);
            let measured = self.scene.pairs().get(c.pair as usize).and_then(|p| p.outcome.measured());
            (a, b, c.bounds.lower, measured.map(|m| m.signed_distance), closest_exact)
        });
        let changed = within != self.within;
        self.within = within;
        TickReport { tick, summary: *summary, closest, within, changed, failures }
    }

    /// The names of the pairs within their margins, "a/b, c/d".
    pub fn within_names(&self, report: &TickReport) -> Line {
        let mut line = Line::new();
        for i in 0..self.scene.pairs().len().min(64) {
            if report.within & (1 << i) != 0 {
                if line.len > 0 {
                    line.push(", ");
                }
                let (a, b) = self.pair_names(i);
                line.push(a);
                line.push("/");
                line.push(b);
            }
        }
        if line.len == 0 {
            line.push("none");
        }
        line
    }

    /// What the checks found so far.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// The digest of every answer so far (see [`DIGEST`]).
    pub fn digest(&self) -> u64 {
        self.digest.0
    }

    fn fold_summary(&mut self, s: &TickSummary<f32>) {
        let d = &mut self.digest;
        for n in [s.pairs, s.clear, s.culled, s.near, s.within_margin, s.penetrating, s.undetermined, s.not_reached] {
            d.word(n as u32);
        }
        d.word(s.iterations);
    }
}

/// Folds one pair's answer into the digest.
fn fold(d: &mut Fnv, pair: &narrowphase::scene::Pair<f32>) {
    let tag = match pair.outcome {
        PairOutcome::Clear { .. } => 0,
        PairOutcome::Near(_) => 1,
        PairOutcome::WithinMargin { .. } => 2,
        PairOutcome::Undetermined { .. } => 3,
    };
    d.word(tag | u32::from(pair.culled) << 8);
    d.word(pair.iterations);
    let b = pair.outcome.bounds();
    d.real(b.lower);
    d.real(b.upper);
    if let Some(m) = pair.outcome.measured() {
        d.real(m.signed_distance);
        for p in [m.witness.point_a, m.witness.point_b] {
            for x in p.coords.iter() {
                d.real(*x);
            }
        }
    }
}
