//! The question encoder: all-MiniLM-L6-v2 (a 6-layer BERT), mean-pooled and L2-normalized, as
//! sentence-transformers runs it.
//!
//! A compact forward pass of our own rather than candle: the whole encoder (tokenizer included)
//! stays a few tens of KB of wasm. Several sequences run at once by stacking their tokens into one
//! matrix (no padding: only attention is per sequence), so the index build's matrix products are
//! large enough for the GEMM kernels (`matrixmultiply`) to run near peak.

mod file;
mod gptq;
pub mod grouped;
mod linear;
pub mod math;
mod remap;

pub use file::{ENCODER_MAGIC, ENCODER_VERSION};
pub use grouped::Grouped;
pub use linear::{dot_i8, gemm, gemm_i8, quantize_into, quantize_rows, Calibration, Linear};
pub use remap::{nearest_rows, PrunedWords};

use crate::tokenizer::WordPiece;

/// Sentence-transformers' `max_seq_length` for this model: longer inputs are truncated.
pub const MAX_TOKENS: usize = 256;
/// Word pieces the shipped question encoder reads: its position table stops here.
/// all-MiniLM-L6-v2 was fine-tuned on inputs of at most 128 word pieces (its model card), the
/// rows past them were never trained for sentence embedding, and a reader's question (at most
/// 1 000 characters, the selection's topic words after it) rarely reaches them; they cost 75–78 kB
/// of the deflated file. The index builder embeds the book with the exact model at [`MAX_TOKENS`].
pub const QUESTION_TOKENS: usize = 128;
/// Model id written into assets so a mismatch between index and encoder is caught.
pub const MODEL_ID: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// Shape of the transformer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncoderConfig {
    /// Width of the hidden state (the output dimension, 384 for MiniLM).
    pub hidden: usize,
    /// Number of transformer blocks.
    pub layers: usize,
    /// Attention heads per block (`hidden` is split evenly among them).
    pub heads: usize,
    /// Width of the feed-forward layer inside a block.
    pub intermediate: usize,
    /// Rows of the position table: the longest input in tokens.
    pub max_positions: usize,
}

impl EncoderConfig {
    /// all-MiniLM-L6-v2.
    pub const MINILM_L6: EncoderConfig = EncoderConfig {
        hidden: 384,
        layers: 6,
        heads: 12,
        intermediate: 1536,
        max_positions: 512,
    };

    /// Whether a shape read from a file is one the forward pass can run within sane memory:
    /// heads divide the width, and no dimension is zero or absurd. Any BERT-like shape is
    /// accepted (the golden test fixture is a 1-layer model of width 8).
    pub fn is_sane(&self) -> bool {
        (1..=4096).contains(&self.hidden)
            && (1..=48).contains(&self.layers)
            && (1..=64).contains(&self.heads)
            && self.hidden % self.heads == 0
            && (1..=16384).contains(&self.intermediate)
            && (1..=512).contains(&self.max_positions)
    }
}

/// Layer normalization parameters.
#[derive(Debug, Clone)]
pub struct LayerNorm {
    /// Scale per hidden unit.
    pub gamma: Vec<f32>,
    /// Shift per hidden unit.
    pub beta: Vec<f32>,
}

/// `values` rounded to the nearest bf16 values: the shipped encoder's biases, norms and token
/// type vector (0.3 % relative error at most, below what the int8 weights already cost; 0.04 MB
/// less per file than f32, `retrieval/FORMAT.md`).
pub(crate) fn bf16_values(values: &[f32]) -> Vec<f32> {
    values
        .iter()
        .map(|&v| grouped::from_bf16(grouped::to_bf16(v)))
        .collect()
}

/// The position table rounded to 8-bit codes with one step a row (the row's largest |value| over
/// 127, a bf16 value): the values to compute with and the codes to write. Half the bytes of bf16
/// values at the same fidelity (`retrieval/FORMAT.md`).
fn quantized_positions(positions: &[f32], h: usize) -> (Vec<f32>, Option<Grouped>) {
    let grid = grouped::Grid::Uniform(8);
    let (q, scales) = grouped::quantize_rows_grid(positions, h, &grid, h, None);
    match Grouped::from_i8(&q, &scales, h, 8, h) {
        Some(codes) => (codes.to_f32(), Some(codes)),
        // Not reached (any int8 matrix packs at 8 bits): keep bf16 values, as version 3 does.
        None => (bf16_values(positions), None),
    }
}

impl LayerNorm {
    /// Both vectors rounded to bf16 values, as the shipped file (version 5 and later) stores them.
    pub fn to_bf16(&self) -> LayerNorm {
        LayerNorm {
            gamma: bf16_values(&self.gamma),
            beta: bf16_values(&self.beta),
        }
    }

    fn apply(&self, x: &mut [f32]) {
        let h = self.gamma.len();
        for row in x.chunks_exact_mut(h) {
            let mean = row.iter().sum::<f32>() / h as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
            let inv = 1.0 / (var + 1e-12).sqrt();
            for ((v, g), b) in row.iter_mut().zip(&self.gamma).zip(&self.beta) {
                *v = (*v - mean) * inv * g + b;
            }
        }
    }
}

