//! GPTQ (Frantar et al., 2022) for the grouped low-bit layers: weights are rounded one input column
//! at a time, and each column's rounding error is pushed onto the columns not yet rounded, weighted
//! by the inverse of the inputs' second moments `H = Xᵀ X` measured on calibration text. The
//! layer's outputs on such inputs then move much less than with plain rounding at the same bits.
//! Build time only (the browser never runs it). Hand-written: the algorithm is a few loops over a
//! Cholesky factor, and no maintained Rust crate implements it.

use super::grouped::Grid;

/// Columns rounded between two trailing updates (GPTQ's "lazy batch"): the errors of a block are
/// pushed onto the columns after it in one matrix product instead of one column at a time, which
/// turns the O(rows·in²) scalar update into a GEMM.
const BLOCK: usize = 128;

/// Rounds row-major `w` (`out` rows of `inp`) to codes of `grid` (see
/// [`super::grouped::Grid`]) with one multiplier per `group` inputs and a bf16 scale per row,
/// minimizing the output error on inputs of second moment `h` (`inp × inp`, row-major). Returns
/// int8 values `level × multiplier` and the row scales, the same layout as
/// [`super::grouped::quantize_rows_grid`]. Any grid works: each weight is rounded to its nearest
/// level and the error passed on. Falls back to plain rounding when `h` is not positive definite
/// even after damping.
pub fn quantize_gptq_grid(
    w: &[f32],
    inp: usize,
    h: &[f64],
    grid: &Grid,
    group: usize,
    precision: Option<f32>,
) -> (Vec<i8>, Vec<f32>) {
    let group = group.max(1);
    match inverse_cholesky_upper(h, inp) {
        // A block holds whole groups, so a group's multiplier is chosen on fully updated weights.
        Some(u) => round_blocked(
            w,
            inp,
            &u,
            grid,
            group,
            BLOCK.div_ceil(group) * group,
            precision,
        ),
        None => super::grouped::quantize_rows_grid(w, inp, grid, group, precision),
    }
}

/// GPTQ's rounding given the upper Cholesky factor `u` of `H⁻¹`, `block` columns (a multiple of
/// `group`) between trailing updates; `block ≥ inp` is the plain column-by-column form.
/// (Rounding the columns of largest `H` diagonal first, GPTQ's "act order" with each group's
/// multiplier fixed up front, was measured: +0.0002 of mean cosine on the sample book, not kept.)
fn round_blocked(
    w: &[f32],
    inp: usize,
    u: &[f64],
    grid: &Grid,
    group: usize,
    block: usize,
    precision: Option<f32>,
) -> (Vec<i8>, Vec<f32>) {
    let out = w.len() / inp.max(1);
    let mut work: Vec<f64> = w.iter().map(|&v| v as f64).collect();
    let mut q = vec![0i8; w.len()];
    let scales = super::grouped::row_scales(w, inp, grid, precision);
    let mut step = vec![0f64; out];
    let mut mult = vec![1i32; out];
    let block = block.max(1);
    // The scaled rounding errors of the current block, `out × block`.
    let mut errs = vec![0f64; out * block];
    for b0 in (0..inp).step_by(block) {
        let b1 = (b0 + block).min(inp);
        let width = b1 - b0;
        for j in b0..b1 {
            if j % group == 0 {
                let end = (j + group).min(inp);
                for r in 0..out {
                    let (m, s) = group_step(&work[r * inp + j..r * inp + end], scales[r], grid);
                    mult[r] = m;
                    step[r] = s;
                }
            }
            let d = u[j * inp + j];
            // Within the block the update is immediate (the next columns are rounded from it).
            let urow = &u[j * inp + j + 1..j * inp + b1];
            for r in 0..out {
                let v = work[r * inp + j];
                let (c, deq) = if step[r] > 0.0 {
                    let c = grid.snap(v / step[r]);
                    (c, c as f64 * step[r])
                } else {
                    (0, 0.0)
                };
                q[r * inp + j] = (c * mult[r]) as i8;
                let e = (v - deq) / d;
                errs[r * block + (j - b0)] = e;
                if e != 0.0 {
                    for (x, uk) in work[r * inp + j + 1..r * inp + b1].iter_mut().zip(urow) {
                        *x -= e * uk;
                    }
                }
            }
        }
        if b1 < inp {
            // work[:, b1..] -= errs (out × width) · u[b0..b1, b1..] (width × (inp − b1)).
            let rest = inp - b1;
            let ublock = &u[b0 * inp + b1..];
            super::linear::gemm(
                (out, width, rest),
                -1.0,
                (&errs[..], block as isize, 1),
                (ublock, inp as isize, 1),
                1.0,
                (&mut work[b1..], inp as isize, 1),
            );
        }
    }
    (q, scales)
}

