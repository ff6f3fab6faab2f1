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
    /// Empty: a code stands for `code − 2^(bits−1)` (versions 2 and 3, and uniform matrices of
    /// version 4). Otherwise the fitted codebook of version 4: code `c` stands for `levels[c]`.
    pub levels: Vec<i8>,
}

/// The integer values a group's codes stand for, before its multiplier: the uniform
/// `-qmax..=qmax`, or a codebook of levels fitted to the matrix (see [`fit_levels`]), which places
/// more levels where the weights are dense and the inputs large.
#[derive(Debug, Clone, PartialEq)]
pub enum Grid {
    /// `-qmax(bits)..=qmax(bits)`.
    Uniform(u8),
    /// Ascending, distinct levels in `-127..=127`, at most 256.
    Levels(Vec<i8>),
}

impl Grid {
    /// The grid of a matrix's code table (`levels` of [`Grouped`]; empty = uniform at `bits`).
    pub fn of(bits: u8, levels: &[i8]) -> Grid {
        if levels.is_empty() {
            Grid::Uniform(bits)
        } else {
            Grid::Levels(levels.to_vec())
        }
    }

    /// Largest |level| (at least 1).
    pub fn reach(&self) -> i32 {
        match self {
            Grid::Uniform(bits) => qmax(*bits),
            Grid::Levels(l) => l
                .iter()
                .map(|&v| (v as i32).abs())
                .max()
                .unwrap_or(1)
                .max(1),
        }
    }

    /// Largest group multiplier: `reach × max_mult ≤ 127`.
    pub fn max_mult(&self) -> i32 {
        127 / self.reach()
    }

    /// The level nearest `x` (in units of the group's step).
    pub fn snap(&self, x: f64) -> i32 {
        match self {
            Grid::Uniform(bits) => {
                let qm = qmax(*bits) as f64;
                x.round().clamp(-qm, qm) as i32
            }
            Grid::Levels(l) => {
                let i = l.partition_point(|&v| (v as f64) < x);
                let above = l.get(i).map(|&v| v as i32);
                let below = i.checked_sub(1).and_then(|j| l.get(j)).map(|&v| v as i32);
                match (below, above) {
                    (Some(b), Some(a)) => {
                        if x - b as f64 <= a as f64 - x {
                            b
                        } else {
                            a
                        }
                    }
                    (Some(b), None) => b,
                    (None, Some(a)) => a,
                    (None, None) => 0,
                }
            }
        }
    }

    /// Bits a code needs.
    pub fn bits(&self) -> u8 {
        match self {
            Grid::Uniform(bits) => *bits,
            Grid::Levels(l) => {
                (usize::BITS - l.len().saturating_sub(1).leading_zeros()).max(2) as u8
            }
        }
    }

    /// The code table [`Grouped`] stores (empty for the uniform grid).
    pub fn table(&self) -> Vec<i8> {
        match self {
            Grid::Uniform(_) => Vec::new(),
            Grid::Levels(l) => l.clone(),
        }
    }
}

/// How one matrix (rows of `cols`) is rounded under a plan's settings for its kind: with
/// `precision > 0`, one step a row (its rms over `precision`, codes up to ±127, the whole row one
/// group); with `fitted`, `2^bits` levels fitted to the weights, each column counted by
/// `column_weight()` (called only then; empty = every column 1); else the uniform grid of `bits`.
/// At 8 bits neither applies. Returns the grid, the group width and the row precision, as
/// [`quantize_rows_grid`] and GPTQ take them. The one choice for the layers and the word table.
pub fn rounding(
    w: &[f32],
    cols: usize,
    bits: u8,
    group: usize,
    fitted: bool,
    precision: f32,
    column_weight: impl FnOnce() -> Vec<f64>,
) -> (Grid, usize, Option<f32>) {
    if precision > 0.0 && bits < 8 {
        (Grid::Uniform(8), cols, Some(precision))
    } else if fitted && bits < 8 {
        let count = 1usize << bits;
        let levels = fit_levels(w, cols, &column_weight(), group, count, (count - 1) as i32);
        (Grid::Levels(levels), group, None)
    } else {
        (Grid::Uniform(bits), group, None)
    }
}