/// One transformer block.
#[derive(Debug, Clone)]
pub struct Layer {
    /// Projection to the attention queries.
    pub query: Linear,
    /// Projection to the attention keys.
    pub key: Linear,
    /// Projection to the attention values.
    pub value: Linear,
    /// Projection of the heads' concatenated output.
    pub attn_out: Linear,
    /// Normalization after the attention's residual sum.
    pub attn_norm: LayerNorm,
    /// Feed-forward expansion (hidden → intermediate, GELU after).
    pub ff_in: Linear,
    /// Feed-forward contraction (intermediate → hidden).
    pub ff_out: Linear,
    /// Normalization after the feed-forward's residual sum.
    pub ff_norm: LayerNorm,
}

/// Word embeddings, possibly pruned: `row_of[id]` is the stored row of token `id`, or `NO_ROW`.
#[derive(Debug, Clone)]
pub enum WordEmbeddings {
    /// The full f32 table (build time).
    F32(Vec<f32>),
    /// Pruned rows at 4 bits, two values a byte, one scale per group of [`Q4_GROUP`] values (shipped):
    /// the table is the largest part of the model, and 4 bits keep it inside the download budget.
    Q4 {
        /// Stored row of each token id, or [`NO_ROW`] for a pruned token.
        row_of: Vec<u16>,
        /// The stored rows' values, two 4-bit values a byte.
        packed: Vec<u8>,
        /// One scale per group of [`Q4_GROUP`] values.
        scales: Vec<f32>,
    },
    /// Pruned rows as a low-bit grouped matrix (version-2 files): see [`Grouped`].
    Grouped {
        /// Stored row of each token id, or [`NO_ROW`] for a pruned token.
        row_of: Vec<u16>,
        /// The stored rows.
        table: Grouped,
    },
}

/// How the shipped encoder is quantized (`Encoder::quantized_with`): bits and group width of the
/// layers' weights and of the word table. `index-builder build` ships the default: 4-bit codes
/// (groups of 32), except the FFN contraction at 5 bits and the last layer's attention output at 6.
/// Both output projections at 4 bits everywhere cost up to 0.016 of section recall@5 on the
/// labelled books and 0.006 of mean cosine to the f32 model; the FFN contraction at 5 bits saves
/// 0.8 MB for 0.0007. Per layer (held-out book paragraphs), the attention output at 4 bits costs
/// 0.0001–0.0002 of mean cosine in each of the first five layers and 0.0017 in the last, so only
/// the last keeps 6 bits (int8 rows everywhere cost 0.44 MB more, entropy-coded, for 0.0005);
/// `tests/encoder_plans.rs` in the index builder compares plans and prints this sensitivity.
/// The default is [`QuantPlan::ROW_STEPS`]: those bits, with most kinds rounded to one step a row
/// instead of one per group (see there). Fitted codebooks (`fitted`) lose to both on the sample book.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantPlan {
    /// Bits per weight of each layer's matrices, in the order [query, key, value, attention output,
    /// FFN expansion, FFN contraction] (8: int8 rows, one group a row).
    pub bits: [u8; 6],
    /// Bits of the last layer's matrices, in the same order: its attention output costs ten times
    /// the fidelity of any other layer's at 4 bits (`tests/encoder_plans.rs`, sensitivity).
    pub last_bits: [u8; 6],
    /// Values per group along a layer's input dimension.
    pub layer_group: usize,
    /// Bits per value of the word table.
    pub word_bits: u8,
    /// Values per group along a word-table row.
    pub word_group: usize,
    /// SmoothQuant's migration strength α in percent (0 = no balancing): input column k is divided
    /// by `s_k = max|x_k|^α / max|w_k|^(1-α)` and the weights' column multiplied by it.
    pub smooth_percent: u8,
    /// Round with GPTQ (error feedback weighted by the calibration inputs) rather than to nearest.
    pub gptq: bool,
    /// Per matrix kind (the order of `bits`, every layer): codes stand for a codebook of
    /// `2^bits` levels fitted to the matrix rather than for the uniform grid (file version 4).
    pub fitted: [bool; 6],
    /// The same for the word table.
    pub word_fitted: bool,
    /// Per matrix kind, in tenths: 0 = a step per group from its largest value (`bits` wide
    /// codes); otherwise one step a row, the row's rms over this (codes up to ±127,
    /// entropy-coded; `bits` then only says the kind is rounded below 8 bits).
    pub precision: [u8; 6],
    /// The same for the word table.
    pub word_precision: u8,
    /// Per layer (first to last; a layer past the sixth as the sixth), in percent: every row-step
    /// kind's `precision` in that layer is multiplied by this. The last layer's rounding error
    /// reaches the sentence vector undamped, so a bit there buys about twice the fidelity it
    /// buys in any earlier layer (`tests/encoder_plans.rs` with `ENCODER_PLANS_SENSITIVITY`).
    pub layer_precision: [u8; 6],
}

impl Default for QuantPlan {
    fn default() -> Self {
        QuantPlan::ROW_STEPS
    }
}

