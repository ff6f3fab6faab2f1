//! `encoder.bin`: the shipped quantized encoder (see `FORMAT.md`, section "Encoder file").
//! Version 6 (version 5 with each matrix's codes stored column by column, columns of similar
//! spread together) is written for every encoder `Encoder::quantized_with` makes; versions 5
//! (version 4 with 8-bit positions and bf16 biases, norms and token type), 4 (version 3 with a codebook per
//! matrix), 3 (version 2 with each matrix's codes one a byte, entropy-coded), 2 (grouped low-bit
//! layers and word table, codes bit-packed, bf16 positions) and 1 (int8 layers, 4-bit word table)
//! are still read, and 4 or 3 written for an encoder whose positions are bf16 values.

use super::grouped::{from_bf16, to_bf16, ByteCodes, Grid, Grouped};
use super::{Encoder, EncoderConfig, Layer, LayerNorm, Linear, WordEmbeddings, MODEL_ID};
use crate::binio::{envelope, open_envelope, Reader, Writer};
use crate::error::AssetError;
use crate::tokenizer::WordPiece;

/// First bytes of an encoder file.
pub const ENCODER_MAGIC: &[u8; 8] = b"BKCHENC\0";
/// The newest encoder file version this build writes ([`Encoder::file_version`]).
pub const ENCODER_VERSION: u32 = 6;
/// Every version this build reads.
const READS: [u32; 6] = [1, 2, 3, 4, 5, ENCODER_VERSION];
/// Column classes of a version-6 matrix: its columns ranked by the spread of their codes and cut
/// into this many runs of equal size, each run entropy-coded with its own Huffman tables.
const CODE_CLASSES: u8 = 8;
/// Most column classes a version-6 reader accepts.
const MAX_CODE_CLASSES: u8 = 16;
/// Largest inflated code section: one matrix's codes, one a byte.
const MAX_CODES: usize = 256 << 20;
/// Encodings the writer tries for an int8 layer, smallest first: (bits, group). The first that
/// holds the layer's values exactly is written.
const LAYER_ENCODINGS: [(u8, usize); 10] = [
    (2, 32),
    (3, 64),
    (3, 32),
    (4, 128),
    (4, 64),
    (4, 32),
    (4, 16),
    (5, 32),
    (6, 32),
    (8, usize::MAX),
];
/// Group widths the writer tries for a layer with a fitted codebook, fewest multipliers first.
const FITTED_GROUPS: [usize; 5] = [128, 64, 32, 16, 8];
const WHAT: &str = "encoder file";

impl Encoder {
    /// Serializes a quantized encoder in the current version. Returns an error if a layer or the
    /// word table is still f32, or the position table is not bf16 values (not made by `quantized`).
    pub fn to_bytes(&self) -> Result<Vec<u8>, AssetError> {
        let body: Vec<u8> = self
            .file_parts()?
            .into_iter()
            .flat_map(|(_, bytes)| bytes)
            .collect();
        let mut out = envelope(ENCODER_MAGIC, self.file_version());
        out.str(MODEL_ID);
        out.hashed_body(&body);
        Ok(out.finish())
    }

    /// The version [`Encoder::to_bytes`] writes: the oldest that holds this encoder, except that
    /// the newest is written when the positions are 8-bit codes (every encoder `quantized_with`
    /// makes; version 5's matrices, coded row by row, are read but no longer written); otherwise 4 when
    /// a matrix has a fitted codebook and 3 when none has, so that such an encoder ships the same
    /// bytes as before those versions existed.
    pub fn file_version(&self) -> u32 {
        if self.position_codes.is_some() {
            return ENCODER_VERSION;
        }
        let fitted_words = matches!(&self.words, WordEmbeddings::Grouped { table, .. } if !table.levels.is_empty());
        let fitted_layer = self.layers.iter().any(|l| {
            [&l.query, &l.key, &l.value, &l.attn_out, &l.ff_in, &l.ff_out]
                .iter()
                .any(|lin| matches!(lin, Linear::I8 { levels, .. } if !levels.is_empty()))
        });
        if fitted_words || fitted_layer {
            4
        } else {
            3
        }
    }

