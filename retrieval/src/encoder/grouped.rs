//! Low-bit matrices of the version-2 encoder file: each value is `code × multiplier × row scale`,
//! with `bits`-bit codes, one small integer multiplier per group of `group` consecutive values in a
//! row, and one bf16 scale per row (see `FORMAT.md`, "Encoder file").
//!
//! The multiplier replaces the usual per-group float scale: `code × multiplier` always fits in
//! int8 (|value| ≤ 127), so a layer loads straight into the int8 matrix the forward pass already
//! multiplies with (no second rounding, no slower kernel), and a group's scale costs one byte.
//! Hand-written because no crate offers this layout; it is a few loops.

use crate::error::AssetError;

/// A matrix stored at `bits` bits a value (the word table and, once loaded as int8, each layer).
#[derive(Debug, Clone, PartialEq)]
pub struct Grouped {
    /// Number of rows.
    pub rows: usize,
    /// Values per row.
    pub cols: usize,
    /// Bits per code, 2..=8.
    pub bits: u8,
    /// Values per group along a row (the last group of a row may be shorter).
    pub group: usize,
    /// The codes, `bits` each, least significant bit first, row-major; a stored code is the value's
    /// code plus `2^(bits-1)`, so it is never 0.
    pub packed: Vec<u8>,
    /// One multiplier per group, `1..=max_mult(bits)`, row-major.
    pub mults: Vec<u8>,
    /// One scale per row, a bf16 value (stored as its 16 bits).
    pub row_scale: Vec<u16>,
}

/// Largest code magnitude at `bits`: codes run over `-qmax..=qmax`.
pub fn qmax(bits: u8) -> i32 {
    (1i32 << (bits.clamp(2, 8) - 1)) - 1
}

/// Largest group multiplier at `bits`: `qmax × max_mult ≤ 127`.
pub fn max_mult(bits: u8) -> i32 {
    127 / qmax(bits)
}

/// Rounds to the nearest bf16 (the upper 16 bits of an f32) and returns those bits.
pub fn to_bf16(v: f32) -> u16 {
    let b = v.to_bits();
    // Round to nearest, ties to even, on the 16 dropped bits.
    let rounded = b.wrapping_add(0x7fff + ((b >> 16) & 1));
    (rounded >> 16) as u16
}

