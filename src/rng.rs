//! Random numbers: the crate's seeded generator and the helpers every layer shares.
//!
//! Everything random in mibound takes a seed or a generator: the same seed gives the same
//! numbers on every platform. Functions that only draw accept any generator (`&mut dyn Rng`, or
//! `R: Rng + ?Sized`); state that must survive a checkpoint keeps the concrete [`Xoshiro`].

pub use rand::Rng;
use rand::{RngExt, SeedableRng};

/// The crate's generator: xoshiro256++, fast, serialisable and reproducible across platforms.
pub type Xoshiro = rand_xoshiro::Xoshiro256PlusPlus;

/// A generator seeded from a `u64`: the same seed gives the same stream.
pub fn rng(seed: u64) -> Xoshiro {
    Xoshiro::seed_from_u64(seed)
}

/// Fisher–Yates shuffle.
pub fn shuffle<T, R: Rng + ?Sized>(v: &mut [T], rng: &mut R) {
    for i in (1..v.len()).rev() {
        let j = rng.random_range(0..=i);
        v.swap(i, j);
    }
}

/// A child seed for the random thing called `label` (a critic, a batch list, a fold split) of
/// a computation seeded with `parent`: FNV-1a over the label's bytes and the parent's, so
/// children with different labels get unrelated streams and a child depends on nothing but its
/// parent and its label (a bound estimated alone gets the critic it gets in company).
pub fn derive_seed(parent: u64, label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes().chain(parent.to_le_bytes()) {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