    /// The file's body in consecutive named parts (`"words.codes"`, `"ff_out.mults"`, ...; a
    /// name repeats once per layer): what [`Encoder::to_bytes`] concatenates, and what a size
    /// report groups by, so that effort goes where the bytes are.
    pub fn file_parts(&self) -> Result<Vec<(&'static str, Vec<u8>)>, AssetError> {
        let mut parts = Parts {
            version: self.file_version(),
            ..Parts::default()
        };
        let c = &self.config;
        for v in [c.hidden, c.layers, c.heads, c.intermediate, c.max_positions] {
            parts.w.u32(v as u32);
        }
        parts.w.str(&self.vocab_text);
        parts.cut("vocab");
        match &self.words {
            WordEmbeddings::Grouped { row_of, table } => {
                parts.w.u16s(row_of);
                parts.cut("row_of");
                write_matrix(&mut parts, "words", table);
            }
            WordEmbeddings::F32(_) | WordEmbeddings::Q4 { .. } => return Err(not_quantized()),
        }
        // Codes make the version 5 (`file_version`); without them, bf16 values.
        match &self.position_codes {
            Some(codes) => write_matrix(&mut parts, "positions", codes),
            None => {
                parts.w.u16s(&bf16_bits(&self.positions)?);
                parts.cut("positions");
            }
        }
        write_floats(&mut parts.w, &self.token_type, parts.version)?;
        write_norm(&mut parts.w, &self.embed_norm, parts.version)?;
        parts.cut("norms");
        for l in &self.layers {
            for (name, lin) in [
                ("query", &l.query),
                ("key", &l.key),
                ("value", &l.value),
                ("attn_out", &l.attn_out),
            ] {
                write_linear(&mut parts, name, lin)?;
            }
            write_norm(&mut parts.w, &l.attn_norm, parts.version)?;
            parts.cut("norms");
            write_linear(&mut parts, "ff_in", &l.ff_in)?;
            write_linear(&mut parts, "ff_out", &l.ff_out)?;
            write_norm(&mut parts.w, &l.ff_norm, parts.version)?;
            parts.cut("norms");
        }
        Ok(parts.done)
    }

    /// Loads `encoder.bin`, checking magic, version, model, hash and every shape. Never panics.
    pub fn from_bytes(data: &[u8]) -> Result<Encoder, AssetError> {
        let (version, mut r) = open_envelope(data, ENCODER_MAGIC, &READS, WHAT)?;
        let model = r.str()?;
        if model != MODEL_ID {
            return Err(AssetError::Mismatch {
                what: WHAT,
                reason: format!("model {model}, expected {MODEL_ID}"),
            });
        }
        let (_, body) = r.hashed_body()?;
        let mut r = Reader::new(body, WHAT);
        let mut dims = [0usize; 5];
        for d in dims.iter_mut() {
            *d = r.u32()? as usize;
        }
        let config = EncoderConfig {
            hidden: dims[0],
            layers: dims[1],
            heads: dims[2],
            intermediate: dims[3],
            max_positions: dims[4],
        };
        if !config.is_sane() {
            return Err(corrupt(format!("unexpected model shape {config:?}")));
        }
        let h = config.hidden;
        let vocab_text = r.str()?.to_string();
        let tokenizer =
            WordPiece::from_vocab_text(&vocab_text).map_err(|e| corrupt(e.to_string()))?;
        let row_of = r.u16s()?;
        let (words, positions, position_codes) = if version == 1 {
            (
                read_words_v1(&mut r, row_of, &tokenizer, h)?,
                r.f32s()?,
                None,
            )
        } else {
            let table = read_matrix(&mut r, version)?.into_grouped();
            if table.cols != h {
                return Err(corrupt("word embedding table has the wrong width".into()));
            }
            check_row_of(&row_of, table.rows, &tokenizer)?;
            let (positions, codes) = read_positions(&mut r, version, config.max_positions, h)?;
            (WordEmbeddings::Grouped { row_of, table }, positions, codes)
        };
        let token_type = read_floats(&mut r, version)?;
        if positions.len() != config.max_positions * h || token_type.len() != h {
            return Err(corrupt(
                "position or token type embeddings have the wrong size".into(),
            ));
        }
        let embed_norm = read_norm(&mut r, h, version)?;
        let mut layers = Vec::with_capacity(config.layers);
        for _ in 0..config.layers {
            let read_linear = |r: &mut Reader, out, inp| {
                if version == 1 {
                    read_linear_v1(r, out, inp)
                } else {
                    read_linear_v2(r, version, out, inp)
                }
            };
            let query = read_linear(&mut r, h, h)?;
            let key = read_linear(&mut r, h, h)?;
            let value = read_linear(&mut r, h, h)?;
            let attn_out = read_linear(&mut r, h, h)?;
            let attn_norm = read_norm(&mut r, h, version)?;
            let ff_in = read_linear(&mut r, config.intermediate, h)?;
            let ff_out = read_linear(&mut r, h, config.intermediate)?;
            let ff_norm = read_norm(&mut r, h, version)?;
            layers.push(Layer {
                query,
                key,
                value,
                attn_out,
                attn_norm,
                ff_in,
                ff_out,
                ff_norm,
            });
        }
        if !r.is_empty() {
            return Err(corrupt("trailing bytes after the last layer".into()));
        }
        Ok(Encoder {
            config,
            tokenizer,
            vocab_text,
            words,
            positions,
            position_codes,
            token_type,
            embed_norm,
            layers,
        })
    }
}

