//! Dense layers of the encoder in two precisions: f32 (the index builder embeds the book with the
//! exact model) and int8 with one scale per output row (what ships to the browser).

/// `y = x · Wᵀ + b` for a row-major weight matrix of `out` rows by `inp` columns.
#[derive(Debug, Clone)]
pub enum Linear {
    /// Exact weights, used natively at build time.
    F32 {
        /// Weights, `out` rows of `inp` values.
        w: Vec<f32>,
        /// Bias, one per output.
        b: Vec<f32>,
        /// Output width.
        out: usize,
        /// Input width.
        inp: usize,
    },
    /// Symmetric int8 weights, `w[j][k] ≈ q[j][k] * scale[j]`; activations are quantized per row on the fly.
    I8 {
        /// Quantized weights, `out` rows of `inp` values.
        q: Vec<i8>,
        /// One scale per output row.
        scale: Vec<f32>,
        /// Empty, or one divisor per input column (bf16 values) applied to the activations before
        /// they are quantized; the weights' columns were multiplied by it (SmoothQuant).
        smooth: Vec<f32>,
        /// Bias, one per output (f32).
        b: Vec<f32>,
        /// Output width.
        out: usize,
        /// Input width.
        inp: usize,
        /// Empty, or the fitted codebook every `q` is a multiple of (see
        /// [`super::grouped::fit_levels`]): what the file stores the codes against.
        levels: Vec<i8>,
    },
}

impl Linear {
    /// Output width.
    pub fn out(&self) -> usize {
        match self {
            Linear::F32 { out, .. } | Linear::I8 { out, .. } => *out,
        }
    }

    /// Input width.
    pub fn inp(&self) -> usize {
        match self {
            Linear::F32 { inp, .. } | Linear::I8 { inp, .. } => *inp,
        }
    }

    /// The same layer with its bias rounded to bf16 values, as the shipped file (version 5 and later)
    /// stores it.
    pub fn with_bf16_bias(&self) -> Linear {
        let mut out = self.clone();
        match &mut out {
            Linear::F32 { b, .. } | Linear::I8 { b, .. } => *b = super::bf16_values(b),
        }
        out
    }

    /// Quantizes f32 weights to int8 (per output row); int8 layers are returned as they are.
    pub fn quantized(&self) -> Linear {
        match self {
            Linear::F32 { w, b, out, inp } => {
                let (q, scale) = quantize_rows(w, *inp);
                Linear::I8 {
                    q,
                    scale,
                    smooth: Vec::new(),
                    b: b.clone(),
                    out: *out,
                    inp: *inp,
                    levels: Vec::new(),
                }
            }
            other => other.clone(),
        }
    }

