//! Images with a controlled MI (after Lee & Rhee 2024, *A Benchmark Suite for Evaluating Neural
//! Mutual Information Estimators on Unstructured Datasets*): pairs of 8 × 8 digit images whose
//! classes pass through a noisy label channel.
//!
//! `C` is uniform on the `K = 10` classes; `C' = C` with probability `1 − ε`, otherwise uniform on
//! the nine other classes. `X` is an image of class `C` and `Y` an image of class `C'`, each drawn
//! uniformly from its class, independently given the classes. No image occurs in two classes
//! ([`Digits::class_of`] is a function; checked when the data are made and tested), so `X`
//! determines `C` and `Y` determines `C'`, and
//!
//! `I(X; Y) = I(C; C') = log K + (1 − ε) log(1 − ε) + ε log(ε / (K − 1))`
//!
//! exactly (the data processing inequality holds with equality both ways). The `pairs = 2`
//! version puts two independent such pairs side by side (128 + 128 pixels): twice the MI.
//!
//! The images are scikit-learn's bundled digits (`sklearn.datasets.load_digits`, the UCI
//! optical-recognition test set: 1797 images, pixels 0..16; BSD-3-Clause), stored in
//! `src/tasks/data/digits.bin` by `scripts/make_digits.py` (format described there).

use crate::data::Sampler;
use crate::error::{Error, Result};
use crate::rng::Rng;
use nalgebra::DMatrix;
use rand::RngExt;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Number of classes.
pub const CLASSES: usize = 10;
/// Pixels per image.
pub const PIXELS: usize = 64;

const DATA: &[u8] = include_bytes!("data/digits.bin");

/// The decoded image set: pixels (0..16) and class of every image, the images of each class and
/// the class of every distinct image.
pub struct DigitImages {
    /// Every image's 64 pixels, row-major.
    pub images: Vec<[u8; PIXELS]>,
    /// Every image's class.
    pub labels: Vec<u8>,
    by_class: Vec<Vec<usize>>,
    class_of: HashMap<[u8; PIXELS], u8>,
}

/// Decodes `data/digits.bin` (checked magic, length and pixel range; the file is part of the
/// crate, so a bad file is a build defect and panics here, in every test).
fn decode() -> DigitImages {
    assert_eq!(&DATA[..8], b"MIDIGITS", "digits.bin: bad magic");
    let n = u16::from_le_bytes([DATA[8], DATA[9]]) as usize;
    let labels = DATA[10..10 + n].to_vec();
    let bits = &DATA[10 + n..];
    assert_eq!(bits.len(), (n * PIXELS * 5).div_ceil(8), "digits.bin: wrong length");
    let bit = |k: usize| (bits[k / 8] >> (7 - k % 8)) & 1;
    let mut images = Vec::with_capacity(n);
    for i in 0..n {
        let mut img = [0u8; PIXELS];
        for (p, v) in img.iter_mut().enumerate() {
            let k0 = (i * PIXELS + p) * 5;
            *v = (0..5).fold(0, |a, b| (a << 1) | bit(k0 + b));
            assert!(*v <= 16, "digits.bin: pixel {v} > 16");
        }
        images.push(img);
    }
    let mut by_class = vec![Vec::new(); CLASSES];
    let mut class_of = HashMap::new();
    for (i, (img, &c)) in images.iter().zip(&labels).enumerate() {
        assert!((c as usize) < CLASSES, "digits.bin: label {c}");
        by_class[c as usize].push(i);
        let prev = class_of.insert(*img, c);
        assert!(prev.is_none_or(|p| p == c), "digits.bin: an image in two classes");
    }
    DigitImages { images, labels, by_class, class_of }
}

/// The bundled digit images (decoded once).
pub fn digit_images() -> &'static DigitImages {
    static IMAGES: OnceLock<DigitImages> = OnceLock::new();
    IMAGES.get_or_init(decode)
}

impl DigitImages {
    /// The images of class `c`, as indices.
    pub fn class(&self, c: usize) -> &[usize] {
        &self.by_class[c]
    }