/// The position table of version 2 and later: bf16 values, or from version 5 a matrix of 8-bit
/// codes (returned too, to write it again).
fn read_positions(
    r: &mut Reader,
    version: u32,
    rows: usize,
    h: usize,
) -> Result<(Vec<f32>, Option<Grouped>), AssetError> {
    let (positions, codes) = if version >= 5 {
        let codes = read_matrix(r, version)?.into_grouped();
        if codes.rows != rows || codes.cols != h {
            return Err(corrupt("position embeddings have the wrong size".into()));
        }
        (codes.to_f32(), Some(codes))
    } else {
        (r.u16s()?.into_iter().map(from_bf16).collect(), None)
    };
    if positions.iter().any(|v| !v.is_finite()) {
        return Err(AssetError::NotFinite { what: WHAT });
    }
    Ok((positions, codes))
}

/// Version-1 word table: 4-bit codes with one f32 scale per 64 values.
fn read_words_v1(
    r: &mut Reader,
    row_of: Vec<u16>,
    tokenizer: &WordPiece,
    h: usize,
) -> Result<WordEmbeddings, AssetError> {
    let packed = r.bytes()?.to_vec();
    let scales = r.f32s()?;
    let rows = packed.len() * 2 / h;
    if packed.len() * 2 != rows * h || scales.len() != (rows * h).div_ceil(super::Q4_GROUP) {
        return Err(corrupt("word embedding table has the wrong size".into()));
    }
    check_row_of(&row_of, rows, tokenizer)?;
    Ok(WordEmbeddings::Q4 {
        row_of,
        packed,
        scales,
    })
}

/// Every token maps to a stored row or to none, and `[UNK]` has one.
fn check_row_of(row_of: &[u16], rows: usize, tokenizer: &WordPiece) -> Result<(), AssetError> {
    if row_of.len() != tokenizer.vocab_len() {
        return Err(corrupt("word embedding table has the wrong size".into()));
    }
    if row_of
        .iter()
        .any(|&x| x != super::NO_ROW && x as usize >= rows)
        || row_of
            .get(tokenizer.unk_id() as usize)
            .is_none_or(|&x| x == super::NO_ROW)
    {
        return Err(corrupt(
            "word embedding row map points outside the table".into(),
        ));
    }
    Ok(())
}

