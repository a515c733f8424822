//! The contrastive-learning objectives built on InfoNCE — SimCLR's NT-Xent, CLIP's symmetric
//! loss, supervised contrastive (SupCon), the debiased and hard-negative losses — and the
//! metric-learning losses (triplet, margin), as losses to **minimise** with exact gradients.
//!
//! Score-level losses take a similarity matrix `S` (already divided by the temperature) and
//! return `(loss, ∂loss/∂S)`; embedding-level ones take embeddings (one row per sample). All are
//! checked against finite differences (tests/contrastive.rs).

use crate::error::{Error, Result};
use crate::numerics::{log_mean_exp, log_sum_exp, softmax_in_place};
use nalgebra::DMatrix;

fn check_square(s: &DMatrix<f64>, what: &str) -> Result<usize> {
    if s.nrows() != s.ncols() || s.nrows() < 2 {
        return Err(Error::Shape {
            what: what.into(),
            expected: "square, N ≥ 2".into(),
            got: format!("{} × {}", s.nrows(), s.ncols()),
        });
    }
    Ok(s.nrows())
}

/// `ln Σ_{j ∈ J} e^{v_j}` and the softmax weights over `J` (other entries 0), for one row.
fn row_softmax(row: impl Iterator<Item = (usize, f64)> + Clone, n: usize) -> (f64, Vec<f64>) {
    let lse = log_sum_exp(row.clone().map(|(_, v)| v));
    let mut w = vec![0.0; n];
    for (j, v) in row {
        w[j] = (v - lse).exp();
    }
    (lse, w)
}

/// Cosine similarities divided by a temperature: `S_ij = q̂_iᵀ k̂_j / τ` with `q̂ = q/‖q‖`
/// (MoCo/SimCLR). Returns `S` and a closure-free backward via [`cosine_backward`].
pub fn cosine_scores(q: &DMatrix<f64>, k: &DMatrix<f64>, tau: f64) -> Result<DMatrix<f64>> {
    if q.ncols() != k.ncols() || tau.is_nan() || tau <= 0.0 {
        return Err(Error::param(
            "cosine scores",
            format!("dims {} vs {}, τ = {tau}", q.ncols(), k.ncols()),
            "need equal widths and τ > 0",
        ));
    }
    let (qh, kh) = (normalise_rows(q), normalise_rows(k));
    Ok(&qh * kh.transpose() / tau)
}

fn normalise_rows(m: &DMatrix<f64>) -> DMatrix<f64> {
    let mut out = m.clone();
    for mut r in out.row_iter_mut() {
        let n = r.norm().max(1e-12);
        r /= n;
    }
    out
}

/// Backward of [`cosine_scores`]: given `∂L/∂S`, returns `(∂L/∂q, ∂L/∂k)`.
pub fn cosine_backward(
    q: &DMatrix<f64>,
    k: &DMatrix<f64>,
    tau: f64,
    ds: &DMatrix<f64>,
) -> (DMatrix<f64>, DMatrix<f64>) {
    let (qh, kh) = (normalise_rows(q), normalise_rows(k));
    let dqh = ds * &kh / tau;
    let dkh = ds.transpose() * &qh / tau;
    let back = |x: &DMatrix<f64>, xh: &DMatrix<f64>, d: DMatrix<f64>| {
        let mut out = d;
        for i in 0..x.nrows() {
            let n = x.row(i).norm().max(1e-12);
            let dot = out.row(i).dot(&xh.row(i));
            let r = (out.row(i) - xh.row(i) * dot) / n;
            out.set_row(i, &r);
        }
        out
    };
    (back(q, &qh, dqh), back(k, &kh, dkh))
}

/// NT-Xent (Chen et al. 2020, SimCLR) on the `2N × 2N` similarity matrix of `2N` views, where
/// view `i` and view `i + N` (mod 2N) are positives:
/// `L = mean_i [ −S_{i,p(i)} + log Σ_{k≠i} e^{S_ik} ]`. Each anchor is classified against its
/// partner and the `2N − 2` other views: InfoNCE over the `2N − 1` candidates of each row.
pub fn nt_xent(s: &DMatrix<f64>) -> Result<(f64, DMatrix<f64>)> {
    let m = check_square(s, "NT-Xent similarities")?;
    if m % 2 != 0 {
        return Err(Error::param("NT-Xent views", m, "need an even number 2N of views"));
    }
    let half = m / 2;
    let mut grad = DMatrix::zeros(m, m);
    let mut loss = 0.0;
    for i in 0..m {
        let p = (i + half) % m;
        let (lse, w) = row_softmax((0..m).filter(|&k| k != i).map(|k| (k, s[(i, k)])), m);
        loss += lse - s[(i, p)];
        for k in 0..m {
            grad[(i, k)] = w[k] / m as f64;
        }
        grad[(i, p)] -= 1.0 / m as f64;
    }
    Ok((loss / m as f64, grad))
}