impl QuantPlan {
    /// The default before [`QuantPlan::ROW_STEPS`]: a step per group of 32 from the group's largest value, codes
    /// `bits` wide. Kept to compare plans (`tests/encoder_plans.rs`) and to read what it wrote.
    pub const GROUP_STEPS: QuantPlan = QuantPlan {
        bits: [4, 4, 4, 4, 4, 5],
        last_bits: [4, 4, 4, 6, 4, 5],
        layer_group: 32,
        word_bits: 4,
        word_group: 32,
        smooth_percent: 50,
        gptq: true,
        fitted: [false; 6],
        word_fitted: false,
        precision: [0; 6],
        word_precision: 0,
        layer_precision: [100; 6],
    };

    /// The default: every kind but the attention output, and the word table, rounded to one step a
    /// row (`precision`: the row's rms over 2.8 for query and key, 3.2 value, 3.3 FFN expansion,
    /// 4.2 FFN contraction, 2.7 word table; see `grouped::row_scales`), times 0.85, 0.8, 0.8,
    /// 0.85, 0.85 and 1.4 in layers 1 to 6 (`layer_precision`: 0.17 MB smaller on every book than
    /// one precision for all layers, mean cosine 0.9903 against 0.9909). On the five books 0.34–0.36
    /// MB (5 %) smaller than [`QuantPlan::GROUP_STEPS`], at a higher cosine to the f32 model
    /// (sample book: mean 0.9909 vs 0.9901, min 0.9797 vs 0.9741; held-out paragraphs 0.9898 vs
    /// 0.9889), section recall@5 within 0.01 on every labelled book and the same leave-one-book-out
    /// refusal figures (answerable refusals equal or lower).
    pub const ROW_STEPS: QuantPlan = QuantPlan {
        precision: [28, 28, 32, 0, 33, 42],
        word_precision: 27,
        layer_precision: [85, 80, 80, 85, 85, 140],
        ..QuantPlan::GROUP_STEPS
    };
}

impl QuantPlan {
    /// Whether the layers reading input `which` (0 query/key/value, 1 attention output, 2 FFN
    /// expansion, 3 FFN contraction; see [`InputRanges`]) are rounded with GPTQ, which needs
    /// their inputs' `Xᵀ X`.
    pub fn rounds_with_gptq(&self, which: usize) -> bool {
        let lowest = |k: usize| self.bits[k].min(self.last_bits[k]);
        let bits = match which {
            0 => lowest(0).min(lowest(1)).min(lowest(2)),
            1 => lowest(3),
            2 => lowest(4),
            _ => lowest(5),
        };
        self.gptq && bits < 8
    }
}

/// Rows of `Xᵀ X` computed per matrix product: each block row stops at the diagonal, so the
/// 1536-wide product costs 10 of 16 blocks.
const GRAM_BLOCK: usize = 384;

/// `g += Xᵀ X` for `x` of `n` rows of `w`, on and below the diagonal blocks only
/// ([`mirror_lower`] fills the rest once all texts are in).
fn add_gram_lower(g: &mut [f32], x: &[f32], n: usize, w: usize) {
    for i0 in (0..w).step_by(GRAM_BLOCK) {
        let i1 = (i0 + GRAM_BLOCK).min(w);
        gemm(
            (i1 - i0, n, i1),
            1.0,
            (&x[i0..], 1, w as isize),
            (x, w as isize, 1),
            1.0,
            (&mut g[i0 * w..], w as isize, 1),
        );
    }
}

/// Copies the lower triangle of a symmetric `w × w` matrix onto its upper triangle.
fn mirror_lower(g: &mut [f32], w: usize) {
    for i in 0..w {
        for j in i + 1..w {
            g[i * w + j] = g[j * w + i];
        }
    }
}

/// Shards of the calibration texts [`Encoder::input_ranges`] measures in parallel.
const RANGE_SHARDS: usize = 4;

/// Values sharing one scale in the 4-bit word embeddings.
pub const Q4_GROUP: usize = 64;

/// Packs values into 4-bit codes (-7..=7, offset by 8) with one scale per group of `Q4_GROUP`.
pub fn quantize_q4(values: &[f32]) -> (Vec<u8>, Vec<f32>) {
    let mut packed = vec![0u8; values.len().div_ceil(2)];
    let mut scales = Vec::with_capacity(values.len().div_ceil(Q4_GROUP));
    for (g, group) in values.chunks(Q4_GROUP).enumerate() {
        let max = group.iter().fold(0f32, |m, v| m.max(v.abs()));
        let scale = max / 7.0;
        scales.push(scale);
        for (i, v) in group.iter().enumerate() {
            let q = if scale > 0.0 {
                (v / scale).round().clamp(-7.0, 7.0) as i8
            } else {
                0
            };
            let idx = g * Q4_GROUP + i;
            let code = (q + 8) as u8;
            packed[idx / 2] |= if idx % 2 == 0 { code } else { code << 4 };
        }
    }
    (packed, scales)
}