/// A codebook of `count` integer levels in `-reach..=reach` for a matrix (rows of `cols`) quantized
/// in groups of `group`: the levels of least squared error, each weight counted with `weight` of its
/// column (e.g. the diagonal of GPTQ's `Xᵀ X`: a column that sees large inputs matters more), after
/// scaling each group as [`quantize_rows_grid`] would. Exact: in one dimension the best levels
/// cut the sorted values into contiguous runs, so a dynamic programme over the `2·reach + 1`
/// candidate integers finds them (SqueezeLLM fits its codebooks with weighted k-means instead).
pub fn fit_levels(
    w: &[f32],
    cols: usize,
    weight: &[f64],
    group: usize,
    count: usize,
    reach: i32,
) -> Vec<i8> {
    let reach = reach.clamp(1, 127);
    let mm = 127 / reach;
    let group = group.max(1);
    // Weighted histogram of the scaled values, `BINS` bins a unit.
    const BINS: i32 = 16;
    let nb = (2 * reach * BINS + 1) as usize;
    let mut hist = vec![0f64; nb];
    for row in w.chunks_exact(cols.max(1)) {
        let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
        let base = from_bf16(to_bf16(max / (reach * mm) as f32)) as f64;
        if base <= 0.0 || !base.is_finite() {
            continue;
        }
        for (gi, g) in row.chunks(group).enumerate() {
            let gmax = g.iter().fold(0f32, |m, v| m.max(v.abs())) as f64;
            let m = ((gmax / (reach as f64 * base)).ceil() as i32).clamp(1, mm);
            let step = m as f64 * base;
            for (k, &v) in g.iter().enumerate() {
                let x = (v as f64 / step).clamp(-reach as f64, reach as f64);
                let b = ((x + reach as f64) * BINS as f64).round() as usize;
                let wk = weight.get(gi * group + k).copied().unwrap_or(1.0).max(0.0);
                hist[b.min(nb - 1)] += wk;
            }
        }
    }
    let pos = |b: usize| b as f64 / BINS as f64 - reach as f64;
    let cands: Vec<i32> = (-reach..=reach).collect();
    let p = cands.len();
    let count = count.clamp(1, p);
    let bin_of = |c: i32| ((c + reach) * BINS) as usize;
    // Cost of the bins strictly between candidates a < b, each to the nearer; left of a; right of b.
    let between = |a: usize, b: usize| -> f64 {
        let (ca, cb) = (cands[a] as f64, cands[b] as f64);
        (bin_of(cands[a]) + 1..bin_of(cands[b]))
            .map(|i| {
                let x = pos(i);
                hist[i] * (x - ca).powi(2).min((cb - x).powi(2))
            })
            .sum()
    };
    let left = |a: usize| -> f64 {
        (0..bin_of(cands[a]))
            .map(|i| hist[i] * (pos(i) - cands[a] as f64).powi(2))
            .sum()
    };
    let right = |b: usize| -> f64 {
        (bin_of(cands[b]) + 1..nb)
            .map(|i| hist[i] * (pos(i) - cands[b] as f64).powi(2))
            .sum()
    };
    let mut seg = vec![0f64; p * p];
    for a in 0..p {
        for b in a + 1..p {
            seg[a * p + b] = between(a, b);
        }
    }
    // best[j][b]: least cost of the values up to candidate b with j + 1 levels, the last at b.
    let mut best = vec![vec![f64::INFINITY; p]; count];
    let mut from = vec![vec![usize::MAX; p]; count];
    for (b, first) in best[0].iter_mut().enumerate() {
        *first = left(b);
    }
    for j in 1..count {
        for b in j..p {
            for a in j - 1..b {
                let c = best[j - 1][a] + seg[a * p + b];
                if c < best[j][b] {
                    best[j][b] = c;
                    from[j][b] = a;
                }
            }
        }
    }
    let mut end = (count - 1..p)
        .min_by(|&x, &y| {
            (best[count - 1][x] + right(x)).total_cmp(&(best[count - 1][y] + right(y)))
        })
        .unwrap_or(p - 1);
    let mut levels = Vec::with_capacity(count);
    for j in (0..count).rev() {
        levels.push(cands[end] as i8);
        if j > 0 {
            end = from[j][end];
        }
    }
    levels.reverse();
    levels
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
    quantize_rows_grid(w, cols, &Grid::Uniform(bits), group, None)
}