/// A body being written, cut into named parts.
#[derive(Default)]
struct Parts {
    /// The file version being written.
    version: u32,
    w: Writer,
    done: Vec<(&'static str, Vec<u8>)>,
}

impl Parts {
    /// Ends the current part, naming it.
    fn cut(&mut self, name: &'static str) {
        self.done.push((name, std::mem::take(&mut self.w).finish()));
    }
}

fn write_matrix(p: &mut Parts, name: &'static str, m: &Grouped) {
    let names = part_names(name);
    p.w.u32(m.rows as u32);
    p.w.u32(m.cols as u32);
    p.w.u8(m.bits);
    p.w.u32(m.group as u32);
    if p.version >= 4 {
        p.w.i8s(&m.levels);
    }
    let codes = ByteCodes::of(m).codes;
    if p.version >= 6 {
        let classes = column_classes(&codes, m.cols, m.bits);
        p.w.u8(CODE_CLASSES);
        p.w.bytes(&entropy_code(&classes));
        let order = class_order(&classes, CODE_CLASSES);
        let runs: Vec<Vec<u8>> = order
            .iter()
            .map(|cols| {
                cols.iter()
                    .flat_map(|&c| codes.iter().skip(c).step_by(m.cols).copied())
                    .collect()
            })
            .collect();
        let runs: Vec<&[u8]> = runs.iter().map(Vec::as_slice).collect();
        p.w.bytes(&entropy_code_runs(&runs));
    } else {
        p.w.bytes(&entropy_code(&codes));
    }
    p.cut(names[0]);
    p.w.bytes(&entropy_code(&m.mults));
    p.cut(names[1]);
    p.w.u16s(&m.row_scale);
    p.cut(names[2]);
}

/// Part names of a matrix: codes, multipliers, row scales, balance and bias.
fn part_names(name: &str) -> [&'static str; 5] {
    match name {
        "words" => ["words.codes", "words.mults", "words.scales", "", ""],
        "positions" => [
            "positions.codes",
            "positions.mults",
            "positions.scales",
            "",
            "",
        ],
        "query" => [
            "query.codes",
            "query.mults",
            "query.scales",
            "query.balance",
            "query.bias",
        ],
        "key" => [
            "key.codes",
            "key.mults",
            "key.scales",
            "key.balance",
            "key.bias",
        ],
        "value" => [
            "value.codes",
            "value.mults",
            "value.scales",
            "value.balance",
            "value.bias",
        ],
        "attn_out" => [
            "attn_out.codes",
            "attn_out.mults",
            "attn_out.scales",
            "attn_out.balance",
            "attn_out.bias",
        ],
        "ff_in" => [
            "ff_in.codes",
            "ff_in.mults",
            "ff_in.scales",
            "ff_in.balance",
            "ff_in.bias",
        ],
        _ => [
            "ff_out.codes",
            "ff_out.mults",
            "ff_out.scales",
            "ff_out.balance",
            "ff_out.bias",
        ],
    }
}

/// Raw DEFLATE with Huffman coding only: the codes of a matrix are close to independent draws,
/// so LZ77 matches find nothing and only cost bits (level-9 DEFLATE of 5-bit codes one a byte
/// came out 12 % larger than their order-0 entropy; Huffman alone is within 1 %). Any inflater
/// reads it. miniz_oxide's core API because its one-call helpers take no strategy.
fn entropy_code(data: &[u8]) -> Vec<u8> {
    entropy_code_runs(&[data])
}

/// [`entropy_code`] of the runs one after the other in one stream, each run starting a new
/// DEFLATE block (a sync flush, 4 bytes) so that it gets Huffman tables of its own. No runs code
/// as an empty stream.
fn entropy_code_runs(runs: &[&[u8]]) -> Vec<u8> {
    use miniz_oxide::deflate::core::{
        compress_to_output, create_comp_flags_from_zip_params, CompressionStrategy,
        CompressorOxide, TDEFLFlush,
    };
    let flags = create_comp_flags_from_zip_params(9, 0, CompressionStrategy::HuffmanOnly as i32);
    let mut compressor = CompressorOxide::new(flags);
    let runs: &[&[u8]] = if runs.is_empty() { &[&[]] } else { runs };
    let total: usize = runs.iter().map(|r| r.len()).sum();
    let mut out = Vec::with_capacity(total / 2);
    for (i, run) in runs.iter().enumerate() {
        let flush = if i + 1 == runs.len() {
            TDEFLFlush::Finish
        } else {
            TDEFLFlush::Sync
        };
        compress_to_output(&mut compressor, run, flush, |chunk| {
            out.extend_from_slice(chunk);
            true
        });
    }
    out
}

/// The class (`0..CODE_CLASSES`) of each column of a matrix's stored codes (row-major, `cols`
/// a row): columns ranked by the rms of their codes' distance from the zero code, cut into equal
/// runs. The spread of a column's codes follows its input (SmoothQuant scales weight columns by
/// their inputs' range), and Huffman tables fitted to columns of like spread spend fewer bits
/// than one table for the whole matrix: 0.7 % of the file on the sample book, lossless (4 classes
/// save 0.04 MB there, 8 classes 2 kB more, 16 classes 6 kB less than 8: more tables cost more).
fn column_classes(codes: &[u8], cols: usize, bits: u8) -> Vec<u8> {
    let zero = f64::from(super::grouped::qmax(bits) + 1);
    let mut energy = vec![0f64; cols];
    for row in codes.chunks_exact(cols.max(1)) {
        for (e, &c) in energy.iter_mut().zip(row) {
            let d = f64::from(c) - zero;
            *e += d * d;
        }
    }
    let mut ranked: Vec<usize> = (0..cols).collect();
    ranked.sort_by(|&a, &b| energy[a].total_cmp(&energy[b]).then(a.cmp(&b)));
    let per = cols.div_ceil(usize::from(CODE_CLASSES)).max(1);
    let mut classes = vec![0u8; cols];
    for (rank, &c) in ranked.iter().enumerate() {
        classes[c] = (rank / per) as u8;
    }
    classes
}

/// The columns of each class, ascending: the order a version-6 matrix stores its columns in.
fn class_order(classes: &[u8], count: u8) -> Vec<Vec<usize>> {
    let mut order = vec![Vec::new(); usize::from(count)];
    for (c, &k) in classes.iter().enumerate() {
        if let Some(run) = order.get_mut(usize::from(k)) {
            run.push(c);
        }
    }
    order
}

/// A matrix as read: bit-packed (version 2) or one code a byte (version 3), validated.
enum ReadMatrix {
    Packed(Grouped),
    Bytes(ByteCodes),
}

impl ReadMatrix {
    fn shape(&self) -> (usize, usize) {
        match self {
            ReadMatrix::Packed(m) => (m.rows, m.cols),
            ReadMatrix::Bytes(m) => (m.rows, m.cols),
        }
    }