/// Reads value `idx` back from [`quantize_q4`]'s output.
fn q4_value(packed: &[u8], scales: &[f32], idx: usize) -> f32 {
    let byte = packed.get(idx / 2).copied().unwrap_or(8);
    let code = if idx % 2 == 0 { byte & 0x0f } else { byte >> 4 };
    (code as i8 - 8) as f32 * scales.get(idx / Q4_GROUP).copied().unwrap_or(0.0)
}

/// Statistics of one layer's four distinct dense-product inputs on calibration text (see
/// [`Encoder::input_ranges`]): [query/key/value, attention output, FFN expansion, FFN contraction].
#[derive(Debug, Clone)]
pub struct InputRanges {
    /// Largest |value| of each input column.
    pub max: [Vec<f32>; 4],
    /// `Xᵀ X` of the inputs (width × width, row-major): what GPTQ weighs rounding errors by; empty
    /// for inputs whose layers are not rounded with GPTQ.
    pub gram: [Vec<f32>; 4],
}

/// Marks a vocabulary id whose embedding row was pruned; it is embedded as `[UNK]`.
pub const NO_ROW: u16 = u16::MAX;

/// The stored row of token `id` in a pruned word table: a pruned (or unknown) token reads the
/// `[UNK]` row, as the tokenizer would have produced `[UNK]` for it.
fn stored_row(row_of: &[u16], id: u32, unk_id: u32) -> u16 {
    let unk = row_of.get(unk_id as usize).copied().unwrap_or(0);
    match row_of.get(id as usize).copied() {
        Some(r) if r != NO_ROW => r,
        _ => unk,
    }
}

/// The encoder: tokenizer, embeddings and transformer layers.
#[derive(Debug, Clone)]
pub struct Encoder {
    /// The transformer's shape.
    pub config: EncoderConfig,
    /// The WordPiece tokenizer of the model's vocabulary.
    pub tokenizer: WordPiece,
    /// The vocabulary text (vocab.txt), kept to write the asset.
    pub vocab_text: String,
    /// Word (token) embeddings.
    pub words: WordEmbeddings,
    /// Position embeddings (max_positions × hidden).
    pub positions: Vec<f32>,
    /// The 8-bit codes (one step a row) `positions` were rounded to, when they were
    /// ([`Encoder::quantized_with`]; file versions 5 and 6 store them); `None`: bf16 or exact values.
    pub position_codes: Option<Grouped>,
    /// Token type 0 embedding (single-sentence input).
    pub token_type: Vec<f32>,
    /// Normalization of the summed word, position and token-type embeddings.
    pub embed_norm: LayerNorm,
    /// The transformer blocks, in order.
    pub layers: Vec<Layer>,
}

/// Whether the tokenizer can never emit vocabulary entry `token`: `[PAD]`, `[MASK]` and the
/// ~1000 `[unusedN]` entries (punctuation splits every word before WordPiece, so no piece starts
/// with `[`). Such entries get no row in the shipped word table.
pub fn never_emitted(token: &str) -> bool {
    token.len() > 1 && token.starts_with('[')
}

impl Encoder {
    /// Output dimension.
    pub fn dim(&self) -> usize {
        self.config.hidden
    }

    /// Embeds `text` into a unit-length vector (mean pooling over tokens, then L2 normalization).
    pub fn encode(&self, text: &str) -> Vec<f32> {
        self.encode_opening(text, MAX_TOKENS)
    }

    /// Embeds the opening of `text`: its first `max_tokens` token ids, `[CLS]` and `[SEP]`
    /// included (at most [`MAX_TOKENS`]). The encoder's time grows with the tokens, so a caller
    /// comparing many passages by their topic bounds each run's cost with this.
    pub fn encode_opening(&self, text: &str, max_tokens: usize) -> Vec<f32> {
        let max = max_tokens.min(MAX_TOKENS).min(self.config.max_positions);
        let ids = self.tokenizer.encode(text, max);
        self.encode_ids(&ids)
    }

    /// Embeds already tokenized ids (with `[CLS]`/`[SEP]`).
    pub fn encode_ids(&self, ids: &[u32]) -> Vec<f32> {
        self.encode_batch_ids(&[ids])
            .pop()
            .unwrap_or_else(|| vec![0.0; self.config.hidden])
    }

    /// Embeds several texts in one forward pass; same vectors as [`Encoder::encode`] on each.
    pub fn encode_batch(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        let max = MAX_TOKENS.min(self.config.max_positions);
        let ids: Vec<Vec<u32>> = texts
            .iter()
            .map(|t| self.tokenizer.encode(t, max))
            .collect();
        let refs: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
        self.encode_batch_ids(&refs)
    }

    /// Embeds several tokenized sequences in one pass: their tokens are stacked into one matrix
    /// for every dense layer, and attention runs per sequence. Sequences longer than the
    /// position table are cut; an empty one gives the zero vector.
    pub fn encode_batch_ids(&self, seqs: &[&[u32]]) -> Vec<Vec<f32>> {
        self.forward(seqs, None)
    }