/// Each row's scale (a bf16 value): its largest |value| over `reach × max_mult`, so that the
/// largest group's multiplier is the largest; or, with `precision`, its values' rms over
/// `precision` (a row whose largest value is past that step's reach takes the coarser step that
/// holds it). With [`Grid::Uniform`]`(8)` and one group a row, every weight of a row is then
/// rounded to the same step: once the codes are entropy-coded, a group of small weights costs
/// few bits instead of as many as any other group, which buys more fidelity for the same bytes
/// than a step per group fitted to its largest value (`tests/encoder_plans.rs` in the index
/// builder: see `QuantPlan::precision`).
pub fn row_scales(w: &[f32], cols: usize, grid: &Grid, precision: Option<f32>) -> Vec<f32> {
    let (qm, mm) = (grid.reach(), grid.max_mult());
    w.chunks_exact(cols.max(1))
        .map(|row| {
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            let least = max / (qm * mm) as f32;
            let step = precision.filter(|&p| p > 0.0).map_or(least, |p| {
                let rms = (row.iter().map(|&v| (v as f64) * (v as f64)).sum::<f64>()
                    / row.len().max(1) as f64)
                    .sqrt() as f32;
                (rms / p).max(least)
            });
            from_bf16(to_bf16(step))
        })
        .collect()
}