/// CLIP's symmetric loss (Radford et al. 2021): the cross-entropy of matching image i to text i
/// over the rows and over the columns, averaged:
/// `L = ½ mean_i [lse_j S_ij − S_ii] + ½ mean_j [lse_i S_ij − S_jj]`.
pub fn clip_loss(s: &DMatrix<f64>) -> Result<(f64, DMatrix<f64>)> {
    let n = check_square(s, "CLIP similarities")?;
    let mut grad = DMatrix::zeros(n, n);
    let mut loss = 0.0;
    for i in 0..n {
        let (lse_r, wr) = row_softmax((0..n).map(|j| (j, s[(i, j)])), n);
        let (lse_c, wc) = row_softmax((0..n).map(|j| (j, s[(j, i)])), n);
        loss += 0.5 * (lse_r - s[(i, i)]) + 0.5 * (lse_c - s[(i, i)]);
        for j in 0..n {
            grad[(i, j)] += 0.5 * wr[j] / n as f64;
            grad[(j, i)] += 0.5 * wc[j] / n as f64;
        }
        grad[(i, i)] -= 1.0 / n as f64;
    }
    Ok((loss / n as f64, grad))
}

/// Which SupCon variant (Khosla et al. 2020, eqs. 2 and 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SupConVariant {
    /// `L_out`: the average over positives outside the log (the better one in the paper).
    Out,
    /// `L_in`: the average over positives inside the log.
    In,
}

/// Supervised contrastive loss on a similarity matrix with labels. For anchor `i`,
/// `A(i)` = all other samples, `P(i)` = the others with the same label:
///
/// ```text
/// L_out = mean_i −(1/|P(i)|) Σ_{p∈P(i)} log( e^{S_ip} / Σ_{a∈A(i)} e^{S_ia} )
/// L_in  = mean_i −log( (1/|P(i)|) Σ_{p∈P(i)} e^{S_ip} / Σ_{a∈A(i)} e^{S_ia} )
/// ```
///
/// Anchors without a positive are skipped (the mean is over anchors that have one).
pub fn supcon(s: &DMatrix<f64>, labels: &[usize], variant: SupConVariant) -> Result<(f64, DMatrix<f64>)> {
    let n = check_square(s, "SupCon similarities")?;
    if labels.len() != n {
        return Err(Error::Shape {
            what: "SupCon labels".into(),
            expected: format!("{n}"),
            got: format!("{}", labels.len()),
        });
    }
    let mut grad = DMatrix::zeros(n, n);
    let (mut loss, mut anchors) = (0.0, 0usize);
    let mut rows = Vec::new();
    for i in 0..n {
        let pos: Vec<usize> = (0..n).filter(|&p| p != i && labels[p] == labels[i]).collect();
        if pos.is_empty() {
            continue;
        }
        anchors += 1;
        let (lse, w) = row_softmax((0..n).filter(|&a| a != i).map(|a| (a, s[(i, a)])), n);
        let np = pos.len() as f64;
        match variant {
            SupConVariant::Out => {
                loss += pos.iter().map(|&p| lse - s[(i, p)]).sum::<f64>() / np;
                rows.push((i, w, pos.iter().map(|&p| (p, 1.0 / np)).collect::<Vec<_>>()));
            }
            SupConVariant::In => {
                let (lse_p, wp) = row_softmax(pos.iter().map(|&p| (p, s[(i, p)])), n);
                loss += lse - (lse_p - np.ln());
                rows.push((i, w, pos.iter().map(|&p| (p, wp[p])).collect()));
            }
        }
    }
    if anchors == 0 {
        return Err(Error::param("SupCon labels", "(no pairs)", "no anchor has a positive of the same label"));
    }
    let a = anchors as f64;
    for (i, w, pos) in rows {
        for k in 0..n {
            grad[(i, k)] += w[k] / a;
        }
        for (p, wt) in pos {
            grad[(i, p)] -= wt / a;
        }
    }
    Ok((loss / a, grad))
}