    /// The largest |value| of each input column of every layer's dense products, over the tokens
    /// of `texts`: per layer, the inputs of [query/key/value, attention output, FFN expansion, FFN
    /// contraction]. What [`Encoder::quantized_with`] balances weights and activations by. `Xᵀ X`
    /// is measured only for the inputs `plan` rounds with GPTQ (the FFN contraction's, 1536 wide,
    /// costs more than the forward pass itself). The texts are cut into a fixed number of shards
    /// measured in parallel (feature `parallel`) and summed in order, so the result does not depend
    /// on the number of threads.
    pub fn input_ranges(&self, texts: &[&str], plan: &QuantPlan) -> Vec<InputRanges> {
        let shard = texts.len().div_ceil(RANGE_SHARDS).max(1);
        let shards: Vec<&[&str]> = texts.chunks(shard).collect();
        let measure = |texts: &&[&str]| self.input_ranges_of(texts, plan);
        #[cfg(feature = "parallel")]
        let parts: Vec<Vec<InputRanges>> = {
            use rayon::prelude::*;
            shards.par_iter().map(measure).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let parts: Vec<Vec<InputRanges>> = shards.iter().map(measure).collect();
        let mut parts = parts.into_iter();
        let mut total = parts
            .next()
            .unwrap_or_else(|| self.input_ranges_of(&[], plan));
        for part in parts {
            for (t, p) in total.iter_mut().zip(part) {
                for (tm, pm) in t.max.iter_mut().zip(&p.max) {
                    tm.iter_mut().zip(pm).for_each(|(a, b)| *a = a.max(*b));
                }
                for (tg, pg) in t.gram.iter_mut().zip(&p.gram) {
                    tg.iter_mut().zip(pg).for_each(|(a, b)| *a += b);
                }
            }
        }
        for r in &mut total {
            for (g, m) in r.gram.iter_mut().zip(&r.max) {
                if g.len() == m.len() * m.len() {
                    mirror_lower(g, m.len());
                }
            }
        }
        total
    }

    /// [`Encoder::input_ranges`] on one thread.
    fn input_ranges_of(&self, texts: &[&str], plan: &QuantPlan) -> Vec<InputRanges> {
        let h = self.config.hidden;
        let widths = [h, h, h, self.config.intermediate];
        let gram = |which: usize| {
            let w = widths[which];
            vec![
                0f32;
                if plan.rounds_with_gptq(which) {
                    w * w
                } else {
                    0
                }
            ]
        };
        let mut ranges = vec![
            InputRanges {
                max: widths.map(|w| vec![0f32; w]),
                gram: std::array::from_fn(gram),
            };
            self.layers.len()
        ];
        let max = MAX_TOKENS.min(self.config.max_positions);
        for batch in texts.chunks(16) {
            let ids: Vec<Vec<u32>> = batch
                .iter()
                .map(|t| self.tokenizer.encode(t, max))
                .collect();
            let refs: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
            self.forward(&refs, Some(&mut ranges));
        }
        ranges
    }

    fn forward(&self, seqs: &[&[u32]], mut ranges: Option<&mut Vec<InputRanges>>) -> Vec<Vec<f32>> {
        let h = self.config.hidden;
        let lens: Vec<usize> = seqs
            .iter()
            .map(|s| s.len().min(self.config.max_positions))
            .collect();
        let total: usize = lens.iter().sum();
        let mut x = vec![0f32; total * h];
        let mut rows = x.chunks_exact_mut(h);
        for (seq, &n) in seqs.iter().zip(&lens) {
            for (t, (&id, row)) in seq[..n].iter().zip(rows.by_ref()).enumerate() {
                self.word_row(id, row);
                let pos = &self.positions[t * h..(t + 1) * h];
                for ((v, p), ty) in row.iter_mut().zip(pos).zip(&self.token_type) {
                    *v += p + ty;
                }
            }
        }
        self.embed_norm.apply(&mut x);
        let mut scratch = Scratch::default();
        for (i, layer) in self.layers.iter().enumerate() {
            let r = ranges.as_mut().and_then(|r| r.get_mut(i));
            self.block(layer, &mut x, &lens, &mut scratch, r);
        }
        let mut out = Vec::with_capacity(seqs.len());
        let mut start = 0;
        for &n in &lens {
            let mut pooled = vec![0f32; h];
            for row in x[start * h..(start + n) * h].chunks_exact(h) {
                for (p, v) in pooled.iter_mut().zip(row) {
                    *p += v;
                }
            }
            normalize(&mut pooled);
            out.push(pooled);
            start += n;
        }
        out
    }

    fn word_row(&self, id: u32, out: &mut [f32]) {
        let h = self.config.hidden;
        match &self.words {
            WordEmbeddings::F32(table) => {
                let id = id as usize;
                if let Some(src) = table.get(id * h..(id + 1) * h) {
                    out.copy_from_slice(src);
                }
            }
            WordEmbeddings::Q4 {
                row_of,
                packed,
                scales,
            } => {
                let r = stored_row(row_of, id, self.tokenizer.unk_id());
                let base = r as usize * h;
                for (i, o) in out.iter_mut().enumerate() {
                    *o = q4_value(packed, scales, base + i);
                }
            }
            WordEmbeddings::Grouped { row_of, table } => {
                let r = stored_row(row_of, id, self.tokenizer.unk_id());
                table.row_into(r as usize, out);
            }
        }
    }

    /// One transformer block over the stacked tokens of sequences of lengths `lens`.
    fn block(
        &self,
        l: &Layer,
        x: &mut [f32],
        lens: &[usize],
        s: &mut Scratch,
        mut ranges: Option<&mut InputRanges>,
    ) {
        let h = self.config.hidden;
        let total = x.len() / h;
        let mut record = |which: usize, v: &[f32]| {
            if let Some(r) = ranges.as_mut() {
                let m = &mut r.max[which];
                let w = m.len();
                for row in v.chunks_exact(w) {
                    for (m, x) in m.iter_mut().zip(row) {
                        *m = m.max(x.abs());
                    }
                }
                let n = v.len() / w;
                if r.gram[which].len() != w * w {
                    return;
                }
                add_gram_lower(&mut r.gram[which], v, n, w);
            }
        };
        record(0, x);
        l.query.forward(x, total, &mut s.q);
        l.key.forward(x, total, &mut s.k);
        l.value.forward(x, total, &mut s.v);
        s.ctx.clear();
        s.ctx.resize(total * h, 0.0);
        let mut start = 0;
        for &n in lens {
            let span = start * h..(start + n) * h;
            attention(
                &s.q[span.clone()],
                &s.k[span.clone()],
                &s.v[span.clone()],
                &mut s.ctx[span],
                n,
                h,
                self.config.heads,
                &mut s.probs,
            );
            start += n;
        }
        record(1, &s.ctx);
        l.attn_out.forward(&s.ctx, total, &mut s.o);
        for (xv, ov) in x.iter_mut().zip(&s.o) {
            *xv += ov;
        }
        l.attn_norm.apply(x);
        record(2, x);
        l.ff_in.forward(x, total, &mut s.ff);
        math::gelu_in_place(&mut s.ff);
        record(3, &s.ff);
        l.ff_out.forward(&s.ff, total, &mut s.o);
        for (xv, ov) in x.iter_mut().zip(&s.o) {
            *xv += ov;
        }
        l.ff_norm.apply(x);
    }

    /// The shipped word table of [`Encoder::quantized_with`]: the rows of `keep[id] == true` and of
    /// `[UNK]`, `[CLS]`, `[SEP]`, at the plan's bits (no calibration: this part is quick, and a
    /// build whose layers come from a cache still ships its own book's vocabulary).
    pub fn quantized_words(&self, keep: &[bool], plan: &QuantPlan) -> WordEmbeddings {
        let h = self.config.hidden;
        match &self.words {
            WordEmbeddings::F32(table) => {
                let vocab = table.len() / h;
                let mut row_of = vec![NO_ROW; vocab];
                let mut rows = Vec::new();
                let tokens: Vec<&str> = self.vocab_text.lines().collect();
                let always: Vec<Option<u32>> = ["[UNK]", "[CLS]", "[SEP]"]
                    .iter()
                    .map(|t| self.tokenizer.id_of(t))
                    .collect();
                for id in 0..vocab {
                    let always = always.contains(&Some(id as u32));
                    let never = tokens.get(id).is_some_and(|t| never_emitted(t));
                    let wanted = keep.get(id).copied().unwrap_or(false) && !never;
                    if (wanted || always) && rows.len() / h < NO_ROW as usize {
                        row_of[id] = (rows.len() / h) as u16;
                        rows.extend_from_slice(&table[id * h..(id + 1) * h]);
                    }
                }
                let (grid, group, row_precision) = grouped::rounding(
                    &rows,
                    h,
                    plan.word_bits,
                    plan.word_group,
                    plan.word_fitted,
                    plan.word_precision as f32 / 10.0,
                    Vec::new,
                );
                let (q, s) = grouped::quantize_rows_grid(&rows, h, &grid, group, row_precision);
                match Grouped::from_i8_grid(&q, &s, h, &grid, group) {
                    Some(table) => WordEmbeddings::Grouped { row_of, table },
                    None => {
                        let (packed, scales) = quantize_q4(&rows);
                        WordEmbeddings::Q4 {
                            row_of,
                            packed,
                            scales,
                        }
                    }
                }
            }
            other => other.clone(),
        }
    }

    /// The shipped form with the default [`QuantPlan`].
    pub fn quantized(&self, keep: &[bool]) -> Encoder {
        self.quantized_with(keep, &QuantPlan::default(), &[])
    }

    /// The shipped form: grouped low-bit layers held as int8, word embeddings kept only for
    /// `keep[id] == true` (plus the special tokens) as a grouped low-bit table, the position
    /// table cut to [`QUESTION_TOKENS`] and rounded to 8-bit codes with one step a row, and biases,
    /// norms and the token type rounded to bf16 values. Exactly what `from_bytes(to_bytes())` gives.
    /// With `ranges` (from [`Encoder::input_ranges`] on text like the questions to come), each
    /// layer's input columns are balanced against its weights first (SmoothQuant), so that the
    /// few columns with large activations do not carry most of the rounding error.
    pub fn quantized_with(
        &self,
        keep: &[bool],
        plan: &QuantPlan,
        ranges: &[InputRanges],
    ) -> Encoder {
        let h = self.config.hidden;
        let words = self.quantized_words(keep, plan);
        let g = plan.layer_group;
        let last = self.layers.len().saturating_sub(1);
        let alpha = plan.smooth_percent as f32 / 100.0;
        // Every matrix is rounded independently: (matrix, bits, which input statistics).
        type Job<'a> = (&'a Linear, u8, Option<linear::Calibration<'a>>, bool, f32);
        let jobs: Vec<Job> = self
            .layers
            .iter()
            .enumerate()
            .flat_map(|(i, l)| {
                let r = move |which: usize| {
                    ranges.get(i).map(|r| linear::Calibration {
                        max: &r.max[which],
                        gram: &r.gram[which],
                        alpha,
                        gptq: plan.gptq,
                    })
                };
                let b = if i == last { plan.last_bits } else { plan.bits };
                let f = plan.fitted;
                let scale = plan.layer_precision[i.min(5)] as f32 / 100.0;
                let p = plan.precision.map(|p| p as f32 / 10.0 * scale);
                [
                    (&l.query, b[0], r(0), f[0], p[0]),
                    (&l.key, b[1], r(0), f[1], p[1]),
                    (&l.value, b[2], r(0), f[2], p[2]),
                    (&l.attn_out, b[3], r(1), f[3], p[3]),
                    (&l.ff_in, b[4], r(2), f[4], p[4]),
                    (&l.ff_out, b[5], r(3), f[5], p[5]),
                ]
            })
            .collect();
        let quantize = |(lin, bits, calib, fitted, precision): &Job| {
            lin.quantized_grouped(*bits, g, *calib, *fitted, *precision)
        };
        #[cfg(feature = "parallel")]
        let done: Vec<Linear> = {
            use rayon::prelude::*;
            jobs.par_iter().map(quantize).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let done: Vec<Linear> = jobs.iter().map(quantize).collect();
        let layers = self
            .layers
            .iter()
            .zip(done.chunks_exact(6))
            .map(|(l, m)| Layer {
                query: m[0].with_bf16_bias(),
                key: m[1].with_bf16_bias(),
                value: m[2].with_bf16_bias(),
                attn_out: m[3].with_bf16_bias(),
                attn_norm: l.attn_norm.to_bf16(),
                ff_in: m[4].with_bf16_bias(),
                ff_out: m[5].with_bf16_bias(),
                ff_norm: l.ff_norm.to_bf16(),
            })
            .collect();
        let positions_kept = QUESTION_TOKENS.min(self.config.max_positions);
        let (positions, position_codes) =
            quantized_positions(&self.positions[..positions_kept * h], h);
        Encoder {
            config: EncoderConfig {
                max_positions: positions_kept,
                ..self.config
            },
            tokenizer: self.tokenizer.clone(),
            vocab_text: self.vocab_text.clone(),
            words,
            positions,
            position_codes,
            token_type: bf16_values(&self.token_type),
            embed_norm: self.embed_norm.to_bf16(),
            layers,
        }
    }
}

#[derive(Default)]
struct Scratch {
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    ctx: Vec<f32>,
    o: Vec<f32>,
    ff: Vec<f32>,
    probs: Vec<f32>,
}

/// Scaled dot-product attention of one sequence (`n` tokens, rows of width `h` split into
/// `heads` heads): two matrix products per head, read in place through strides.
#[allow(clippy::too_many_arguments)]
fn attention(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    ctx: &mut [f32],
    n: usize,
    h: usize,
    heads: usize,
    probs: &mut Vec<f32>,
) {
    if n == 0 {
        return;
    }
    let d = h / heads;
    let scale = 1.0 / (d as f32).sqrt();
    if n < GEMM_ATTENTION_MIN_TOKENS {
        attention_direct(q, k, v, ctx, n, h, heads, probs);
        return;
    }
    probs.clear();
    probs.resize(n * n, 0.0);
    let hs = h as isize;
    for head in 0..heads {
        let off = head * d;
        // scores (n × n) = scale · Q_head (n × d) · K_headᵀ (d × n)
        gemm(
            (n, d, n),
            scale,
            (&q[off..], hs, 1),
            (&k[off..], 1, hs),
            0.0,
            (probs.as_mut_slice(), n as isize, 1),
        );
        for row in probs.chunks_exact_mut(n) {
            math::softmax_in_place(row);
        }
        // ctx_head (n × d) = P (n × n) · V_head (n × d)
        gemm(
            (n, n, d),
            1.0,
            (probs.as_slice(), n as isize, 1),
            (&v[off..], hs, 1),
            0.0,
            (&mut ctx[off..], hs, 1),
        );
    }
}

/// Sequences shorter than this (questions) take [`attention_direct`]: for a few tokens per head
/// the GEMM's packing costs more than it saves (measured in the browser, where it doubled the
/// encoding time of a question).
const GEMM_ATTENTION_MIN_TOKENS: usize = 64;

/// [`attention`] as plain loops, one query row at a time: same result, no packing buffers.
#[allow(clippy::too_many_arguments)]
fn attention_direct(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    ctx: &mut [f32],
    n: usize,
    h: usize,
    heads: usize,
    probs: &mut Vec<f32>,
) {
    let d = h / heads;
    let scale = 1.0 / (d as f32).sqrt();
    probs.clear();
    probs.resize(n, 0.0);
    for head in 0..heads {
        let off = head * d;
        for i in 0..n {
            let qi = &q[i * h + off..i * h + off + d];
            for (j, p) in probs.iter_mut().enumerate() {
                let kj = &k[j * h + off..j * h + off + d];
                *p = qi.iter().zip(kj).map(|(a, b)| a * b).sum::<f32>() * scale;
            }
            math::softmax_in_place(probs);
            let c = &mut ctx[i * h + off..i * h + off + d];
            for (j, &w) in probs.iter().enumerate() {
                let vj = &v[j * h + off..j * h + off + d];
                for (cv, vv) in c.iter_mut().zip(vj) {
                    *cv += w * vv;
                }
            }
        }
    }
}

/// Scales `v` to unit length (zero vectors stay zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_batch_gives_each_sequence_the_vector_it_gets_alone() {
        let enc = Encoder::from_bytes(include_bytes!("../../tests/golden/v1/encoder.bin"))
            .expect("golden encoder");
        let texts = [
            "which topics do nodes publish",
            "",
            "gazebo physics simulation of the robot and its links and joints",
            "urdf",
        ];
        let batch = enc.encode_batch(&texts);
        assert_eq!(batch.len(), texts.len());
        for (t, v) in texts.iter().zip(&batch) {
            let alone = enc.encode(t);
            for (a, b) in v.iter().zip(&alone) {
                assert!((a - b).abs() < 1e-6, "{t:?}: {v:?} vs {alone:?}");
            }
        }
        assert!(enc.encode_batch(&[]).is_empty());
    }