/// The multiplier (1..=`mm`) of least squared rounding error for one group of weights, among the
/// four largest that clip little, and its step `multiplier × row scale`; step 0 for a zero row.
fn group_step(g: &[f64], row_scale: f32, grid: &Grid) -> (i32, f64) {
    let (qm, mm) = (grid.reach(), grid.max_mult());
    let base = row_scale as f64;
    if base <= 0.0 {
        return (1, 0.0);
    }
    let gmax = g.iter().fold(0f64, |m, v| m.max(v.abs()));
    let m0 = ((gmax / (qm as f64 * base)).ceil() as i32).clamp(1, mm);
    let mut best = (f64::INFINITY, m0);
    for m in (m0 - 3).max(1)..=m0 {
        let s = m as f64 * base;
        let e: f64 = g
            .iter()
            .map(|v| {
                let c = grid.snap(v / s) as f64;
                (v - c * s) * (v - c * s)
            })
            .sum();
        if e < best.0 {
            best = (e, m);
        }
    }
    (best.1, best.1 as f64 * base)
}

/// The upper Cholesky factor `U` of `H⁻¹` (`H⁻¹ = Uᵀ U`), after damping `H` by 1 % of its mean
/// diagonal (and 1 on columns that never saw an input). `None` if not positive definite.
///
/// With `J` the reversal permutation and `J H J = L Lᵀ`, `H = R Rᵀ` where `R = J L J` is upper
/// triangular, so `H⁻¹ = (R⁻¹)ᵀ R⁻¹` and `U = R⁻¹ = J L⁻¹ J`: one Cholesky factorization and one
/// triangular inverse (rather than inverting `H` and factoring the inverse).
fn inverse_cholesky_upper(h: &[f64], n: usize) -> Option<Vec<f64>> {
    if h.len() != n * n || n == 0 {
        return None;
    }
    let mean = (0..n).map(|i| h[i * n + i]).sum::<f64>() / n as f64;
    let damp = 0.01 * mean.max(1e-12);
    // J H J, damped.
    let mut a = vec![0f64; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = h[(n - 1 - i) * n + (n - 1 - j)];
        }
        if a[i * n + i] <= 0.0 {
            a[i * n + i] = 1.0;
        }
        a[i * n + i] += damp;
    }
    let l = cholesky(&a, n)?;
    let li = lower_inverse(&l, n);
    // U = J L⁻¹ J.
    let mut u = vec![0f64; n * n];
    for i in 0..n {
        for j in i..n {
            u[i * n + j] = li[(n - 1 - i) * n + (n - 1 - j)];
        }
    }
    Some(u)
}

/// Dot product in four independent sums, so that it vectorizes (a single f64 sum cannot be
/// reordered by the compiler).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0f64; 4];
    let (ac, bc) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = ac
        .remainder()
        .iter()
        .zip(bc.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ac.zip(bc) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// Rows and columns of the diagonal blocks of [`cholesky`] and [`lower_inverse`]: the work off the
/// diagonal blocks is matrix products (`gemm`), which is what makes the 1536-wide factor fast.
const FACTOR_BLOCK: usize = 96;

/// Lower Cholesky factor of a symmetric positive definite matrix (right-looking, blocked: factor a
/// diagonal block, solve the panel below it, subtract the panel's outer product from the rest).
fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut w = a.to_vec();
    let nb = FACTOR_BLOCK;
    for k0 in (0..n).step_by(nb) {
        let k1 = (k0 + nb).min(n);
        // Diagonal block, unblocked (its entries already hold every earlier block's update).
        for i in k0..k1 {
            for j in k0..=i {
                let s = dot(&w[i * n + k0..i * n + j], &w[j * n + k0..j * n + j]);
                if i == j {
                    let d = w[i * n + i] - s;
                    if d <= 0.0 || !d.is_finite() {
                        return None;
                    }
                    w[i * n + i] = d.sqrt();
                } else {
                    w[i * n + j] = (w[i * n + j] - s) / w[j * n + j];
                }
            }
        }
        // Panel below: each row r solves x · L11ᵀ = a_r by forward substitution.
        for r in k1..n {
            for j in k0..k1 {
                let s = dot(&w[r * n + k0..r * n + j], &w[j * n + k0..j * n + j]);
                w[r * n + j] = (w[r * n + j] - s) / w[j * n + j];
            }
        }
        if k1 < n {
            // Trailing block -= P Pᵀ, P the panel ((n − k1) × (k1 − k0)); a copy so the views
            // do not overlap.
            let m = n - k1;
            let width = k1 - k0;
            let panel: Vec<f64> = (k1..n)
                .flat_map(|r| w[r * n + k0..r * n + k1].iter().copied())
                .collect();
            super::linear::gemm(
                (m, width, m),
                -1.0,
                (&panel[..], width as isize, 1),
                (&panel[..], 1, width as isize),
                1.0,
                (&mut w[k1 * n + k1..], n as isize, 1),
            );
        }
    }
    // Only the lower triangle is the factor.
    for i in 0..n {
        w[i * n + i + 1..(i + 1) * n]
            .iter_mut()
            .for_each(|x| *x = 0.0);
    }
    Some(w)
}