    /// Quantizes f32 weights to `bits`-bit codes with one multiplier per `group` inputs (see
    /// [`super::grouped`]), held as int8; int8 layers are returned as they are.
    /// With calibration statistics, input column k is first balanced by
    /// `s_k = max|x_k|^alpha / max|w_k|^(1-alpha)` (SmoothQuant, when `alpha > 0`), and the
    /// rounding is GPTQ's (when `gptq`). With `fitted`, the codes stand for a codebook of `2^bits`
    /// levels fitted to the weights (see [`super::grouped::fit_levels`]; columns weighted by the
    /// diagonal of `Xᵀ X` when there is one) rather than for the uniform `-qmax..=qmax`. With
    /// `precision > 0`, every weight of a row is rounded to one step, the row's rms over
    /// `precision` (codes entropy-coded: see [`super::grouped::row_scales`]).
    pub fn quantized_grouped(
        &self,
        bits: u8,
        group: usize,
        calib: Option<Calibration>,
        fitted: bool,
        precision: f32,
    ) -> Linear {
        match self {
            Linear::F32 { w, b, out, inp } => {
                let calib = calib.filter(|c| c.max.len() == *inp);
                let smooth = calib
                    .as_ref()
                    .filter(|c| c.alpha > 0.0)
                    .map(|c| smoothing(w, *inp, c.max, c.alpha))
                    .unwrap_or_default();
                let scaled: Vec<f32>;
                let w = if smooth.is_empty() {
                    w
                } else {
                    scaled = w
                        .chunks_exact(*inp)
                        .flat_map(|row| row.iter().zip(&smooth).map(|(v, s)| v * s))
                        .collect();
                    &scaled
                };
                // At 8 bits plain rounding is already close; GPTQ would only cost build time
                // (its largest factorization is the 1536-wide FFN contraction's).
                let gptq = calib.filter(|c| c.gptq && bits < 8 && c.gram.len() == inp * inp);
                let (grid, group, row_precision) =
                    super::grouped::rounding(w, *inp, bits, group, fitted, precision, || {
                        // Columns weighted by the diagonal of `Xᵀ X` on the balanced inputs.
                        match calib.as_ref().filter(|c| c.gram.len() == inp * inp) {
                            Some(c) => (0..*inp)
                                .map(|k| {
                                    let sk = smooth.get(k).copied().unwrap_or(1.0) as f64;
                                    c.gram.get(k * inp + k).copied().unwrap_or(1.0) as f64
                                        / (sk * sk)
                                })
                                .collect(),
                            None => vec![1.0; *inp],
                        }
                    });
                let (q, scale) = match gptq {
                    Some(c) => {
                        // The rounded weights see the balanced inputs x / s.
                        let n = *inp;
                        let h: Vec<f64> = c
                            .gram
                            .iter()
                            .enumerate()
                            .map(|(i, &v)| {
                                let (a, b) = (i / n, i % n);
                                let s = |k: usize| smooth.get(k).copied().unwrap_or(1.0) as f64;
                                v as f64 / (s(a) * s(b))
                            })
                            .collect();
                        super::gptq::quantize_gptq_grid(w, n, &h, &grid, group, row_precision)
                    }
                    None => {
                        super::grouped::quantize_rows_grid(w, *inp, &grid, group, row_precision)
                    }
                };
                Linear::I8 {
                    q,
                    scale,
                    smooth,
                    b: b.clone(),
                    out: *out,
                    inp: *inp,
                    levels: grid.table(),
                }
            }
            other => other.clone(),
        }
    }

    /// Applies the layer to `n` rows of `x` (n × inp), writing `y` (n × out).
    pub fn forward(&self, x: &[f32], n: usize, y: &mut Vec<f32>) {
        let (out, inp) = (self.out(), self.inp());
        y.clear();
        y.resize(n * out, 0.0);
        match self {
            Linear::F32 { w, b, .. } => {
                for row in y.chunks_exact_mut(out) {
                    row.copy_from_slice(b);
                }
                // x is n×inp row-major, w is out×inp row-major read as its transpose, y is n×out.
                gemm(
                    (n, inp, out),
                    1.0,
                    (x, inp as isize, 1),
                    (w, 1, inp as isize),
                    1.0,
                    (y.as_mut_slice(), out as isize, 1),
                );
            }
            Linear::I8 {
                q,
                scale,
                smooth,
                b,
                ..
            } => {
                // All token rows are quantized first, so the weights are read from memory once per
                // call rather than once per token.
                let mut xq = vec![0i8; n * inp];
                let mut row = vec![0f32; if smooth.is_empty() { 0 } else { inp }];
                let sx: Vec<f32> = x
                    .chunks_exact(inp)
                    .zip(xq.chunks_exact_mut(inp))
                    .map(|(src, dst)| {
                        if smooth.is_empty() {
                            quantize_into(src, dst)
                        } else {
                            for ((r, v), s) in row.iter_mut().zip(src).zip(smooth) {
                                *r = v / s;
                            }
                            quantize_into(&row, dst)
                        }
                    })
                    .collect();
                let mut acc = vec![0i32; n * out];
                gemm_i8(&xq, n, q, &mut acc);
                for ((yr, ar), s) in y.chunks_exact_mut(out).zip(acc.chunks_exact(out)).zip(&sx) {
                    for (j, (yv, a)) in yr.iter_mut().zip(ar).enumerate() {
                        *yv = *a as f32 * s * scale[j] + b[j];
                    }
                }
            }
        }
    }
}

/// Calibration statistics of one layer's inputs, and how to use them (see
/// [`Linear::quantized_grouped`]).
#[derive(Debug, Clone, Copy)]
pub struct Calibration<'a> {
    /// Largest |value| of each input column.
    pub max: &'a [f32],
    /// `Xᵀ X` of the inputs, `inp × inp` (empty: round to nearest).
    pub gram: &'a [f32],
    /// SmoothQuant's α (0 = no balancing).
    pub alpha: f32,
    /// Round with GPTQ (below 8 bits).
    pub gptq: bool,
}