    #[test]
    fn an_opening_is_the_text_cut_to_its_first_tokens() {
        let enc = Encoder::from_bytes(include_bytes!("../../tests/golden/v1/encoder.bin"))
            .expect("golden encoder");
        let text = "gazebo physics simulation of the robot and its links and joints";
        // [CLS] gazebo physics [SEP]: the same vector as the first two words alone.
        let opening = enc.encode_opening(text, 4);
        let two_words = enc.encode("gazebo physics");
        assert_eq!(opening.len(), enc.dim());
        for (a, b) in opening.iter().zip(&two_words) {
            assert!((a - b).abs() < 1e-6);
        }
        // A cap past the text's length, or past the encoder's own limit, changes nothing.
        assert_eq!(enc.encode_opening(text, 500), enc.encode(text));
        assert_eq!(enc.encode_opening(text, 0).len(), enc.dim());
    }

    #[test]
    fn gram_by_lower_blocks_is_the_full_product() {
        let (n, w) = (5, GRAM_BLOCK * 2 + 50);
        let x: Vec<f32> = (0..n * w)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0)
            .collect();
        let mut g = vec![0f32; w * w];
        add_gram_lower(&mut g, &x, n, w);
        add_gram_lower(&mut g, &x, n, w);
        mirror_lower(&mut g, w);
        for i in 0..w {
            for j in 0..w {
                let want: f32 = 2.0 * (0..n).map(|t| x[t * w + i] * x[t * w + j]).sum::<f32>();
                assert!(
                    (g[i * w + j] - want).abs() <= 1e-3 * want.abs().max(1.0),
                    "({i}, {j})"
                );
            }
        }
    }

    #[test]
    fn gemm_attention_matches_the_direct_loops() {
        let (h, heads) = (24, 3);
        for n in [GEMM_ATTENTION_MIN_TOKENS, 70] {
            let val = |i: usize, m: usize| ((i * m % 97) as f32 - 48.0) / 40.0;
            let q: Vec<f32> = (0..n * h).map(|i| val(i, 31)).collect();
            let k: Vec<f32> = (0..n * h).map(|i| val(i, 17)).collect();
            let v: Vec<f32> = (0..n * h).map(|i| val(i, 53)).collect();
            let (mut a, mut b, mut p) = (vec![0f32; n * h], vec![0f32; n * h], Vec::new());
            attention(&q, &k, &v, &mut a, n, h, heads, &mut p);
            attention_direct(&q, &k, &v, &mut b, n, h, heads, &mut p);
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() < 1e-5, "{x} vs {y}");
            }
        }
    }

    proptest! {
        #[test]
        fn q4_round_trip_error_is_bounded(v in proptest::collection::vec(-3f32..3f32, 1..300)) {
            let (packed, scales) = quantize_q4(&v);
            for (i, x) in v.iter().enumerate() {
                let s = scales[i / Q4_GROUP];
                prop_assert!((q4_value(&packed, &scales, i) - x).abs() <= s * 0.5 + 1e-5);
            }
        }
    }
}