/// The inverse of a lower triangular matrix with a positive diagonal, a block row at a time:
/// `X_ii = L_ii⁻¹` by forward substitution, and left of it `X_i,<i = −X_ii (L_i,<i X_<i,<i)`.
fn lower_inverse(l: &[f64], n: usize) -> Vec<f64> {
    let mut x = vec![0f64; n * n];
    let nb = FACTOR_BLOCK;
    let mut row = vec![0f64; nb];
    for i0 in (0..n).step_by(nb) {
        let i1 = (i0 + nb).min(n);
        let b = i1 - i0;
        // Diagonal block: forward substitution a row at a time (rows stay contiguous).
        for r in 0..b {
            row[..=r].iter_mut().for_each(|v| *v = 0.0);
            row[r] = 1.0;
            for k in 0..r {
                let f = l[(i0 + r) * n + i0 + k];
                if f != 0.0 {
                    for (v, y) in row[..=k].iter_mut().zip(&x[(i0 + k) * n + i0..]) {
                        *v -= f * y;
                    }
                }
            }
            let d = l[(i0 + r) * n + i0 + r];
            for (dst, v) in x[(i0 + r) * n + i0..(i0 + r) * n + i0 + r + 1]
                .iter_mut()
                .zip(&row[..=r])
            {
                *dst = v / d;
            }
        }
        if i0 == 0 {
            continue;
        }
        // T = L[i0..i1, 0..i0] · X[0..i0, 0..i0], then X[i0..i1, 0..i0] = −X_ii · T.
        let mut t = vec![0f64; b * i0];
        super::linear::gemm(
            (b, i0, i0),
            1.0,
            (&l[i0 * n..], n as isize, 1),
            (&x[..], n as isize, 1),
            0.0,
            (&mut t[..], i0 as isize, 1),
        );
        let xii: Vec<f64> = (i0..i1)
            .flat_map(|r| x[r * n + i0..r * n + i1].iter().copied())
            .collect();
        super::linear::gemm(
            (b, b, i0),
            -1.0,
            (&xii[..], b as isize, 1),
            (&t[..], i0 as isize, 1),
            0.0,
            (&mut x[i0 * n..], n as isize, 1),
        );
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`quantize_gptq_grid`] on the uniform grid of `bits`.
    fn quantize_gptq(
        w: &[f32],
        inp: usize,
        h: &[f64],
        bits: u8,
        group: usize,
    ) -> (Vec<i8>, Vec<f32>) {
        quantize_gptq_grid(w, inp, h, &Grid::Uniform(bits), group, None)
    }

    /// A deterministic generator of uniform values in [-1, 1).
    fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            ((seed >> 40) as f64 / (1u64 << 24) as f64) * 2.0 - 1.0
        }
    }

    /// `n` inputs of width `inp` whose columns share a common value (× `common`) plus noise
    /// (× `noise`): strongly correlated columns, as a transformer's are.
    fn correlated_inputs(
        n: usize,
        inp: usize,
        common: f32,
        noise: f32,
        rand: &mut impl FnMut() -> f64,
    ) -> Vec<f32> {
        (0..n)
            .flat_map(|_| {
                let c = rand() as f32;
                (0..inp)
                    .map(|_| c * common + rand() as f32 * noise)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// `Xᵀ X` of the inputs `xs` (rows of width `inp`).
    fn gram(xs: &[f32], inp: usize) -> Vec<f64> {
        let mut h = vec![0f64; inp * inp];
        for x in xs.chunks_exact(inp) {
            for i in 0..inp {
                for j in 0..inp {
                    h[i * inp + j] += x[i] as f64 * x[j] as f64;
                }
            }
        }
        h
    }

    /// Output error `Σ_t |x_t · (w − q)ᵀ|²` of a quantized matrix on the inputs `xs`.
    fn output_error(w: &[f32], q: &[i8], s: &[f32], inp: usize, xs: &[f32]) -> f64 {
        let mut total = 0.0;
        for x in xs.chunks_exact(inp) {
            for (r, row) in w.chunks_exact(inp).enumerate() {
                let e: f64 = (0..inp)
                    .map(|k| (row[k] - q[r * inp + k] as f32 * s[r]) as f64 * x[k] as f64)
                    .sum();
                total += e * e;
            }
        }
        total
    }

    #[test]
    fn gptq_beats_plain_rounding_on_correlated_inputs() {
        let (out, inp, n) = (6, 32, 200);
        let mut rand = uniform(7);
        let w: Vec<f32> = (0..out * inp).map(|_| rand() as f32).collect();
        let xs = correlated_inputs(n, inp, 2.0, 0.3, &mut rand);
        let h = gram(&xs, inp);
        let (q1, s1) = super::super::grouped::quantize_rows_grouped(&w, inp, 3, 16);
        let (q2, s2) = quantize_gptq(&w, inp, &h, 3, 16);
        let plain = output_error(&w, &q1, &s1, inp, &xs);
        let gptq = output_error(&w, &q2, &s2, inp, &xs);
        assert!(gptq < plain * 0.7, "gptq {gptq} vs plain {plain}");
        // Same layout: the grouped writer accepts it.
        assert!(super::super::Grouped::from_i8(&q2, &s2, inp, 3, 16).is_some());
    }

    #[test]
    fn blocked_updates_give_the_column_by_column_result() {
        let (out, inp, n) = (24, 320, 600);
        let mut rand = uniform(11);
        let w: Vec<f32> = (0..out * inp).map(|_| rand() as f32).collect();
        let xs = correlated_inputs(n, inp, 1.0, 0.5, &mut rand);
        let h = gram(&xs, inp);
        let u = inverse_cholesky_upper(&h, inp).unwrap();
        // 320 columns: two full blocks of 128 and a short one.
        let plain = round_blocked(&w, inp, &u, &Grid::Uniform(4), 32, inp, None);
        let blocked = round_blocked(&w, inp, &u, &Grid::Uniform(4), 32, 128, None);
        assert_eq!(plain.1, blocked.1);
        // Same codes up to float rounding: a value sitting on a rounding boundary may flip.
        let differ = plain
            .0
            .iter()
            .zip(&blocked.0)
            .filter(|(a, b)| a != b)
            .count();
        assert!(differ * 1000 <= plain.0.len(), "{differ} codes differ");
        assert_eq!(quantize_gptq(&w, inp, &h, 4, 32), blocked);
    }

    #[test]
    fn blocked_factor_inverts_a_matrix_wider_than_a_block() {
        let n = 2 * FACTOR_BLOCK + 37;
        let mut rand = uniform(5);
        // H = B Bᵀ + n I: symmetric positive definite.
        let bm: Vec<f64> = (0..n * n).map(|_| rand()).collect();
        let mut h = vec![0f64; n * n];
        for i in 0..n {
            for j in 0..n {
                h[i * n + j] = (0..n).map(|k| bm[i * n + k] * bm[j * n + k]).sum::<f64>()
                    + if i == j { n as f64 } else { 0.0 };
            }
        }
        let u = inverse_cholesky_upper(&h, n).unwrap();
        let mean = (0..n).map(|i| h[i * n + i]).sum::<f64>() / n as f64;
        // (Uᵀ U) · (H + damping) = I.
        let mut inv = vec![0f64; n * n];
        for i in 0..n {
            for j in 0..n {
                inv[i * n + j] = (0..=i.min(j)).map(|k| u[k * n + i] * u[k * n + j]).sum();
            }
        }
        for i in 0..n {
            assert!(
                (0..i).all(|j| u[i * n + j] == 0.0),
                "U is not upper triangular"
            );
            for j in 0..n {
                let v: f64 = (0..n)
                    .map(|k| {
                        let a = h[i * n + k] + if i == k { 0.01 * mean } else { 0.0 };
                        a * inv[k * n + j]
                    })
                    .sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((v - want).abs() < 1e-8, "({i}, {j}): {v}");
            }
        }
    }

    #[test]
    fn inverse_factor_is_exact_on_a_small_matrix() {
        let h = [4.0, 1.0, 1.0, 3.0];
        // Undo the 1 % damping: the check is on the damped matrix.
        let u = inverse_cholesky_upper(&h, 2).unwrap();
        let damp = 0.01 * 3.5;
        let a = [4.0 + damp, 1.0, 1.0, 3.0 + damp];
        // Uᵀ U must be A⁻¹: check A · (Uᵀ U) = I.
        let mut inv = [0f64; 4];
        for i in 0..2 {
            for j in 0..2 {
                inv[i * 2 + j] = (0..2).map(|k| u[k * 2 + i] * u[k * 2 + j]).sum();
            }
        }
        for i in 0..2 {
            for j in 0..2 {
                let v: f64 = (0..2).map(|k| a[i * 2 + k] * inv[k * 2 + j]).sum();
                assert!((v - if i == j { 1.0 } else { 0.0 }).abs() < 1e-9);
            }
        }
    }
}