/// The f32 value of bf16 bits.
pub fn from_bf16(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

/// Quantizes a row-major f32 matrix (rows of `cols`) into int8 values that are `code × multiplier`
/// of a `bits`-bit grouped code, and their per-row scales (bf16 values): `w ≈ q × scale`. Each
/// group's multiplier is the one of least squared error among those that clip little.
pub fn quantize_rows_grouped(
    w: &[f32],
    cols: usize,
    bits: u8,
    group: usize,
) -> (Vec<i8>, Vec<f32>) {
    let (qm, mm) = (qmax(bits), max_mult(bits));
    let group = group.max(1);
    let mut q = vec![0i8; w.len()];
    let mut scales = Vec::with_capacity(w.len() / cols.max(1));
    for (src, dst) in w.chunks_exact(cols).zip(q.chunks_exact_mut(cols)) {
        let max = src.iter().fold(0f32, |m, v| m.max(v.abs()));
        let base = from_bf16(to_bf16(max / (qm * mm) as f32));
        scales.push(base);
        if base <= 0.0 || !base.is_finite() {
            continue;
        }
        for (s, d) in src.chunks(group).zip(dst.chunks_mut(group)) {
            let gmax = s.iter().fold(0f32, |m, v| m.max(v.abs()));
            let m0 = ((gmax / (qm as f32 * base)).ceil() as i32).clamp(1, mm);
            let mut best = (f32::INFINITY, m0);
            for m in (m0 - 3).max(1)..=m0 {
                let step = m as f32 * base;
                let err: f32 = s
                    .iter()
                    .map(|v| {
                        let c = (v / step).round().clamp(-qm as f32, qm as f32);
                        (v - c * step) * (v - c * step)
                    })
                    .sum();
                if err < best.0 {
                    best = (err, m);
                }
            }
            let step = best.1 as f32 * base;
            for (v, o) in s.iter().zip(d.iter_mut()) {
                let c = (v / step).round().clamp(-qm as f32, qm as f32) as i32;
                *o = (c * best.1) as i8;
            }
        }
    }
    (q, scales)
}

impl Grouped {
    /// Packs int8 values made by [`quantize_rows_grouped`] with the same `bits` and `group`
    /// (any int8 matrix at `bits == 8`). Returns `None` when a group is not `code × multiplier`
    /// at that width, or a scale is not a bf16 value.
    pub fn from_i8(
        q: &[i8],
        scales: &[f32],
        cols: usize,
        bits: u8,
        group: usize,
    ) -> Option<Grouped> {
        if !(2..=8).contains(&bits) || group == 0 || cols == 0 || q.len() != scales.len() * cols {
            return None;
        }
        let (qm, mm) = (qmax(bits), max_mult(bits));
        let mut codes = Vec::with_capacity(q.len());
        let mut mults = Vec::new();
        for row in q.chunks_exact(cols) {
            for g in row.chunks(group) {
                let m = (1..=mm).find(|m| {
                    g.iter()
                        .all(|&v| v as i32 % m == 0 && (v as i32 / m).abs() <= qm)
                })?;
                mults.push(m as u8);
                codes.extend(g.iter().map(|&v| (v as i32 / m + qm + 1) as u8));
            }
        }
        let row_scale: Vec<u16> = scales.iter().map(|&s| to_bf16(s)).collect();
        if row_scale
            .iter()
            .zip(scales)
            .any(|(&b, &s)| from_bf16(b) != s)
        {
            return None;
        }
        Some(Grouped {
            rows: scales.len(),
            cols,
            bits,
            group,
            packed: pack(&codes, bits),
            mults,
            row_scale,
        })
    }

    /// Checks every count, code and multiplier (a file's contents are not trusted).
    pub fn validate(&self, what: &'static str) -> Result<(), AssetError> {
        let bad = |reason: String| AssetError::Corrupt { what, reason };
        if !(2..=8).contains(&self.bits) || self.group == 0 || self.cols == 0 {
            return Err(bad(format!(
                "matrix of {} bits, groups of {}",
                self.bits, self.group
            )));
        }
        let n = self.rows * self.cols;
        let groups = self.rows * self.cols.div_ceil(self.group);
        if self.packed.len() != (n * self.bits as usize).div_ceil(8)
            || self.mults.len() != groups
            || self.row_scale.len() != self.rows
        {
            return Err(bad("matrix sizes disagree with its shape".into()));
        }
        let mm = max_mult(self.bits);
        if self.mults.iter().any(|&m| m == 0 || m as i32 > mm) {
            return Err(bad("group multiplier out of range".into()));
        }
        if self.row_scale.iter().any(|&s| !from_bf16(s).is_finite()) {
            return Err(AssetError::NotFinite { what });
        }
        if (0..n).any(|i| self.code(i) == 0) {
            return Err(bad("code 0 is not used".into()));
        }
        Ok(())
    }

    fn code(&self, idx: usize) -> u32 {
        let bits = self.bits as usize;
        let bit = idx * bits;
        let (byte, shift) = (bit / 8, bit % 8);
        let lo = self.packed.get(byte).copied().unwrap_or(0) as u32;
        let hi = self.packed.get(byte + 1).copied().unwrap_or(0) as u32;
        ((lo | hi << 8) >> shift) & ((1 << bits) - 1)
    }

    /// Value `idx` (row-major) as int8: `code × multiplier`.
    fn int(&self, idx: usize) -> i32 {
        let groups_per_row = self.cols.div_ceil(self.group);
        let (r, c) = (idx / self.cols, idx % self.cols);
        let m = self
            .mults
            .get(r * groups_per_row + c / self.group)
            .copied()
            .unwrap_or(0) as i32;
        (self.code(idx) as i32 - qmax(self.bits) - 1) * m
    }

    /// The int8 matrix and its row scales (what an int8 layer multiplies with). Call on a
    /// validated matrix only: its values then all fit int8.
    pub fn to_i8(&self) -> (Vec<i8>, Vec<f32>) {
        let q = (0..self.rows * self.cols)
            .map(|i| self.int(i).clamp(-127, 127) as i8)
            .collect();
        (q, self.row_scale.iter().map(|&s| from_bf16(s)).collect())
    }

    /// Writes row `r` as f32 into `out` (`cols` long); rows past the end leave `out` as it is.
    pub fn row_into(&self, r: usize, out: &mut [f32]) {
        let Some(&s) = self.row_scale.get(r) else {
            return;
        };
        let s = from_bf16(s);
        for (c, o) in out.iter_mut().enumerate().take(self.cols) {
            *o = self.int(r * self.cols + c) as f32 * s;
        }
    }
}

/// A matrix as a version-3 file stores it: the same values as [`Grouped`], with the codes one a
/// byte. Layers load from it straight into int8 (no packing and unpacking on the reader's side);
/// the word table is packed, as it stays in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct ByteCodes {
    /// Number of rows.
    pub rows: usize,
    /// Values per row.
    pub cols: usize,
    /// Bits per code, 2..=8.
    pub bits: u8,
    /// Values per group along a row.
    pub group: usize,
    /// The stored codes (value's code plus `2^(bits-1)`, never 0), one a byte, row-major.
    pub codes: Vec<u8>,
    /// One multiplier per group, `1..=max_mult(bits)`, row-major.
    pub mults: Vec<u8>,
    /// One scale per row, a bf16 value.
    pub row_scale: Vec<u16>,
}