/// SmoothQuant's per-column factors `ranges_k^alpha / max|w_k|^(1-alpha)`, rounded to bf16 (so a
/// file stores them exactly); 1 for a column that is zero in either.
fn smoothing(w: &[f32], inp: usize, ranges: &[f32], alpha: f32) -> Vec<f32> {
    let mut wmax = vec![0f32; inp];
    for row in w.chunks_exact(inp) {
        for (m, v) in wmax.iter_mut().zip(row) {
            *m = m.max(v.abs());
        }
    }
    ranges
        .iter()
        .zip(&wmax)
        .map(|(&x, &m)| {
            let s = x.powf(alpha) / m.powf(1.0 - alpha);
            let s = if s.is_finite() && s > 0.0 {
                s.clamp(1e-3, 1e3)
            } else {
                1.0
            };
            super::grouped::from_bf16(super::grouped::to_bf16(s))
        })
        .collect()
}

/// A strided matrix operand: the slice, its row stride and its column stride (in elements).
pub type Strided<'a, T> = (T, isize, isize);

/// The signature of matrixmultiply's `sgemm` and `dgemm`.
type Kernel<T> = unsafe fn(
    usize,
    usize,
    usize,
    T,
    *const T,
    isize,
    isize,
    *const T,
    isize,
    isize,
    T,
    *mut T,
    isize,
    isize,
);

/// The element types matrixmultiply multiplies: one safe wrapper, [`gemm`], serves both (f32 for
/// the forward pass, f64 for GPTQ's updates at build time).
pub trait GemmScalar: Copy {
    /// matrixmultiply's kernel for this type.
    const KERNEL: Kernel<Self>;
}

impl GemmScalar for f32 {
    const KERNEL: Kernel<f32> = matrixmultiply::sgemm;
}

impl GemmScalar for f64 {
    const KERNEL: Kernel<f64> = matrixmultiply::dgemm;
}

/// `C = alpha · A · B + beta · C` with `(m, k, n)` = rows of A, columns of A (= rows of B),
/// columns of B, on strided views (so heads and transposes are read in place); with `beta == 0`
/// C is only written. Panics if a view does not cover its matrix (a bug in the caller, never input).
pub fn gemm<T: GemmScalar>(
    (m, k, n): (usize, usize, usize),
    alpha: T,
    a: Strided<&[T]>,
    b: Strided<&[T]>,
    beta: T,
    c: Strided<&mut [T]>,
) {
    if m == 0 || n == 0 {
        return;
    }
    assert_views(
        (m, k, n),
        (a.0.len(), a.1, a.2),
        (b.0.len(), b.1, b.2),
        (c.0.len(), c.1, c.2),
    );
    // SAFETY: the assertion above checks that every element each view addresses lies inside its
    // slice (strides are non-negative), and C is a unique borrow.
    unsafe {
        T::KERNEL(
            m,
            k,
            n,
            alpha,
            a.0.as_ptr(),
            a.1,
            a.2,
            b.0.as_ptr(),
            b.1,
            b.2,
            beta,
            c.0.as_mut_ptr(),
            c.1,
            c.2,
        );
    }
}

/// Panics unless each strided view (length, row stride, column stride) of an `(m, k, n)` product
/// stays inside its slice (a bug in the caller, never input).
fn assert_views(
    (m, k, n): (usize, usize, usize),
    a: (usize, isize, isize),
    b: (usize, isize, isize),
    c: (usize, isize, isize),
) {
    let covers = |(len, rs, cs): (usize, isize, isize), rows: usize, cols: usize| {
        rs >= 0
            && cs >= 0
            && (rows.saturating_sub(1) * rs as usize + cols.saturating_sub(1) * cs as usize) < len
    };
    assert!(
        covers(a, m, k.max(1)) && covers(b, k.max(1), n) && covers(c, m, n),
        "gemm operand views out of bounds"
    );
}

/// Quantizes each row of `w` (rows of `width`) to int8 with its own scale.
pub fn quantize_rows(w: &[f32], width: usize) -> (Vec<i8>, Vec<f32>) {
    let mut q = vec![0i8; w.len()];
    let mut scales = Vec::with_capacity(w.len() / width.max(1));
    for (src, dst) in w.chunks_exact(width).zip(q.chunks_exact_mut(width)) {
        scales.push(quantize_into(src, dst));
    }
    (q, scales)
}