    fn to_i8(&self) -> (Vec<i8>, Vec<f32>) {
        match self {
            ReadMatrix::Packed(m) => m.to_i8(),
            ReadMatrix::Bytes(m) => m.to_i8(),
        }
    }

    fn into_grouped(self) -> Grouped {
        match self {
            ReadMatrix::Packed(m) => m,
            ReadMatrix::Bytes(m) => m.into_grouped(),
        }
    }
}

fn read_matrix(r: &mut Reader, version: u32) -> Result<ReadMatrix, AssetError> {
    let rows = r.u32()? as usize;
    let cols = r.u32()? as usize;
    let bits = r.u8()?;
    let group = r.u32()? as usize;
    let levels = if version >= 4 { r.i8s()? } else { Vec::new() };
    if version >= 3 {
        let n = rows
            .checked_mul(cols)
            .filter(|&n| n <= MAX_CODES)
            .ok_or_else(|| corrupt(format!("matrix of {rows} × {cols} values")))?;
        let codes = if version >= 6 {
            read_column_codes(r, rows, cols, n)?
        } else {
            miniz_oxide::inflate::decompress_to_vec_with_limit(r.bytes()?, n)
                .map_err(|e| corrupt(format!("matrix codes do not inflate ({:?})", e.status)))?
        };
        let groups = rows.saturating_mul(cols.div_ceil(group.max(1)));
        let mults = miniz_oxide::inflate::decompress_to_vec_with_limit(r.bytes()?, groups)
            .map_err(|e| corrupt(format!("group multipliers do not inflate ({:?})", e.status)))?;
        let m = ByteCodes {
            rows,
            cols,
            bits,
            group,
            codes,
            mults,
            row_scale: r.u16s()?,
            levels,
        };
        m.validate(WHAT)?;
        Ok(ReadMatrix::Bytes(m))
    } else {
        let m = Grouped {
            rows,
            cols,
            bits,
            group,
            packed: r.bytes()?.to_vec(),
            mults: r.bytes()?.to_vec(),
            row_scale: r.u16s()?,
            levels,
        };
        m.validate(WHAT)?;
        Ok(ReadMatrix::Packed(m))
    }
}

/// A version-6 matrix's codes, back in row-major order: the column classes, then every column's
/// codes top to bottom, class by class, columns ascending within a class.
fn read_column_codes(
    r: &mut Reader,
    rows: usize,
    cols: usize,
    n: usize,
) -> Result<Vec<u8>, AssetError> {
    let count = r.u8()?;
    if count == 0 || count > MAX_CODE_CLASSES {
        return Err(corrupt(format!("{count} column classes")));
    }
    let classes = miniz_oxide::inflate::decompress_to_vec_with_limit(r.bytes()?, cols)
        .map_err(|e| corrupt(format!("column classes do not inflate ({:?})", e.status)))?;
    if classes.len() != cols || classes.iter().any(|&k| k >= count) {
        return Err(corrupt("column classes disagree with the matrix".into()));
    }
    let stored = miniz_oxide::inflate::decompress_to_vec_with_limit(r.bytes()?, n)
        .map_err(|e| corrupt(format!("matrix codes do not inflate ({:?})", e.status)))?;
    if stored.len() != n {
        return Err(corrupt("matrix sizes disagree with its shape".into()));
    }
    let mut codes = vec![0u8; n];
    let mut column = stored.chunks_exact(rows.max(1));
    for c in class_order(&classes, count).into_iter().flatten() {
        let Some(values) = column.next() else { break };
        for (row, &v) in values.iter().enumerate() {
            codes[row * cols + c] = v;
        }
    }
    Ok(codes)
}

fn write_linear(p: &mut Parts, name: &'static str, l: &Linear) -> Result<(), AssetError> {
    match l {
        Linear::I8 {
            q,
            scale,
            smooth,
            b,
            inp,
            levels,
            ..
        } => {
            let m = if levels.is_empty() {
                LAYER_ENCODINGS.iter().find_map(|&(bits, group)| {
                    Grouped::from_i8(q, scale, *inp, bits, group.min(*inp))
                })
            } else {
                let grid = Grid::Levels(levels.clone());
                FITTED_GROUPS
                    .iter()
                    .find_map(|&g| Grouped::from_i8_grid(q, scale, *inp, &grid, g.min(*inp)))
            }
            .ok_or_else(not_quantized)?;
            write_matrix(p, name, &m);
            let names = part_names(name);
            let smooth_bits: Vec<u16> = smooth.iter().map(|&v| to_bf16(v)).collect();
            if smooth_bits
                .iter()
                .zip(smooth)
                .any(|(&b, &v)| from_bf16(b) != v)
            {
                return Err(not_quantized());
            }
            p.w.u16s(&smooth_bits);
            p.cut(names[3]);
            write_floats(&mut p.w, b, p.version)?;
            p.cut(names[4]);
            Ok(())
        }
        Linear::F32 { .. } => Err(not_quantized()),
    }
}

/// A layer of version 2 to 5 (they differ in how a matrix stores its codes, and version 5 stores
/// the bias as bf16 values).
fn read_linear_v2(
    r: &mut Reader,
    version: u32,
    out: usize,
    inp: usize,
) -> Result<Linear, AssetError> {
    let m = read_matrix(r, version)?;
    let smooth: Vec<f32> = r.u16s()?.into_iter().map(from_bf16).collect();
    let b = read_floats(r, version)?;
    if !(smooth.is_empty() || smooth.len() == inp)
        || smooth.iter().any(|s| !(s.is_finite() && *s > 0.0))
    {
        return Err(corrupt(
            "layer input balance has the wrong size or a value ≤ 0".into(),
        ));
    }
    let (rows, cols) = m.shape();
    if rows != out || cols != inp || b.len() != out {
        return Err(corrupt(format!(
            "layer of shape {rows}x{cols} where {out}x{inp} was expected"
        )));
    }
    let (q, scale) = m.to_i8();
    let levels = match m {
        ReadMatrix::Packed(g) => g.levels,
        ReadMatrix::Bytes(g) => g.levels,
    };
    Ok(Linear::I8 {
        q,
        scale,
        smooth,
        b,
        out,
        inp,
        levels,
    })
}

fn read_linear_v1(r: &mut Reader, out: usize, inp: usize) -> Result<Linear, AssetError> {
    let (o, i) = (r.u32()? as usize, r.u32()? as usize);
    let q = r.i8s()?;
    let scale = r.f32s()?;
    let b = r.f32s()?;
    if o != out || i != inp || q.len() != out * inp || scale.len() != out || b.len() != out {
        return Err(corrupt(format!(
            "layer of shape {o}x{i} where {out}x{inp} was expected"
        )));
    }
    Ok(Linear::I8 {
        q,
        scale,
        smooth: Vec::new(),
        b,
        out,
        inp,
        levels: Vec::new(),
    })
}

fn write_norm(w: &mut Writer, n: &LayerNorm, version: u32) -> Result<(), AssetError> {
    write_floats(w, &n.gamma, version)?;
    write_floats(w, &n.beta, version)
}

fn read_norm(r: &mut Reader, h: usize, version: u32) -> Result<LayerNorm, AssetError> {
    let gamma = read_floats(r, version)?;
    let beta = read_floats(r, version)?;
    if gamma.len() != h || beta.len() != h {
        return Err(corrupt("layer norm has the wrong size".into()));
    }
    Ok(LayerNorm { gamma, beta })
}

/// The bf16 bits of `values`, which must all be bf16 values (made by `quantized_with`).
fn bf16_bits(values: &[f32]) -> Result<Vec<u16>, AssetError> {
    let bits: Vec<u16> = values.iter().map(|&v| to_bf16(v)).collect();
    if bits.iter().zip(values).any(|(&b, &v)| from_bf16(b) != v) {
        return Err(not_quantized());
    }
    Ok(bits)
}

/// A vector of biases, norms or the token type: bf16 from version 5 on, f32 before.
fn write_floats(w: &mut Writer, values: &[f32], version: u32) -> Result<(), AssetError> {
    if version >= 5 {
        w.u16s(&bf16_bits(values)?);
    } else {
        w.f32s(values);
    }
    Ok(())
}

/// Reads what [`write_floats`] wrote.
fn read_floats(r: &mut Reader, version: u32) -> Result<Vec<f32>, AssetError> {
    if version < 5 {
        return r.f32s();
    }
    let values: Vec<f32> = r.u16s()?.into_iter().map(from_bf16).collect();
    if values.iter().any(|v| !v.is_finite()) {
        return Err(AssetError::NotFinite { what: WHAT });
    }
    Ok(values)
}

fn corrupt(reason: String) -> AssetError {
    AssetError::Corrupt { what: WHAT, reason }
}

fn not_quantized() -> AssetError {
    AssetError::Corrupt {
        what: WHAT,
        reason: "only a quantized encoder can be written".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    #[test]
    fn a_quantized_encoder_is_written_as_the_newest_version_and_read_back_the_same() {
        let enc = testing::encoder();
        assert!(enc.position_codes.is_some());
        let bytes = enc.to_bytes().unwrap();
        assert_eq!(
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
            ENCODER_VERSION
        );
        let back = Encoder::from_bytes(&bytes).unwrap();
        assert_eq!(back.position_codes, enc.position_codes);
        assert_eq!(back.positions, enc.positions);
        assert_eq!(back.token_type, enc.token_type);
        assert_eq!(back.layers[0].ff_norm.gamma, enc.layers[0].ff_norm.gamma);
        for q in ["hello robot", "how do joints move", ""] {
            assert_eq!(back.encode(q), enc.encode(q));
        }
        assert_eq!(back.to_bytes().unwrap(), bytes);
    }

    #[test]
    fn column_classes_are_equal_runs_by_spread_and_their_order_is_a_permutation() {
        // Four columns of growing spread, two rows: one column a class, the quietest first.
        let zero = (super::super::grouped::qmax(6) + 1) as u8;
        let codes = [
            zero,
            zero + 3,
            zero - 1,
            zero + 2,
            zero,
            zero - 3,
            zero + 1,
            zero - 2,
        ];
        let classes = column_classes(&codes, 4, 6);
        assert_eq!(classes, vec![0, 3, 1, 2]);
        let order: Vec<usize> = class_order(&classes, CODE_CLASSES)
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(order, vec![0, 2, 3, 1]);
        // Wider matrices: every column appears once, in runs of equal size.
        let wide: Vec<u8> = (0..3 * 37).map(|i| (i * 7 % 13 + 1) as u8).collect();
        let classes = column_classes(&wide, 37, 4);
        let mut seen: Vec<usize> = class_order(&classes, CODE_CLASSES)
            .into_iter()
            .flatten()
            .collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..37).collect::<Vec<_>>());
        assert!(classes.iter().all(|&k| k < CODE_CLASSES));
    }

