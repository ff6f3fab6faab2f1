//! The encoder's element-wise functions (exp, erf, GELU, softmax) written as straight-line float
//! arithmetic so that LLVM vectorizes the loops over them: `f32::exp` is a libm call per element,
//! and the index build evaluates about two billion of them (GELU and attention softmax).

/// `e^x` to about 2 ulp for x in [-87, 88] (clamped outside): Cephes' `expf` (x = n·ln2 + r,
/// a degree-6 polynomial for e^r, 2^n built in the exponent bits). Rounding uses the
/// 1.5·2^23 trick rather than `f32::round`, which is a libm call without SSE4.1.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    const ROUND: f32 = 12_582_912.0; // 1.5 × 2^23
    let x = x.clamp(-87.0, 88.0);
    let n = (x * LOG2E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let r2 = r * r;
    let p = 1.987_569_1e-4;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 0.5;
    let e_r = p * r2 + r + 1.0;
    let bits = ((n as i32 + 127) as u32) << 23;
    e_r * f32::from_bits(bits)
}

/// erf by Abramowitz & Stegun 7.1.26 (error ≤ 1.5e-7 exact, ~1e-6 in f32 arithmetic).
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    (1.0 - poly * exp(-a * a)).copysign(x)
}

/// GELU with the error function, as BERT's `hidden_act = "gelu"` (not the tanh approximation).
#[inline(always)]
pub fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// Applies [`gelu`] to every value (a separate loop so it vectorizes).
pub fn gelu_in_place(v: &mut [f32]) {
    for x in v.iter_mut() {
        *x = gelu(*x);
    }
}

/// Turns a row of scores into probabilities (max subtracted first, so `exp` never overflows).
pub fn softmax_in_place(row: &mut [f32]) {
    let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
    let mut sum = 0.0;
    for p in row.iter_mut() {
        *p = exp(*p - max);
        sum += *p;
    }
    if sum > 0.0 {
        let inv = 1.0 / sum;
        row.iter_mut().for_each(|p| *p *= inv);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_libm() {
        for i in -8700..=8800 {
            let x = i as f32 / 100.0;
            let (got, want) = (exp(x), libm::expf(x));
            assert!(
                (got - want).abs() <= want * 4e-7,
                "exp({x}) = {got}, libm {want}"
            );
        }
    }

    #[test]
    fn erf_matches_libm() {
        for i in -4000..=4000 {
            let x = i as f32 / 500.0;
            assert!((erf(x) - libm::erff(x)).abs() < 2e-6, "erf({x})");
        }
    }

    #[test]
    fn softmax_sums_to_one_and_survives_large_scores() {
        let mut row = [1000.0, 999.0, -1000.0, 0.0];
        softmax_in_place(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(row[0] > row[1] && row[1] > row[3] && row[3] >= row[2]);
    }
}