/// Quantizes one row into `dst`, returning its scale (`x ≈ q * scale`). All-zero rows get scale 0.
pub fn quantize_into(src: &[f32], dst: &mut [i8]) -> f32 {
    let max = src
        .iter()
        .fold(0f32, |m, v| if v.is_finite() { m.max(v.abs()) } else { m });
    if max == 0.0 {
        dst.iter_mut().for_each(|d| *d = 0);
        return 0.0;
    }
    let inv = 127.0 / max;
    for (d, s) in dst.iter_mut().zip(src) {
        let v = if s.is_finite() { *s * inv } else { 0.0 };
        // Round half away from zero with a saturating cast: `f32::round` is a libm call on x86-64.
        *d = (v + 0.5f32.copysign(v)).clamp(-127.0, 127.0) as i8;
    }
    max / 127.0
}

/// `out[t][j] = x_t · w_j` for `n` int8 rows `xs` and a row-major int8 matrix `w` (rows as long as
/// each `x_t`); `out` is `n × rows(w)`. Weight rows are the outer loop, so each is read once
/// (AVX2 natively, wasm SIMD in the browser, a portable loop otherwise).
pub fn gemm_i8(xs: &[i8], n: usize, w: &[i8], out: &mut [i32]) {
    let width = xs.len().checked_div(n).unwrap_or(0);
    if width == 0 {
        out.iter_mut().for_each(|o| *o = 0);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked just above).
        unsafe { x86::gemm_avx2(xs, n, w, out) };
        return;
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    simd128::gemm(xs, n, w, out);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        let rows = w.len() / width;
        for (j, row) in w.chunks_exact(width).enumerate() {
            for (t, x) in xs.chunks_exact(width).enumerate() {
                if let Some(o) = out.get_mut(t * rows + j) {
                    *o = dot_i8(x, row);
                }
            }
        }
    }
}

/// Integer dot product of two int8 rows; the innermost loop of both the encoder and the vector scan.
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::dot_i8(a, b)
    }
    #[cfg(target_arch = "x86_64")]
    {
        x86::dot_i8(a, b)
    }
    #[cfg(not(any(
        all(target_arch = "wasm32", target_feature = "simd128"),
        target_arch = "x86_64"
    )))]
    {
        // Written as 16-lane blocks so LLVM can vectorize it.
        let mut acc = [0i32; 16];
        let (ac, ar) = a.split_at(a.len() - a.len() % 16);
        let (bc, br) = b.split_at(ac.len().min(b.len()));
        for (x, y) in ac.chunks_exact(16).zip(bc.chunks_exact(16)) {
            for i in 0..16 {
                acc[i] += x[i] as i32 * y[i] as i32;
            }
        }
        let tail: i32 = ar.iter().zip(br).map(|(&x, &y)| x as i32 * y as i32).sum();
        acc.iter().sum::<i32>() + tail
    }
}