impl ByteCodes {
    /// The codes of a packed matrix, one a byte.
    pub fn of(m: &Grouped) -> ByteCodes {
        ByteCodes {
            rows: m.rows,
            cols: m.cols,
            bits: m.bits,
            group: m.group,
            codes: (0..m.rows * m.cols).map(|i| m.code(i) as u8).collect(),
            mults: m.mults.clone(),
            row_scale: m.row_scale.clone(),
        }
    }

    /// Checks every count, code and multiplier, as [`Grouped::validate`] does.
    pub fn validate(&self, what: &'static str) -> Result<(), AssetError> {
        let bad = |reason: String| AssetError::Corrupt { what, reason };
        if !(2..=8).contains(&self.bits) || self.group == 0 || self.cols == 0 {
            return Err(bad(format!(
                "matrix of {} bits, groups of {}",
                self.bits, self.group
            )));
        }
        if Some(self.codes.len()) != self.rows.checked_mul(self.cols)
            || self.mults.len() != self.rows * self.cols.div_ceil(self.group)
            || self.row_scale.len() != self.rows
        {
            return Err(bad("matrix sizes disagree with its shape".into()));
        }
        let mm = max_mult(self.bits);
        if self.mults.iter().any(|&m| m == 0 || m as i32 > mm) {
            return Err(bad("group multiplier out of range".into()));
        }
        if self.row_scale.iter().any(|&s| !from_bf16(s).is_finite()) {
            return Err(AssetError::NotFinite { what });
        }
        if self
            .codes
            .iter()
            .any(|&c| c == 0 || u32::from(c) >> self.bits != 0)
        {
            return Err(bad(format!("a code is 0 or wider than {} bits", self.bits)));
        }
        Ok(())
    }

    /// The int8 matrix and its row scales, as [`Grouped::to_i8`] gives them. Call on a validated
    /// matrix only.
    pub fn to_i8(&self) -> (Vec<i8>, Vec<f32>) {
        let offset = qmax(self.bits) + 1;
        let mut q = Vec::with_capacity(self.codes.len());
        for (row, mults) in self
            .codes
            .chunks_exact(self.cols)
            .zip(self.mults.chunks_exact(self.cols.div_ceil(self.group)))
        {
            for (g, &m) in row.chunks(self.group).zip(mults) {
                q.extend(
                    g.iter()
                        .map(|&c| ((c as i32 - offset) * m as i32).clamp(-127, 127) as i8),
                );
            }
        }
        (q, self.row_scale.iter().map(|&s| from_bf16(s)).collect())
    }

    /// The packed form.
    pub fn into_grouped(self) -> Grouped {
        Grouped {
            rows: self.rows,
            cols: self.cols,
            bits: self.bits,
            group: self.group,
            packed: pack(&self.codes, self.bits),
            mults: self.mults,
            row_scale: self.row_scale,
        }
    }
}

