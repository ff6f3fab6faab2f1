//! Dense layers of the encoder in two precisions: f32 (the index builder embeds the book with the
//! exact model) and int8 with one scale per output row (what ships to the browser).

/// `y = x · Wᵀ + b` for a row-major weight matrix of `out` rows by `inp` columns.
#[derive(Debug, Clone)]
pub enum Linear {
    /// Exact weights, used natively at build time.
    F32 {
        w: Vec<f32>,
        b: Vec<f32>,
        out: usize,
        inp: usize,
    },
    /// Symmetric int8 weights, `w[j][k] ≈ q[j][k] * scale[j]`; activations are quantized per row on the fly.
    I8 {
        q: Vec<i8>,
        scale: Vec<f32>,
        b: Vec<f32>,
        out: usize,
        inp: usize,
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

    /// Quantizes f32 weights to int8 (per output row); int8 layers are returned as they are.
    pub fn quantized(&self) -> Linear {
        match self {
            Linear::F32 { w, b, out, inp } => {
                let (q, scale) = quantize_rows(w, *inp);
                Linear::I8 {
                    q,
                    scale,
                    b: b.clone(),
                    out: *out,
                    inp: *inp,
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
                // SAFETY: the pointers and strides describe exactly the slices above:
                // x is n×inp row-major, w is out×inp row-major read as its transpose, y is n×out.
                unsafe {
                    matrixmultiply::sgemm(
                        n,
                        inp,
                        out,
                        1.0,
                        x.as_ptr(),
                        inp as isize,
                        1,
                        w.as_ptr(),
                        1,
                        inp as isize,
                        1.0,
                        y.as_mut_ptr(),
                        out as isize,
                        1,
                    );
                }
            }
            Linear::I8 { q, scale, b, .. } => {
                let mut xq = vec![0i8; inp];
                for (xr, yr) in x.chunks_exact(inp).zip(y.chunks_exact_mut(out)) {
                    let sx = quantize_into(xr, &mut xq);
                    for (j, (wr, yv)) in q.chunks_exact(inp).zip(yr.iter_mut()).enumerate() {
                        *yv = dot_i8(&xq, wr) as f32 * sx * scale[j] + b[j];
                    }
                }
            }
        }
    }
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
        let v = if s.is_finite() { *s } else { 0.0 };
        *d = (v * inv).round().clamp(-127.0, 127.0) as i8;
    }
    max / 127.0
}

/// Integer dot product of two int8 rows; the innermost loop of both the encoder and the vector scan.
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::dot_i8(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        // Written as 16-lane blocks so LLVM vectorizes it (pmaddwd on x86, sdot on arm).
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

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::*;

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