    /// The class of an image given as 64 floats, if it is one of the bundled images.
    pub fn class_of(&self, v: &[f64]) -> Option<usize> {
        let mut img = [0u8; PIXELS];
        for (p, &a) in img.iter_mut().zip(v) {
            if !(0.0..=16.0).contains(&a) || a.fract() != 0.0 {
                return None;
            }
            *p = a as u8;
        }
        self.class_of.get(&img).map(|&c| c as usize)
    }
}

/// `I(C; C')` of the noisy label channel with `K` classes and flip probability `ε`
/// (`0 log 0 = 0`).
pub fn label_channel_mi(k: usize, eps: f64) -> f64 {
    let xlx = |p: f64, q: f64| if p > 0.0 { p * q.ln() } else { 0.0 };
    (k as f64).ln() + xlx(1.0 - eps, 1.0 - eps) + xlx(eps, eps / (k as f64 - 1.0))
}

/// `pairs` independent (image, image) pairs side by side, classes through the label channel
/// with flip probability `ε`.
#[derive(Clone, Debug, PartialEq)]
pub struct Digits {
    eps: f64,
    pairs: usize,
}

impl Digits {
    /// `0 ≤ ε ≤ 1`, `pairs ≥ 1`.
    pub fn new(eps: f64, pairs: usize) -> Result<Self> {
        if !(0.0..=1.0).contains(&eps) {
            return Err(Error::param("label flip probability ε", eps, "must lie in [0, 1]"));
        }
        if pairs == 0 {
            return Err(Error::param("pairs", pairs, "must be at least 1"));
        }
        Ok(Digits { eps, pairs })
    }

    /// `log P(C' = b | C = a) − log P(C' = b)`.
    fn log_ratio(&self, a: usize, b: usize) -> f64 {
        let p = if a == b { 1.0 - self.eps } else { self.eps / (CLASSES as f64 - 1.0) };
        (p * CLASSES as f64).ln()
    }

    fn classes(&self, m: &DMatrix<f64>) -> Option<Vec<Vec<usize>>> {
        let imgs = digit_images();
        m.row_iter()
            .map(|r| {
                let v: Vec<f64> = r.iter().copied().collect();
                v.chunks(PIXELS).map(|c| imgs.class_of(c)).collect()
            })
            .collect()
    }
}

impl Sampler for Digits {
    fn name(&self) -> String {
        format!("digits(eps={}, pairs={})", self.eps, self.pairs)
    }
    fn dim_x(&self) -> usize {
        PIXELS * self.pairs
    }
    fn dim_y(&self) -> usize {
        PIXELS * self.pairs
    }
    fn true_mi(&self) -> f64 {
        self.pairs as f64 * label_channel_mi(CLASSES, self.eps)
    }

    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let n = x.nrows();
        assert_eq!((x.ncols(), y.nrows(), y.ncols()), (self.dim_x(), n, self.dim_y()), "sample buffers");
        let imgs = digit_images();
        for i in 0..n {
            for p in 0..self.pairs {
                let c = rng.random_range(0..CLASSES);
                let u: f64 = rng.random();
                let c2 = if u < self.eps { (c + 1 + rng.random_range(0..CLASSES - 1)) % CLASSES } else { c };
                for (cls, out) in [(c, &mut *x), (c2, &mut *y)] {
                    let members = imgs.class(cls);
                    let img = &imgs.images[members[rng.random_range(0..members.len())]];
                    for (k, &v) in img.iter().enumerate() {
                        out[(i, p * PIXELS + k)] = v as f64;
                    }
                }
            }
        }
    }

    /// `S_ij = Σ_pairs log(K · P(C' = c(y_j) | C = c(x_i)))` with `c(·)` the class of an image;
    /// `None` when a row is not made of bundled images.
    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        let (cx, cy) = (self.classes(x)?, self.classes(y)?);
        Some(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| {
            cx[i].iter().zip(&cy[j]).map(|(&a, &b)| self.log_ratio(a, b)).sum()
        }))
    }
}
