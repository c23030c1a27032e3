//! Structured seed inputs: each target lists representative inputs (every
//! primitive, wrapper, rotation kind and precision, touching, overlapping and
//! separated placements, valid and invalid parameters) as values of its
//! `Input` type, and this module writes them as the bytes `arbitrary` decodes
//! back into those values. A fresh checkout has no corpus; these seeds give
//! the fuzzer the structure of the input space at once, where random bytes
//! take minutes to find it.
//!
//! A target hands its list to [`write`] from its `init` hook: with
//! `NARROWPHASE_FUZZ_SEEDS=DIR` in the environment the seeds are written to
//! `DIR` (one file each, `seed-NNNN`) before libFuzzer reads its corpus
//! directories, so `cargo xtask fuzz` passes `DIR` as one of them. Each seed
//! is decoded again and compared with the value it came from: a change of an
//! input type that the encoding here does not follow fails at once.
//!
//! The encoding mirrors `arbitrary` 1.x: integers and floats as
//! little-endian bytes, `bool` as a byte, an enum variant `k` of `n` as the
//! `u32` `v` with `(v·n) >> 32 = k`, `Option` as a `bool` then the value,
//! collections as a `true` byte before each element and a `false` byte after
//! the last, structs and tuples field by field. The input as a whole is
//! decoded "taking the rest": its last field too, recursively, and an array
//! there decodes its last element a second time from the bytes after it
//! ([`Encode::encode_last`]).

use arbitrary::{Arbitrary, Unstructured};
use core::fmt::Debug;

/// The bytes of a seed under construction.
#[derive(Default)]
pub struct Enc {
    pub bytes: Vec<u8>,
}

impl Enc {
    /// Variant `k` of an enum of `n` variants.
    pub fn variant(&mut self, k: usize, n: usize) {
        let (k, n) = (k as u64, n as u64);
        let v = ((k << 32) + n - 1) / n;
        self.bytes.extend_from_slice(&(v as u32).to_le_bytes());
    }

    /// `fields` in order, the last one as the last of the input when `last`.
    pub fn fields(&mut self, fields: &[&dyn Encode], last: bool) {
        for (i, f) in fields.iter().enumerate() {
            if last && i + 1 == fields.len() {
                f.encode_last(self)
            } else {
                f.encode(self)
            }
        }
    }
}

/// A value that writes the bytes `arbitrary` decodes back into it.
pub trait Encode {
    /// As a part of the input (`Arbitrary::arbitrary`).
    fn encode(&self, e: &mut Enc);
    /// As the last part of the input (`Arbitrary::arbitrary_take_rest`).
    fn encode_last(&self, e: &mut Enc) {
        self.encode(e)
    }
}

macro_rules! encode_le {
    ($($t:ty),*) => {
        $(impl Encode for $t {
            fn encode(&self, e: &mut Enc) {
                e.bytes.extend_from_slice(&self.to_le_bytes());
            }
        })*
    };
}
encode_le!(u8, i8, u16, i16, u32, i32, u64, i64);

impl Encode for f64 {
    fn encode(&self, e: &mut Enc) {
        self.to_bits().encode(e)
    }
}

impl Encode for bool {
    fn encode(&self, e: &mut Enc) {
        e.bytes.push(*self as u8)
    }
}

impl<T: Encode, const N: usize> Encode for [T; N] {
    fn encode(&self, e: &mut Enc) {
        self.iter().for_each(|x| x.encode(e))
    }
    fn encode_last(&self, e: &mut Enc) {
        self.encode(e);
        if let Some(x) = self.last() {
            x.encode_last(e)
        }
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, e: &mut Enc) {
        self.is_some().encode(e);
        if let Some(x) = self {
            x.encode(e)
        }
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, e: &mut Enc) {
        for x in self {
            true.encode(e);
            x.encode(e);
        }
        false.encode(e)
    }
}

impl<A: Encode, B: Encode> Encode for (A, B) {
    fn encode(&self, e: &mut Enc) {
        e.fields(&[&self.0, &self.1], false)
    }
    fn encode_last(&self, e: &mut Enc) {
        e.fields(&[&self.0, &self.1], true)
    }
}

impl<A: Encode, B: Encode, C: Encode> Encode for (A, B, C) {
    fn encode(&self, e: &mut Enc) {
        e.fields(&[&self.0, &self.1, &self.2], false)
    }
    fn encode_last(&self, e: &mut Enc) {
        e.fields(&[&self.0, &self.1, &self.2], true)
    }
}

/// `Encode` for a struct: its fields in declaration order.
macro_rules! encode_struct {
    ($t:ident $(<$($g:ident),*>)? { $($f:ident),* $(,)? }) => {
        impl$(<$($g: $crate::shared::seeds::Encode),*>)? $crate::shared::seeds::Encode for $t$(<$($g),*>)? {
            fn encode(&self, e: &mut $crate::shared::seeds::Enc) {
                e.fields(&[$(&self.$f),*], false)
            }
            fn encode_last(&self, e: &mut $crate::shared::seeds::Enc) {
                e.fields(&[$(&self.$f),*], true)
            }
        }
    };
}
pub(crate) use encode_struct;

/// `Encode` for an enum: list every variant in declaration order, with
/// names for the fields of tuple variants and the fields of struct
/// variants.
macro_rules! encode_enum {
    ($t:ident { $($v:ident $(( $($x:ident),* ))? $({ $($fx:ident),* })?),+ $(,)? }) => {
        impl $t {
            fn encode_as(&self, e: &mut $crate::shared::seeds::Enc, last: bool) {
                let names = [$(stringify!($v)),+];
                let index = |name: &str| names.iter().position(|n| *n == name).unwrap();
                match self {
                    $($t::$v $(( $($x),* ))? $({ $($fx),* })? => {
                        e.variant(index(stringify!($v)), names.len());
                        e.fields(&[$($($x as &dyn $crate::shared::seeds::Encode),*)? $($($fx as &dyn $crate::shared::seeds::Encode),*)?], last);
                    })+
                }
            }
        }

        impl $crate::shared::seeds::Encode for $t {
            fn encode(&self, e: &mut $crate::shared::seeds::Enc) {
                self.encode_as(e, false)
            }
            fn encode_last(&self, e: &mut $crate::shared::seeds::Enc) {
                self.encode_as(e, true)
            }
        }
    };
}
pub(crate) use encode_enum;

/// A deterministic generator (SplitMix64) for the seeds' choices.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    /// One of `xs`.
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

/// The environment variable naming the directory the seeds go to.
pub const SEEDS_VAR: &str = "NARROWPHASE_FUZZ_SEEDS";

/// Writes `make()`'s seeds to `$NARROWPHASE_FUZZ_SEEDS` when it is set
/// (else does nothing), after checking that each decodes to its value.
pub fn write<T>(make: impl FnOnce() -> Vec<T>)
where
    T: Encode + Debug + for<'a> Arbitrary<'a>,
{
    let Some(dir) = std::env::var_os(SEEDS_VAR) else { return };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for (i, seed) in make().iter().enumerate() {
        let mut e = Enc::default();
        seed.encode_last(&mut e);
        let back = T::arbitrary_take_rest(Unstructured::new(&e.bytes));
        let (want, got) = (format!("{seed:?}"), format!("{back:?}"));
        assert!(got == format!("Ok({want})"), "seed {i} decodes to\n{got}\nnot\nOk({want})");
        let path = dir.join(format!("seed-{i:04}"));
        std::fs::write(&path, &e.bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