/// x86-64 kernels. Hand-written: inlined into the layer loop, LLVM left the portable loop scalar
/// (callgrind: ~5 instructions per multiply-add). AVX2 when the CPU has it, else SSE2 (always there).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present (checked just above).
            unsafe { dot_avx2(a, b) }
        } else {
            // SAFETY: SSE2 is part of the x86-64 baseline.
            unsafe { dot_sse2(a, b) }
        }
    }

    /// Four weight rows at a time, against every token row: the four rows stay in L1 while the
    /// tokens stream past, and each block of a token is widened once for the four rows.
    #[target_feature(enable = "avx2")]
    pub unsafe fn gemm_avx2(xs: &[i8], n_tok: usize, w: &[i8], out: &mut [i32]) {
        let n = xs.len() / n_tok;
        let rows = w.len() / n;
        if out.len() < n_tok * rows {
            return;
        }
        let blocks = n / 16;
        let hsum = |v: __m256i| -> i32 {
            let mut lanes = [0i32; 8];
            // SAFETY: `lanes` is 32 bytes.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, v) };
            lanes.iter().sum()
        };
        let tail = |x: &[i8], r: usize| -> i32 {
            (blocks * 16..n)
                .map(|j| x[j] as i32 * w[r * n + j] as i32)
                .sum()
        };
        let mut r = 0;
        while r + 4 <= rows {
            for (t, x) in xs.chunks_exact(n).enumerate() {
                let (mut a0, mut a1, mut a2, mut a3) = (
                    _mm256_setzero_si256(),
                    _mm256_setzero_si256(),
                    _mm256_setzero_si256(),
                    _mm256_setzero_si256(),
                );
                for k in 0..blocks {
                    let off = k * 16;
                    // SAFETY: off + 16 <= n, and row r+3 ends at (r+4)*n <= w.len(); unaligned loads.
                    unsafe {
                        let vx = _mm256_cvtepi8_epi16(_mm_loadu_si128(
                            x.as_ptr().add(off) as *const __m128i
                        ));
                        let load = |row: usize| {
                            _mm256_cvtepi8_epi16(_mm_loadu_si128(
                                w.as_ptr().add(row * n + off) as *const __m128i
                            ))
                        };
                        a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(vx, load(r)));
                        a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(vx, load(r + 1)));
                        a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(vx, load(r + 2)));
                        a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(vx, load(r + 3)));
                    }
                }
                let o = &mut out[t * rows + r..t * rows + r + 4];
                o[0] = hsum(a0) + tail(x, r);
                o[1] = hsum(a1) + tail(x, r + 1);
                o[2] = hsum(a2) + tail(x, r + 2);
                o[3] = hsum(a3) + tail(x, r + 3);
            }
            r += 4;
        }
        while r < rows {
            for (t, x) in xs.chunks_exact(n).enumerate() {
                // SAFETY: AVX2 is enabled for this function.
                out[t * rows + r] = unsafe { dot_avx2(x, &w[r * n..(r + 1) * n]) };
            }
            r += 1;
        }
    }

    #[target_feature(enable = "avx2")]
    unsafe fn dot_avx2(a: &[i8], b: &[i8]) -> i32 {
        let n = a.len().min(b.len());
        let mut acc = _mm256_setzero_si256();
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: i + 16 <= n, unaligned loads.
            let (va, vb) = unsafe {
                (
                    _mm256_cvtepi8_epi16(_mm_loadu_si128(a.as_ptr().add(i) as *const __m128i)),
                    _mm256_cvtepi8_epi16(_mm_loadu_si128(b.as_ptr().add(i) as *const __m128i)),
                )
            };
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(va, vb));
            i += 16;
        }
        let mut lanes = [0i32; 8];
        // SAFETY: `lanes` is 32 bytes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc) };
        let mut sum: i32 = lanes.iter().sum();
        for j in i..n {
            sum += a[j] as i32 * b[j] as i32;
        }
        sum
    }

    #[target_feature(enable = "sse2")]
    unsafe fn dot_sse2(a: &[i8], b: &[i8]) -> i32 {
        let n = a.len().min(b.len());
        let mut acc = _mm_setzero_si128();
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: i + 16 <= n, unaligned loads.
            let (va, vb) = unsafe {
                (
                    _mm_loadu_si128(a.as_ptr().add(i) as *const __m128i),
                    _mm_loadu_si128(b.as_ptr().add(i) as *const __m128i),
                )
            };
            // Sign-extend bytes to 16 bits: duplicate each byte, then shift right arithmetically.
            let a_lo = _mm_srai_epi16(_mm_unpacklo_epi8(va, va), 8);
            let a_hi = _mm_srai_epi16(_mm_unpackhi_epi8(va, va), 8);
            let b_lo = _mm_srai_epi16(_mm_unpacklo_epi8(vb, vb), 8);
            let b_hi = _mm_srai_epi16(_mm_unpackhi_epi8(vb, vb), 8);
            acc = _mm_add_epi32(
                acc,
                _mm_add_epi32(_mm_madd_epi16(a_lo, b_lo), _mm_madd_epi16(a_hi, b_hi)),
            );
            i += 16;
        }
        let mut lanes = [0i32; 4];
        // SAFETY: `lanes` is 16 bytes.
        unsafe { _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, acc) };
        let mut sum: i32 = lanes.iter().sum();
        for j in i..n {
            sum += a[j] as i32 * b[j] as i32;
        }
        sum
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn both_kernels_match_naive() {
            let a: Vec<i8> = (0..1000).map(|i| ((i * 37) % 255) as u8 as i8).collect();
            let b: Vec<i8> = (0..1000)
                .map(|i| ((i * 91 + 7) % 255) as u8 as i8)
                .collect();
            for len in [0, 1, 15, 16, 17, 383, 384, 1000] {
                let naive: i32 = a[..len]
                    .iter()
                    .zip(&b[..len])
                    .map(|(&x, &y)| x as i32 * y as i32)
                    .sum();
                // SAFETY: SSE2 is baseline on x86-64.
                assert_eq!(unsafe { super::dot_sse2(&a[..len], &b[..len]) }, naive);
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: checked just above.
                    assert_eq!(unsafe { super::dot_avx2(&a[..len], &b[..len]) }, naive);
                }
            }
        }

        #[test]
        fn gemm_matches_row_dots() {
            for (n, rows, toks) in [(16, 4, 1), (17, 5, 3), (384, 9, 7), (40, 3, 2)] {
                let xs: Vec<i8> = (0..n * toks)
                    .map(|i| ((i * 13) % 255) as u8 as i8)
                    .collect();
                let w: Vec<i8> = (0..n * rows)
                    .map(|i| ((i * 29 + 3) % 255) as u8 as i8)
                    .collect();
                let mut got = vec![0i32; rows * toks];
                super::super::gemm_i8(&xs, toks, &w, &mut got);
                let want: Vec<i32> = xs
                    .chunks_exact(n)
                    .flat_map(|x| {
                        w.chunks_exact(n).map(move |r| {
                            r.iter()
                                .zip(x)
                                .map(|(&a, &b)| a as i32 * b as i32)
                                .sum::<i32>()
                        })
                    })
                    .collect();
                assert_eq!(got, want, "n={n} rows={rows} toks={toks}");
            }
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::*;

    /// Token rows handled together by [`gemm`]'s tile.
    const TOKENS: usize = 4;

    /// `out[t][j] = x_t · w_j` (see `gemm_i8`), in tiles of two weight rows by four token rows.
    /// Hand-written because the row-by-row dot product ([`dot_i8`]) widens both operands of every
    /// block for every product: here the tokens are widened to i16 once per call and each weight
    /// block once per four tokens, so a tile does 128 multiply-adds in 46 SIMD instructions
    /// rather than 80 (two rows' and four tokens' widened values and eight accumulators fit the
    /// 16 vector registers of the engines' x86-64 and arm64 code).
    pub fn gemm(xs: &[i8], n_tok: usize, w: &[i8], out: &mut [i32]) {
        let n = xs.len() / n_tok.max(1);
        if n == 0 {
            return;
        }
        let rows = w.len() / n;
        if out.len() < n_tok * rows || xs.len() < n_tok * n {
            return;
        }
        let wide: Vec<i16> = xs.iter().map(|&v| v as i16).collect();
        let mut r = 0;
        while r < rows {
            // An odd last row is paired with itself; its second result is not written.
            let r1 = if r + 1 < rows { r + 1 } else { r };
            let mut t = 0;
            while t + TOKENS <= n_tok {
                tile::<TOKENS>(&wide, xs, w, n, (r, r1), t, rows, out);
                t += TOKENS;
            }
            while t < n_tok {
                tile::<1>(&wide, xs, w, n, (r, r1), t, rows, out);
                t += 1;
            }
            r += 2;
        }
    }

    /// Rows `r0` and `r1` of `w` against token rows `t..t + T`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn tile<const T: usize>(
        wide: &[i16],
        xs: &[i8],
        w: &[i8],
        n: usize,
        (r0, r1): (usize, usize),
        t: usize,
        rows: usize,
        out: &mut [i32],
    ) {
        let blocks = n / 16;
        let mut acc0 = [i32x4_splat(0); T];
        let mut acc1 = [i32x4_splat(0); T];
        for k in 0..blocks {
            let off = k * 16;
            // SAFETY: off + 16 <= n; rows r0, r1 < rows end by rows * n <= w.len(); token rows
            // t + i < n_tok end by n_tok * n = wide.len(); v128_load has no alignment requirement.
            unsafe {
                let w0 = v128_load(w.as_ptr().add(r0 * n + off) as *const v128);
                let w1 = v128_load(w.as_ptr().add(r1 * n + off) as *const v128);
                let (w0l, w0h) = (i16x8_extend_low_i8x16(w0), i16x8_extend_high_i8x16(w0));
                let (w1l, w1h) = (i16x8_extend_low_i8x16(w1), i16x8_extend_high_i8x16(w1));
                for i in 0..T {
                    let p = wide.as_ptr().add((t + i) * n + off);
                    let xl = v128_load(p as *const v128);
                    let xh = v128_load(p.add(8) as *const v128);
                    acc0[i] = i32x4_add(
                        acc0[i],
                        i32x4_add(i32x4_dot_i16x8(xl, w0l), i32x4_dot_i16x8(xh, w0h)),
                    );
                    acc1[i] = i32x4_add(
                        acc1[i],
                        i32x4_add(i32x4_dot_i16x8(xl, w1l), i32x4_dot_i16x8(xh, w1h)),
                    );
                }
            }
        }
        let hsum = |v: v128| {
            i32x4_extract_lane::<0>(v)
                + i32x4_extract_lane::<1>(v)
                + i32x4_extract_lane::<2>(v)
                + i32x4_extract_lane::<3>(v)
        };
        let tail = |tok: usize, row: usize| -> i32 {
            (blocks * 16..n)
                .map(|j| xs[tok * n + j] as i32 * w[row * n + j] as i32)
                .sum()
        };
        for i in 0..T {
            let tok = t + i;
            out[tok * rows + r0] = hsum(acc0[i]) + tail(tok, r0);
            if r1 != r0 {
                out[tok * rows + r1] = hsum(acc1[i]) + tail(tok, r1);
            }
        }
    }

    /// wasm SIMD: sign-extend 8 lanes to i16 and multiply-add pairs into i32 lanes.
    pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
        let n = a.len().min(b.len());
        let blocks = n / 16;
        let mut acc = i32x4_splat(0);
        for i in 0..blocks {
            // SAFETY: i*16+16 <= n, and v128_load has no alignment requirement.
            let (va, vb) = unsafe {
                (
                    v128_load(a.as_ptr().add(i * 16) as *const v128),
                    v128_load(b.as_ptr().add(i * 16) as *const v128),
                )
            };
            let lo = i32x4_dot_i16x8(i16x8_extend_low_i8x16(va), i16x8_extend_low_i8x16(vb));
            let hi = i32x4_dot_i16x8(i16x8_extend_high_i8x16(va), i16x8_extend_high_i8x16(vb));
            acc = i32x4_add(acc, i32x4_add(lo, hi));
        }
        let mut sum = i32x4_extract_lane::<0>(acc)
            + i32x4_extract_lane::<1>(acc)
            + i32x4_extract_lane::<2>(acc)
            + i32x4_extract_lane::<3>(acc);
        for i in blocks * 16..n {
            sum += a[i] as i32 * b[i] as i32;
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn dot_matches_naive(v in proptest::collection::vec((any::<i8>(), any::<i8>()), 0..200)) {
            let a: Vec<i8> = v.iter().map(|p| p.0).collect();
            let b: Vec<i8> = v.iter().map(|p| p.1).collect();
            let naive: i32 = a.iter().zip(&b).map(|(&x, &y)| x as i32 * y as i32).sum();
            prop_assert_eq!(dot_i8(&a, &b), naive);
        }

        #[test]
        fn quantization_error_is_bounded(v in proptest::collection::vec(-100f32..100f32, 1..64)) {
            let mut q = vec![0i8; v.len()];
            let s = quantize_into(&v, &mut q);
            for (x, qi) in v.iter().zip(&q) {
                prop_assert!((x - *qi as f32 * s).abs() <= s * 0.5 + 1e-4);
            }
        }
    }

    #[test]
    fn int8_layer_tracks_f32_layer() {
        let (out, inp, n) = (8, 32, 3);
        let w: Vec<f32> = (0..out * inp)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let b: Vec<f32> = (0..out).map(|i| i as f32 * 0.1).collect();
        let x: Vec<f32> = (0..n * inp)
            .map(|i| ((i * 13 % 29) as f32 - 14.0) / 7.0)
            .collect();
        let f = Linear::F32 { w, b, out, inp };
        let (mut y1, mut y2) = (Vec::new(), Vec::new());
        f.forward(&x, n, &mut y1);
        f.quantized().forward(&x, n, &mut y2);
        // Quantization error is relative to the magnitude of the outputs, not of each one.
        let range = y1.iter().fold(0f32, |m, v| m.max(v.abs()));
        for (a, b) in y1.iter().zip(&y2) {
            assert!((a - b).abs() < 0.02 * range, "{a} vs {b}");
        }
    }
}