/// The debiased contrastive loss (Chuang et al. 2020) for one anchor: positive score `s⁺`,
/// `N` negative scores and `M` extra positive scores (all already divided by τ), class prior
/// `η⁺`:
///
/// ```text
/// g = max( (1/(1−η⁺)) · ( mean_j e^{s⁻_j} − η⁺ · mean_k e^{s⁺_k} ),  e^{−1/τ} )
/// L = −log( e^{s⁺} / (e^{s⁺} + N·g) )
/// ```
///
/// Returns `(L, ∂L/∂s⁺, ∂L/∂s⁻, ∂L/∂s⁺_extra)`. With `η⁺ = 0` and `g` above its floor this is
/// InfoNCE's `−log(e^{s⁺}/(e^{s⁺} + Σ_j e^{s⁻_j}))`. With given importance weights `w_j` the
/// negative mean becomes `mean_j w_j e^{s⁻_j}` and the weights are constants for the gradient;
/// for Robinson et al.'s hard negatives use [`hard_negative`], which can differentiate through
/// them. Every exponential is shifted by the largest score, so scores of any magnitude are safe.
pub fn debiased(
    s_pos: f64,
    s_neg: &[f64],
    s_pos_extra: &[f64],
    eta: f64,
    tau: f64,
    weights: Option<&[f64]>,
) -> Result<(f64, f64, Vec<f64>, Vec<f64>)> {
    if let Some(w) = weights
        && w.len() != s_neg.len()
    {
        return Err(Error::Shape {
            what: "debiased weights".into(),
            expected: format!("{}", s_neg.len()),
            got: format!("{}", w.len()),
        });
    }
    debiased_impl(s_pos, s_neg, s_pos_extra, eta, tau, weights, None)
}

/// How the hard-negative importance weights enter the gradient.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightGradient {
    /// The gradient flows through the weights, as in Robinson et al.'s implementation
    /// (`imp = exp(β·log neg)` is not detached in their `hcl` code). The default.
    #[default]
    Through,
    /// The weights are constants for the gradient (`imp.detach()`), the estimator's reading as
    /// an importance-sampling estimate of `E_{q_β}[e^{s⁻}]` with a fixed proposal.
    Detached,
}

/// The hard-negative contrastive loss (Robinson et al. 2021): [`debiased`] with importance
/// weights `w_j = e^{β s⁻_j} / mean_k e^{β s⁻_k}` (mean 1, [`hard_negative_weights`]), so the
/// negative term is `mean_j w_j e^{s⁻_j} = Σ_j e^{(1+β)s⁻_j} / Σ_k e^{β s⁻_k}`. With
/// [`WeightGradient::Through`] (the paper's code) its derivative is
/// `(w_j/N)·[(1 + β) e^{s⁻_j} − β·mean_k w_k e^{s⁻_k}]`; with [`WeightGradient::Detached`] it is
/// `(w_j/N)·e^{s⁻_j}`. Returns `(L, ∂L/∂s⁺, ∂L/∂s⁻, ∂L/∂s⁺_extra)`.
pub fn hard_negative(
    s_pos: f64,
    s_neg: &[f64],
    s_pos_extra: &[f64],
    eta: f64,
    tau: f64,
    beta: f64,
    gradient: WeightGradient,
) -> Result<(f64, f64, Vec<f64>, Vec<f64>)> {
    if !beta.is_finite() {
        return Err(Error::param("hard-negative β", beta, "must be finite"));
    }
    let w = hard_negative_weights(s_neg, beta);
    let through = (gradient == WeightGradient::Through).then_some(beta);
    debiased_impl(s_pos, s_neg, s_pos_extra, eta, tau, Some(&w), through)
}