/// Packs `bits`-bit codes least significant bit first.
fn pack(codes: &[u8], bits: u8) -> Vec<u8> {
    let bits = bits as usize;
    let mut out = vec![0u8; (codes.len() * bits).div_ceil(8)];
    for (i, &c) in codes.iter().enumerate() {
        let bit = i * bits;
        let v = (c as u16) << (bit % 8);
        out[bit / 8] |= v as u8;
        if let Some(next) = out.get_mut(bit / 8 + 1) {
            *next |= (v >> 8) as u8;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_round_trips_and_rounds_to_nearest() {
        for v in [0.0f32, 1.0, -2.5, 3.0e-5, 1234.5] {
            let r = from_bf16(to_bf16(v));
            assert!((r - v).abs() <= v.abs() / 256.0, "{v} -> {r}");
            assert_eq!(from_bf16(to_bf16(r)), r);
        }
    }

    #[test]
    fn packed_matrix_gives_back_the_int8_values() {
        let (rows, cols) = (5, 40);
        let w: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / (1.0 + (i % 7) as f32))
            .collect();
        for bits in [2u8, 3, 4, 5, 8] {
            for group in [8, 16, 64] {
                let (q, s) = quantize_rows_grouped(&w, cols, bits, group);
                let g = Grouped::from_i8(&q, &s, cols, bits, group).unwrap();
                g.validate("test").unwrap();
                assert_eq!(
                    g.to_i8(),
                    (q.clone(), s.clone()),
                    "bits {bits} group {group}"
                );
                let mut row = vec![0f32; cols];
                g.row_into(2, &mut row);
                for (c, v) in row.iter().enumerate() {
                    assert_eq!(*v, q[2 * cols + c] as f32 * s[2]);
                }
            }
        }
    }

    #[test]
    fn four_bit_groups_beat_int8_rows_of_four_bits() {
        // Rows whose groups differ in magnitude: per-group multipliers keep the small groups.
        let cols = 64;
        let w: Vec<f32> = (0..cols)
            .map(|i| ((i * 29 % 17) as f32 - 8.0) * if i < 32 { 1.0 } else { 0.05 })
            .collect();
        let (q, s) = quantize_rows_grouped(&w, cols, 4, 32);
        let err: f32 = w
            .iter()
            .zip(&q)
            .map(|(v, &c)| (v - c as f32 * s[0]).abs())
            .fold(0.0, f32::max);
        // The multiplier of least squared error may clip the largest value by up to one step.
        assert!(err < 1.0, "{err}");
        let small_err: f32 = w[32..]
            .iter()
            .zip(&q[32..])
            .map(|(v, &c)| (v - c as f32 * s[0]).abs())
            .fold(0.0, f32::max);
        assert!(small_err < 0.05, "{small_err}");
    }

    #[test]
    fn codes_one_a_byte_give_the_same_matrix() {
        let w: Vec<f32> = (0..3 * 40)
            .map(|i| ((i * 13 % 29) as f32 - 14.0) / 3.0)
            .collect();
        for bits in [3u8, 4, 5, 6, 8] {
            let (q, s) = quantize_rows_grouped(&w, 40, bits, 16);
            let g = Grouped::from_i8(&q, &s, 40, bits, 16).unwrap();
            let b = ByteCodes::of(&g);
            b.validate("test").unwrap();
            assert_eq!(b.to_i8(), g.to_i8(), "bits {bits}");
            assert_eq!(b.into_grouped(), g, "bits {bits}");
        }
        let ok = ByteCodes {
            rows: 1,
            cols: 2,
            bits: 4,
            group: 2,
            codes: vec![15, 1],
            mults: vec![1],
            row_scale: vec![to_bf16(1.0)],
        };
        ok.validate("t").unwrap();
        for bad in [
            ByteCodes {
                codes: vec![16, 1],
                ..ok.clone()
            },
            ByteCodes {
                codes: vec![0, 1],
                ..ok.clone()
            },
            ByteCodes {
                codes: vec![1],
                ..ok.clone()
            },
            ByteCodes {
                mults: vec![0],
                ..ok.clone()
            },
            ByteCodes {
                row_scale: vec![to_bf16(f32::NAN)],
                ..ok.clone()
            },
        ] {
            assert!(bad.validate("t").is_err(), "{bad:?}");
        }
    }

    #[test]
    fn not_representable_values_are_refused() {
        assert!(Grouped::from_i8(&[127, 1], &[1.0], 2, 4, 2).is_none());
        assert!(Grouped::from_i8(&[7, 1], &[1.1], 2, 4, 2).is_none());
        assert!(Grouped::from_i8(&[7, 1], &[1.0], 2, 4, 2).is_some());
    }

    #[test]
    fn corrupt_matrices_are_typed_errors() {
        let g = Grouped::from_i8(&[7, 1, -3, 0], &[1.0, 0.5], 2, 4, 2).unwrap();
        let mut bad = g.clone();
        bad.mults[0] = 0;
        assert!(bad.validate("t").is_err());
        let mut bad = g.clone();
        bad.packed[0] = 0;
        assert!(bad.validate("t").is_err());
        let mut bad = g.clone();
        bad.packed.pop();
        assert!(bad.validate("t").is_err());
        let mut bad = g;
        bad.row_scale[0] = to_bf16(f32::NAN);
        assert!(bad.validate("t").is_err());
    }
}