/// [`quantize_rows_grouped`] on any [`Grid`]: each value is `level × multiplier`. With
/// `precision`, each row's step is its rms over it (see [`row_scales`]).
pub fn quantize_rows_grid(
    w: &[f32],
    cols: usize,
    grid: &Grid,
    group: usize,
    precision: Option<f32>,
) -> (Vec<i8>, Vec<f32>) {
    let (qm, mm) = (grid.reach(), grid.max_mult());
    let group = group.max(1);
    let mut q = vec![0i8; w.len()];
    let mut scales = Vec::with_capacity(w.len() / cols.max(1));
    for ((src, dst), base) in w
        .chunks_exact(cols)
        .zip(q.chunks_exact_mut(cols))
        .zip(row_scales(w, cols, grid, precision))
    {
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
                        let c = grid.snap((v / step) as f64) as f32;
                        (v - c * step) * (v - c * step)
                    })
                    .sum();
                if err < best.0 {
                    best = (err, m);
                }
            }
            let step = best.1 as f32 * base;
            for (v, o) in s.iter().zip(d.iter_mut()) {
                *o = (grid.snap((v / step) as f64) * best.1) as i8;
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
        if !(2..=8).contains(&bits) {
            return None;
        }
        Grouped::from_i8_grid(q, scales, cols, &Grid::Uniform(bits), group)
    }

    /// [`Grouped::from_i8`] for values made by [`quantize_rows_grid`] on `grid`.
    pub fn from_i8_grid(
        q: &[i8],
        scales: &[f32],
        cols: usize,
        grid: &Grid,
        group: usize,
    ) -> Option<Grouped> {
        let bits = grid.bits();
        if !(1..=8).contains(&bits) || group == 0 || cols == 0 || q.len() != scales.len() * cols {
            return None;
        }
        // The code of each level value (offset by 128), or none.
        let mut code_of = [None::<u8>; 256];
        match grid {
            Grid::Uniform(b) => {
                let qm = qmax(*b);
                for c in -qm..=qm {
                    code_of[(c + 128) as usize] = Some((c + qm + 1) as u8);
                }
            }
            Grid::Levels(l) => {
                if l.is_empty() || l.len() > 256 {
                    return None;
                }
                for (i, &v) in l.iter().enumerate() {
                    code_of[(v as i32 + 128) as usize] = Some(i as u8);
                }
            }
        }
        let mm = grid.max_mult();
        let mut codes = Vec::with_capacity(q.len());
        let mut mults = Vec::new();
        for row in q.chunks_exact(cols) {
            for g in row.chunks(group) {
                let m = (1..=mm).find(|m| {
                    g.iter().all(|&v| {
                        v as i32 % m == 0 && code_of[(v as i32 / m + 128) as usize].is_some()
                    })
                })?;
                mults.push(m as u8);
                codes.extend(
                    g.iter()
                        .map(|&v| code_of[(v as i32 / m + 128) as usize].unwrap_or(0)),
                );
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
            levels: grid.table(),
        })
    }

    /// Checks every count, code and multiplier (a file's contents are not trusted).
    pub fn validate(&self, what: &'static str) -> Result<(), AssetError> {
        let bad = |reason: String| AssetError::Corrupt { what, reason };
        let n = self.rows * self.cols;
        check_frame(
            Frame {
                rows: self.rows,
                cols: self.cols,
                bits: self.bits,
                group: self.group,
                mults: &self.mults,
                row_scale: &self.row_scale,
                levels: &self.levels,
            },
            self.packed.len() == (n * self.bits as usize).div_ceil(8),
            what,
        )?;
        if self.levels.is_empty() {
            if (0..n).any(|i| self.code(i) == 0) {
                return Err(bad("code 0 is not used".into()));
            }
        } else if (0..n).any(|i| self.code(i) as usize >= self.levels.len()) {
            return Err(bad("a code past the end of the level table".into()));
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
        level(&self.levels, self.bits, self.code(idx) as u8) * m
    }

    /// The int8 matrix and its row scales (what an int8 layer multiplies with). Call on a
    /// validated matrix only: its values then all fit int8.
    pub fn to_i8(&self) -> (Vec<i8>, Vec<f32>) {
        let q = (0..self.rows * self.cols)
            .map(|i| self.int(i).clamp(-127, 127) as i8)
            .collect();
        (q, self.row_scale.iter().map(|&s| from_bf16(s)).collect())
    }

    /// Every row as f32, row-major (what a table computed with, such as the positions, holds).
    pub fn to_f32(&self) -> Vec<f32> {
        let mut values = vec![0f32; self.rows * self.cols];
        for (r, row) in values.chunks_exact_mut(self.cols.max(1)).enumerate() {
            self.row_into(r, row);
        }
        values
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
    /// The code table, as [`Grouped::levels`].
    pub levels: Vec<i8>,
}

/// The level code `c` stands for: in `levels`, or `c − 2^(bits−1)` when it is empty.
fn level(levels: &[i8], bits: u8, c: u8) -> i32 {
    if levels.is_empty() {
        c as i32 - qmax(bits) - 1
    } else {
        levels.get(c as usize).copied().unwrap_or(0) as i32
    }
}

/// What [`Grouped`] and [`ByteCodes`] hold besides their codes (packed or one a byte).
struct Frame<'a> {
    rows: usize,
    cols: usize,
    bits: u8,
    group: usize,
    mults: &'a [u8],
    row_scale: &'a [u16],
    levels: &'a [i8],
}

/// The checks both code layouts share, in this order: the shape, the sizes (`codes_fit`: the
/// caller's codes have the shape's length), the code table and multipliers, the row scales.
fn check_frame(f: Frame, codes_fit: bool, what: &'static str) -> Result<(), AssetError> {
    let bad = |reason: String| AssetError::Corrupt { what, reason };
    if !(2..=8).contains(&f.bits) || f.group == 0 || f.cols == 0 {
        return Err(bad(format!(
            "matrix of {} bits, groups of {}",
            f.bits, f.group
        )));
    }
    if !codes_fit
        || f.mults.len() != f.rows * f.cols.div_ceil(f.group)
        || f.row_scale.len() != f.rows
    {
        return Err(bad("matrix sizes disagree with its shape".into()));
    }
    check_levels(f.levels, f.bits, f.mults, what)?;
    if f.row_scale.iter().any(|&s| !from_bf16(s).is_finite()) {
        return Err(AssetError::NotFinite { what });
    }
    Ok(())
}