/// [`debiased`] with optional weights; `through = Some(β)` differentiates through weights
/// `w_j ∝ e^{β s⁻_j}`. All exponentials are taken relative to the largest score `M`.
fn debiased_impl(
    s_pos: f64,
    s_neg: &[f64],
    s_pos_extra: &[f64],
    eta: f64,
    tau: f64,
    weights: Option<&[f64]>,
    through: Option<f64>,
) -> Result<(f64, f64, Vec<f64>, Vec<f64>)> {
    let (n, m) = (s_neg.len(), s_pos_extra.len());
    if n == 0 || !(0.0..1.0).contains(&eta) || (eta > 0.0 && m == 0) || tau.is_nan() || tau <= 0.0 {
        return Err(Error::param(
            "debiased loss",
            format!("N = {n}, M = {m}, η⁺ = {eta}, τ = {tau}"),
            "need N ≥ 1, 0 ≤ η⁺ < 1, M ≥ 1 when η⁺ > 0, τ > 0",
        ));
    }
    let big = s_neg.iter().chain(s_pos_extra).fold(s_pos, |a, &b| a.max(b));
    let w = |j: usize| weights.map_or(1.0, |w| w[j]);
    // Everything below is the true quantity times e^{−M}; `big` is M.
    let en: Vec<f64> = s_neg.iter().map(|v| (v - big).exp()).collect();
    let ee: Vec<f64> = s_pos_extra.iter().map(|v| (v - big).exp()).collect();
    let neg = (0..n).map(|j| w(j) * en[j]).sum::<f64>() / n as f64;
    let pos = if m > 0 { ee.iter().sum::<f64>() / m as f64 } else { 0.0 };
    let raw = (neg - eta * pos) / (1.0 - eta);
    let floor = (-1.0 / tau - big).exp();
    let clamped = raw < floor;
    let g = if clamped { floor } else { raw };
    let (ep, ng) = ((s_pos - big).exp(), n as f64 * g);
    let loss = (ep + ng).ln() + big - s_pos;
    let d_pos = -1.0 + ep / (ep + ng);
    let dg = n as f64 / (ep + ng);
    let (mut d_neg, mut d_extra) = (vec![0.0; n], vec![0.0; m]);
    if !clamped {
        for j in 0..n {
            let d_mean = match through {
                None => w(j) * en[j],
                Some(beta) => w(j) * ((1.0 + beta) * en[j] - beta * neg),
            };
            d_neg[j] = dg * d_mean / (n as f64 * (1.0 - eta));
        }
        for k in 0..m {
            d_extra[k] = -dg * eta * ee[k] / (m as f64 * (1.0 - eta));
        }
    }
    Ok((loss, d_pos, d_neg, d_extra))
}

/// Hard-negative importance weights (Robinson et al. 2021): `w_j ∝ e^{β s⁻_j}`, normalised to
/// mean 1, so `mean_j w_j e^{s⁻_j}` estimates `E_{q_β}[e^{s⁻}]` with `q_β ∝ e^{β s} p⁻`. Whether
/// the gradient flows through them is [`hard_negative`]'s choice ([`WeightGradient`]).
pub fn hard_negative_weights(s_neg: &[f64], beta: f64) -> Vec<f64> {
    let mut w: Vec<f64> = s_neg.iter().map(|&v| beta * v).collect();
    softmax_in_place(&mut w);
    let len = w.len() as f64;
    w.into_iter().map(|v| v * len).collect()
}

/// How triplets are mined within a batch (Schroff et al. 2015).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mining {
    /// Every (anchor, positive, negative) triplet.
    All,
    /// For each (anchor, positive), the closest negative.
    Hard,
    /// For each (anchor, positive), the closest negative farther than the positive
    /// (`d(a,p) < d(a,n) < d(a,p) + α`), else the hardest one.
    SemiHard,
}

/// The triplet loss `mean max(0, ‖a − p‖² − ‖a − n‖² + α)` over the mined triplets of a batch of
/// embeddings `e` (rows) with labels. Returns `(loss, ∂loss/∂e)`.
pub fn triplet(e: &DMatrix<f64>, labels: &[usize], margin: f64, mining: Mining) -> Result<(f64, DMatrix<f64>)> {
    let n = e.nrows();
    if labels.len() != n {
        return Err(Error::Shape {
            what: "triplet labels".into(),
            expected: format!("{n}"),
            got: format!("{}", labels.len()),
        });
    }
    let d2 = |i: usize, j: usize| (e.row(i) - e.row(j)).norm_squared();
    let mut triplets = Vec::new();
    for a in 0..n {
        for p in (0..n).filter(|&p| p != a && labels[p] == labels[a]) {
            let negs: Vec<usize> = (0..n).filter(|&k| labels[k] != labels[a]).collect();
            let dap = d2(a, p);
            let hardest = negs.iter().copied().min_by(|&x, &y| d2(a, x).total_cmp(&d2(a, y)));
            match mining {
                Mining::All => triplets.extend(negs.iter().map(|&k| (a, p, k))),
                Mining::Hard => triplets.extend(hardest.map(|k| (a, p, k))),
                Mining::SemiHard => {
                    let semi = negs
                        .iter()
                        .copied()
                        .filter(|&k| d2(a, k) > dap && d2(a, k) < dap + margin)
                        .min_by(|&x, &y| d2(a, x).total_cmp(&d2(a, y)));
                    triplets.extend(semi.or(hardest).map(|k| (a, p, k)));
                }
            }
        }
    }
    if triplets.is_empty() {
        return Err(Error::param("triplet batch", "(no triplets)", "needs two samples of a class and one of another"));
    }
    let mut grad = DMatrix::zeros(n, e.ncols());
    let mut loss = 0.0;
    let t = triplets.len() as f64;
    for &(a, p, k) in &triplets {
        let v = d2(a, p) - d2(a, k) + margin;
        if v > 0.0 {
            loss += v;
            // ∂/∂a = 2(a − p) − 2(a − n) = 2(n − p); ∂/∂p = −2(a − p); ∂/∂n = 2(a − n).
            let (ea, ep, en) = (e.row(a).into_owned(), e.row(p).into_owned(), e.row(k).into_owned());
            let ga = (&en - &ep) * (2.0 / t);
            let gp = (&ep - &ea) * (2.0 / t);
            let gn = (&ea - &en) * (2.0 / t);
            for (row, g) in [(a, ga), (p, gp), (k, gn)] {
                let r = grad.row(row) + g;
                grad.set_row(row, &r);
            }
        }
    }
    Ok((loss / t, grad))
}