    #[test]
    fn version_6_column_classes_that_disagree_with_the_matrix_are_corrupt() {
        let codes_of = |classes: &[u8], count: u8, stored: &[u8]| {
            let mut w = Writer::default();
            w.u8(count);
            w.bytes(&entropy_code(classes));
            w.bytes(&entropy_code(stored));
            let mut r = Reader::new(&w.buf, WHAT);
            read_column_codes(&mut r, 2, 3, 6)
        };
        // Columns 0 and 2 in class 0, column 1 in class 1: stored 0, 2, then 1.
        assert_eq!(
            codes_of(&[0, 1, 0], 2, &[1, 4, 3, 6, 2, 5]).unwrap(),
            vec![1, 2, 3, 4, 5, 6]
        );
        for (classes, count, stored) in [
            (&[0u8, 1, 0][..], 0u8, &[1u8, 4, 3, 6, 2, 5][..]),
            (&[0, 1, 0], MAX_CODE_CLASSES + 1, &[1, 4, 3, 6, 2, 5]),
            (&[0, 2, 0], 2, &[1, 4, 3, 6, 2, 5]),
            (&[0, 1], 2, &[1, 4, 3, 6, 2, 5]),
            (&[0, 1, 0], 2, &[1, 4, 3, 6, 2]),
        ] {
            assert!(
                matches!(
                    codes_of(classes, count, stored),
                    Err(AssetError::Corrupt { .. })
                ),
                "{classes:?} {count} {stored:?}"
            );
        }
    }

    #[test]
    fn version_5_refuses_values_it_cannot_hold() {
        // A bias that is not a bf16 value would be silently changed by the file: an error instead.
        let mut enc = testing::encoder();
        if let Linear::I8 { b, .. } = &mut enc.layers[0].query {
            b[0] = 1.0 + f32::EPSILON;
        }
        assert!(enc.to_bytes().is_err());
        // Without 8-bit codes, positions must be bf16 values (versions 3 and 4).
        let mut enc = testing::encoder();
        enc.position_codes = None;
        enc.positions[0] = 1.0 + f32::EPSILON;
        assert!(enc.to_bytes().is_err());
    }

    #[test]
    fn version_5_positions_of_the_wrong_shape_are_corrupt() {
        let mut enc = testing::encoder();
        let h = enc.config.hidden;
        // One position row fewer than the header says.
        if let Some(codes) = &mut enc.position_codes {
            let rows = codes.rows - 1;
            let (q, s) = codes.to_i8();
            *codes = Grouped::from_i8(&q[..rows * h], &s[..rows], h, 8, h).unwrap();
        }
        let err = Encoder::from_bytes(&enc.to_bytes().unwrap()).unwrap_err();
        assert!(err.to_string().contains("position"), "{err}");
    }
}