/// Checks a code table and the multipliers against it: at most `2^bits` levels, and every
/// `level × multiplier` inside int8.
fn check_levels(
    levels: &[i8],
    bits: u8,
    mults: &[u8],
    what: &'static str,
) -> Result<(), AssetError> {
    let bad = |reason: String| AssetError::Corrupt { what, reason };
    if levels.len() > 1usize << bits || levels.contains(&i8::MIN) {
        return Err(bad(format!(
            "a level table of {} entries at {bits} bits",
            levels.len()
        )));
    }
    let mm = Grid::of(bits, levels).max_mult();
    if mults.iter().any(|&m| m == 0 || m as i32 > mm) {
        return Err(bad("group multiplier out of range".into()));
    }
    Ok(())
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
            levels: m.levels.clone(),
        }
    }

    /// Checks every count, code and multiplier, as [`Grouped::validate`] does.
    pub fn validate(&self, what: &'static str) -> Result<(), AssetError> {
        let bad = |reason: String| AssetError::Corrupt { what, reason };
        check_frame(
            Frame {
                rows: self.rows,
                cols: self.cols,
                bits: self.bits,
                group: self.group,
                mults: &self.mults,
                row_scale: &self.row_scale,
                levels: &self.levels,
            },
            Some(self.codes.len()) == self.rows.checked_mul(self.cols),
            what,
        )?;
        if self.levels.is_empty() {
            if self
                .codes
                .iter()
                .any(|&c| c == 0 || u32::from(c) >> self.bits != 0)
            {
                return Err(bad(format!("a code is 0 or wider than {} bits", self.bits)));
            }
        } else if self.codes.iter().any(|&c| c as usize >= self.levels.len()) {
            return Err(bad("a code past the end of the level table".into()));
        }
        Ok(())
    }

    /// The int8 matrix and its row scales, as [`Grouped::to_i8`] gives them. Call on a validated
    /// matrix only.
    pub fn to_i8(&self) -> (Vec<i8>, Vec<f32>) {
        // A fitted codebook: the level of each code, one lookup a value. The uniform grid keeps
        // plain arithmetic, which vectorizes (a lookup does not: 8 % slower to load).
        let table: Vec<i32> = if self.levels.is_empty() {
            Vec::new()
        } else {
            (0..=255u8)
                .map(|c| level(&self.levels, self.bits, c))
                .collect()
        };
        let offset = qmax(self.bits) + 1;
        let mut q = Vec::with_capacity(self.codes.len());
        for (row, mults) in self
            .codes
            .chunks_exact(self.cols)
            .zip(self.mults.chunks_exact(self.cols.div_ceil(self.group)))
        {
            for (g, &m) in row.chunks(self.group).zip(mults) {
                let m = m as i32;
                if table.is_empty() {
                    q.extend(
                        g.iter()
                            .map(|&c| ((c as i32 - offset) * m).clamp(-127, 127) as i8),
                    );
                } else {
                    q.extend(
                        g.iter()
                            .map(|&c| (table[c as usize] * m).clamp(-127, 127) as i8),
                    );
                }
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
            levels: self.levels,
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
            levels: Vec::new(),
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
    fn snap_picks_the_nearest_level() {
        let g = Grid::Levels(vec![-9, -3, 0, 2, 11]);
        for (x, want) in [
            (-20.0, -9),
            (-6.1, -9),
            (-5.9, -3),
            (0.9, 0),
            (1.1, 2),
            (6.4, 2),
            (6.6, 11),
            (99.0, 11),
        ] {
            assert_eq!(g.snap(x), want, "{x}");
        }
        assert_eq!((g.reach(), g.max_mult(), g.bits()), (11, 11, 3));
        assert_eq!(Grid::Uniform(4).snap(7.6), 7);
        assert_eq!(Grid::Uniform(4).snap(-2.4), -2);
    }

    /// Weighted squared error of rounding the scaled values `xs` to `levels`.
    fn cost(xs: &[(f64, f64)], levels: &[i8]) -> f64 {
        let g = Grid::Levels(levels.to_vec());
        xs.iter()
            .map(|&(x, w)| w * (x - g.snap(x) as f64).powi(2))
            .sum()
    }

    #[test]
    fn fitted_levels_are_the_best_subset_of_the_grid() {
        // One row of one group whose largest value scales to the grid's reach (7 at 3 bits: the
        // multiplier is 127 / 7 = 18 and the row scale max / 126, so value / step = value × 7 / max).
        let w: Vec<f32> = (0..32)
            .map(|i| {
                let t = (i as f32 * 0.37).sin();
                t * t * t * 7.0
            })
            .collect();
        let weight: Vec<f64> = (0..32).map(|i| 1.0 + (i % 3) as f64).collect();
        let levels = fit_levels(&w, 32, &weight, 32, 4, 7);
        assert_eq!(levels.len(), 4);
        assert!(levels.windows(2).all(|p| p[0] < p[1]), "{levels:?}");
        let max = w.iter().fold(0f32, |m, v| m.max(v.abs()));
        let xs: Vec<(f64, f64)> = w
            .iter()
            .zip(&weight)
            .map(|(&v, &k)| ((v * 7.0 / max) as f64, k))
            .collect();
        // Brute force over every 4 of the 15 integers.
        let mut best = f64::INFINITY;
        for a in -7..=7i8 {
            for b in a + 1..=7 {
                for c in b + 1..=7 {
                    for d in c + 1..=7 {
                        best = best.min(cost(&xs, &[a, b, c, d]));
                    }
                }
            }
        }
        // The fit works on a histogram of 1/16 bins: allow that much.
        assert!(
            cost(&xs, &levels) <= best * 1.02 + 1e-9,
            "{levels:?}: {} vs {best}",
            cost(&xs, &levels)
        );
    }

    #[test]
    fn a_fitted_grid_round_trips_through_both_layouts() {
        let w: Vec<f32> = (0..4 * 48)
            .map(|i| ((i * 17 % 31) as f32 - 15.0).powi(3) / 900.0)
            .collect();
        let levels = fit_levels(&w, 48, &[], 16, 8, 7);
        let grid = Grid::Levels(levels.clone());
        let (q, s) = quantize_rows_grid(&w, 48, &grid, 16, None);
        let g = Grouped::from_i8_grid(&q, &s, 48, &grid, 16).unwrap();
        assert_eq!((g.bits, g.levels.clone()), (3, levels));
        g.validate("t").unwrap();
        assert_eq!(g.to_i8(), (q.clone(), s.clone()));
        let b = ByteCodes::of(&g);
        b.validate("t").unwrap();
        assert_eq!(b.to_i8(), (q, s));
        assert_eq!(b.clone().into_grouped(), g);
        // A code past the table, a table too long for the bits, a multiplier too large for it.
        let mut bad = b.clone();
        bad.levels.pop();
        assert!(bad.validate("t").is_err() || !bad.codes.contains(&7));
        let mut bad = b.clone();
        bad.levels = (0..9).collect();
        assert!(bad.validate("t").is_err());
        let mut bad = b;
        bad.mults[0] = (127 / grid.reach() + 1) as u8;
        assert!(bad.validate("t").is_err());
    }

    #[test]
    fn a_row_step_is_the_rows_rms_over_the_precision_unless_a_value_would_clip() {
        // Row 0: rms 2, step 2 / 100. Row 1: rms 100, step 1, but 200 would then be 200 steps:
        // the step is 200 / 127.
        let mut w = vec![2f32, -2.0, 2.0, -2.0];
        w.extend([200.0, 0.0, 0.0, 0.0]);
        let s = row_scales(&w, 4, &Grid::Uniform(8), Some(100.0));
        assert_eq!(s[0], from_bf16(to_bf16(0.02)));
        assert_eq!(s[1], from_bf16(to_bf16(200.0 / 127.0)));
        let (q, scales) = quantize_rows_grid(&w, 4, &Grid::Uniform(8), 4, Some(100.0));
        assert_eq!(&q[..4], &[100, -100, 100, -100]);
        assert_eq!(q[4], 127);
        // Any such matrix is written exactly by some encoding of the writer.
        assert!(Grouped::from_i8(&q, &scales, 4, 8, 4).is_some());
        // Without a precision, the step comes from the row's largest value as before.
        assert_eq!(
            row_scales(&w, 4, &Grid::Uniform(4), None)[0],
            from_bf16(to_bf16(2.0 / 126.0))
        );
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