/// The contrastive (margin) loss of Hadsell, Chopra & LeCun 2006 for pairs of embeddings
/// (row `i` of `e1` with row `i` of `e2`), `Y_i = 0` for similar and `1` for dissimilar pairs:
/// `L = mean_i [(1 − Y)·½D² + Y·½ max(0, m − D)²]`, `D = ‖e1_i − e2_i‖`. Returns
/// `(L, ∂L/∂e1, ∂L/∂e2)`.
pub fn margin_loss(
    e1: &DMatrix<f64>,
    e2: &DMatrix<f64>,
    dissimilar: &[bool],
    m: f64,
) -> Result<(f64, DMatrix<f64>, DMatrix<f64>)> {
    if e1.shape() != e2.shape() || dissimilar.len() != e1.nrows() {
        return Err(Error::Shape {
            what: "margin-loss pairs".into(),
            expected: format!("{:?} twice and {} labels", e1.shape(), e1.nrows()),
            got: format!("{:?}, {}", e2.shape(), dissimilar.len()),
        });
    }
    let n = e1.nrows() as f64;
    let (mut g1, mut g2) = (DMatrix::zeros(e1.nrows(), e1.ncols()), DMatrix::zeros(e1.nrows(), e1.ncols()));
    let mut loss = 0.0;
    for (i, &far) in dissimilar.iter().enumerate() {
        let diff = e1.row(i) - e2.row(i);
        let d = diff.norm();
        let g = if far {
            let h = (m - d).max(0.0);
            loss += 0.5 * h * h;
            // ∂(½h²)/∂e1 = −h · diff/D.
            if h > 0.0 && d > 0.0 { diff * (-h / d) } else { diff * 0.0 }
        } else {
            loss += 0.5 * d * d;
            diff.clone_owned()
        };
        g1.set_row(i, &(&g / n));
        g2.set_row(i, &(-g / n));
    }
    Ok((loss / n, g1, g2))
}

/// Alignment (Wang & Isola 2020): `E ‖f(x) − f(x⁺)‖^α` over positive pairs (rows of `a`, `b`).
pub fn alignment(a: &DMatrix<f64>, b: &DMatrix<f64>, alpha: f64) -> f64 {
    (0..a.nrows()).map(|i| (a.row(i) - b.row(i)).norm().powf(alpha)).sum::<f64>() / a.nrows() as f64
}

/// Uniformity (Wang & Isola 2020): `log E e^{−t‖f(x) − f(y)‖²}` over distinct pairs of rows.
pub fn uniformity(e: &DMatrix<f64>, t: f64) -> f64 {
    let n = e.nrows();
    let v: Vec<f64> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .map(|(i, j)| -t * (e.row(i) - e.row(j)).norm_squared())
        .collect();
    log_mean_exp(v.iter().copied())
}

/// The weight InfoNCE's gradient puts on each negative, with the positive in the denominator
/// as in the loss `L = −log( e^{s⁺/τ} / (e^{s⁺/τ} + Σ_k e^{s⁻_k/τ}) )` (Wang & Liu 2021):
///
/// ```text
/// ∂L/∂s⁻_j = (1/τ) · e^{s⁻_j/τ} / (e^{s⁺/τ} + Σ_k e^{s⁻_k/τ})
/// ```
///
/// With a small τ it concentrates on the hardest negatives. Computed in log space (max-shifted).
pub fn negative_weights(s_pos: f64, s_neg: &[f64], tau: f64) -> Vec<f64> {
    let lse = log_sum_exp(std::iter::once(s_pos).chain(s_neg.iter().copied()).map(|v| v / tau));
    s_neg.iter().map(|&v| (v / tau - lse).exp() / tau).collect()
}
