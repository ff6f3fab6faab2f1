//! The compact build model shipped inside the npm platform package: every 2-D weight of
//! all-MiniLM-L6-v2 stored as int8 rows with one f32 scale per row, 1-D weights (biases, layer
//! norms) kept f32, and `vocab.txt` in the file's metadata. One file of ~23 MB instead of the
//! wheel's 90 MB f32 safetensors, so the package stays well under its 50 MB budget.
//!
//! Loading dequantizes it back into an f32 safetensors buffer, the very input [`crate::model`]
//! reads, so the build pipeline has one encoder constructor whichever model it was given.
//! Layout (safetensors): `<name>` I8 `[rows, cols]` + `<name>.scale` F32 `[rows]`
//! (`w[r][c] ≈ q[r][c] · scale[r]`, symmetric), or `<name>` F32 as in the source; metadata
//! `format = book-chat-packed-model`, `version = 1`, `vocab = <vocab.txt>`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};
use thiserror::Error;

/// File name of the packed model inside a model folder.
pub const PACKED_FILE: &str = "book-chat-model.safetensors";
/// `format` metadata value that marks a packed model.
const FORMAT: &str = "book-chat-packed-model";
/// Layout version of the packed file.
const VERSION: &str = "1";
/// Suffix of the per-row scale tensor of a quantized weight.
const SCALE_SUFFIX: &str = ".scale";

/// What can go wrong reading or writing a packed model (each names the file).
#[derive(Debug, Error)]
pub enum PackError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are not a safetensors file.
    #[error("{path}: not a safetensors file ({reason})")]
    NotSafetensors {
        /// The file.
        path: PathBuf,
        /// What the safetensors reader said.
        reason: String,
    },
    /// A safetensors file without the packed-model marker, or of another layout version.
    #[error("{path}: not a book-chat packed model of version {VERSION} (make one with `index-builder pack-model`)")]
    NotPacked {
        /// The file.
        path: PathBuf,
    },
    /// A tensor has a dtype or shape the packer or loader does not handle.
    #[error("{path}: tensor {name}: {reason}")]
    BadTensor {
        /// The file.
        path: PathBuf,
        /// The tensor's name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// Whether `path` names a packed model: the file itself, or a folder holding [`PACKED_FILE`]
/// and no f32 `model.safetensors` (the wheel's folder keeps its exact weights).
pub fn packed_file(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    let inside = path.join(PACKED_FILE);
    (inside.is_file() && !path.join("model.safetensors").is_file()).then_some(inside)
}

/// Packs the wheel's model folder (`model.safetensors` + `vocab.txt`) into one packed file at `out`.
/// Returns the packed file's size in bytes.
pub fn pack_model(model_dir: &Path, out: &Path) -> Result<u64, PackError> {
    let weights = model_dir.join("model.safetensors");
    let bytes = read(&weights)?;
    let vocab_path = model_dir.join("vocab.txt");
    let vocab = std::fs::read_to_string(&vocab_path).map_err(|source| PackError::Io {
        path: vocab_path.clone(),
        source,
    })?;
    let packed = pack_bytes(&bytes, &vocab, &weights)?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| PackError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    // Temp file then rename: a failed write never leaves a truncated model that looks complete.
    let tmp = out.with_extension("tmp");
    std::fs::write(&tmp, &packed).map_err(|source| PackError::Io {
        path: tmp.clone(),
        source,
    })?;
    std::fs::rename(&tmp, out).map_err(|source| PackError::Io {
        path: out.to_path_buf(),
        source,
    })?;
    Ok(packed.len() as u64)
}

/// Packs f32 safetensors bytes (`path` only names them in errors).
pub fn pack_bytes(f32_bytes: &[u8], vocab: &str, path: &Path) -> Result<Vec<u8>, PackError> {
    let st = parse(f32_bytes, path)?;
    let mut owned: Vec<OwnedTensor> = Vec::new();
    for (name, view) in st.tensors() {
        if name.ends_with(SCALE_SUFFIX) {
            return Err(bad(
                path,
                &name,
                format!("names ending in {SCALE_SUFFIX} are reserved"),
            ));
        }
        if view.dtype() != Dtype::F32 {
            // Integer buffers (e.g. `position_ids`) are small and kept as they are.
            owned.push((
                name,
                view.dtype(),
                view.shape().to_vec(),
                view.data().to_vec(),
            ));
            continue;
        }
        let values = f32s(view.data());
        match view.shape() {
            [rows, cols] if *rows > 0 && *cols > 0 => {
                let (q, scales) = quantize_rows(&values, *cols);
                owned.push((name.clone(), Dtype::I8, vec![*rows, *cols], q));
                owned.push((
                    format!("{name}{SCALE_SUFFIX}"),
                    Dtype::F32,
                    vec![*rows],
                    f32_bytes_of(&scales),
                ));
            }
            shape => owned.push((name, Dtype::F32, shape.to_vec(), view.data().to_vec())),
        }
    }
    let metadata = HashMap::from([
        ("format".to_string(), FORMAT.to_string()),
        ("version".to_string(), VERSION.to_string()),
        ("vocab".to_string(), vocab.to_string()),
    ]);
    serialize(path, &owned, Some(metadata))
}

/// A tensor held while a safetensors file is rewritten: name, dtype, shape, little-endian bytes.
type OwnedTensor = (String, Dtype, Vec<usize>, Vec<u8>);

/// Writes `owned` as safetensors bytes (what packing and unpacking both end with).
fn serialize(
    path: &Path,
    owned: &[OwnedTensor],
    metadata: Option<HashMap<String, String>>,
) -> Result<Vec<u8>, PackError> {
    let views = owned
        .iter()
        .map(|(name, dtype, shape, data)| {
            TensorView::new(*dtype, shape.clone(), data)
                .map(|v| (name.clone(), v))
                .map_err(|e| bad(path, name, format!("{e:?}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    safetensors::serialize(views, &metadata).map_err(|e| PackError::NotSafetensors {
        path: path.to_path_buf(),
        reason: format!("{e:?}"),
    })
}

/// Reads a packed file back into f32 safetensors bytes (the layout of the wheel's
/// `model.safetensors`) and the vocabulary text.
pub fn unpack_file(path: &Path) -> Result<(Vec<u8>, String), PackError> {
    let bytes = read(path)?;
    unpack_bytes(&bytes, path)
}

/// [`unpack_file`] on bytes already read.
pub fn unpack_bytes(bytes: &[u8], path: &Path) -> Result<(Vec<u8>, String), PackError> {
    let (_, meta) = SafeTensors::read_metadata(bytes).map_err(|e| PackError::NotSafetensors {
        path: path.to_path_buf(),
        reason: format!("{e:?}"),
    })?;
    let info = meta.metadata().clone().unwrap_or_default();
    if info.get("format").map(String::as_str) != Some(FORMAT)
        || info.get("version").map(String::as_str) != Some(VERSION)
    {
        return Err(PackError::NotPacked {
            path: path.to_path_buf(),
        });
    }
    let vocab = info
        .get("vocab")
        .cloned()
        .ok_or_else(|| PackError::NotPacked {
            path: path.to_path_buf(),
        })?;
    let st = parse(bytes, path)?;
    let mut owned: Vec<OwnedTensor> = Vec::new();
    for (name, view) in st.tensors() {
        if name.ends_with(SCALE_SUFFIX) {
            continue;
        }
        match view.dtype() {
            Dtype::I8 => {
                let [rows, cols] = view.shape() else {
                    return Err(bad(path, &name, "int8 tensor that is not 2-D".into()));
                };
                let (rows, cols) = (*rows, *cols);
                let scale = st
                    .tensor(&format!("{name}{SCALE_SUFFIX}"))
                    .map_err(|_| bad(path, &name, "no per-row scales".into()))?;
                if scale.dtype() != Dtype::F32 || scale.shape() != [rows] {
                    return Err(bad(path, &name, "scales are not F32 [rows]".into()));
                }
                let scales = f32s(scale.data());
                let q = view.data();
                let values: Vec<f32> = q
                    .chunks_exact(cols)
                    .zip(&scales)
                    .flat_map(|(row, s)| row.iter().map(move |&b| f32::from(b as i8) * s))
                    .collect();
                owned.push((name, Dtype::F32, vec![rows, cols], f32_bytes_of(&values)));
            }
            other => owned.push((name, other, view.shape().to_vec(), view.data().to_vec())),
        }
    }
    Ok((serialize(path, &owned, None)?, vocab))
}

/// The build's encoder from `path`: a packed model (file, or folder holding [`PACKED_FILE`]),
/// else the wheel's f32 folder.
pub fn load_encoder(path: &Path) -> anyhow::Result<book_retrieval::Encoder> {
    match packed_file(path) {
        Some(file) => {
            let (bytes, vocab) = unpack_file(&file)?;
            crate::model::encoder_from_safetensors(&bytes, vocab)
        }
        None => crate::model::load_f32_encoder(path),
    }
}

/// Symmetric per-row int8: `scale = max|w| / 127`, `q = round(w / scale)`.
fn quantize_rows(values: &[f32], cols: usize) -> (Vec<u8>, Vec<f32>) {
    let mut q = Vec::with_capacity(values.len());
    let mut scales = Vec::with_capacity(values.len() / cols);
    for row in values.chunks_exact(cols) {
        let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        scales.push(scale);
        q.extend(
            row.iter()
                .map(|v| ((v / scale).round().clamp(-127.0, 127.0) as i8) as u8),
        );
    }
    (q, scales)
}

fn read(path: &Path) -> Result<Vec<u8>, PackError> {
    std::fs::read(path).map_err(|source| PackError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn parse<'a>(bytes: &'a [u8], path: &Path) -> Result<SafeTensors<'a>, PackError> {
    SafeTensors::deserialize(bytes).map_err(|e| PackError::NotSafetensors {
        path: path.to_path_buf(),
        reason: format!("{e:?}"),
    })
}

fn bad(path: &Path, name: &str, reason: String) -> PackError {
    PackError::BadTensor {
        path: path.to_path_buf(),
        name: name.to_string(),
        reason,
    }
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn f32_bytes_of(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let w: Vec<f32> = (0..12).map(|i| (i as f32 - 5.5) * 0.1).collect();
        let b: Vec<f32> = vec![0.5, -0.25, 1.0];
        let wb = f32_bytes_of(&w);
        let bb = f32_bytes_of(&b);
        let views = vec![
            ("w", TensorView::new(Dtype::F32, vec![3, 4], &wb).unwrap()),
            ("b", TensorView::new(Dtype::F32, vec![3], &bb).unwrap()),
        ];
        safetensors::serialize(views, &None).unwrap()
    }

    #[test]
    fn round_trip_keeps_names_shapes_and_values_within_half_a_step() {
        let src = sample();
        let p = Path::new("test.safetensors");
        let packed = pack_bytes(&src, "[PAD]\nhello\n", p).unwrap();
        let (f32_bytes, vocab) = unpack_bytes(&packed, p).unwrap();
        assert_eq!(vocab, "[PAD]\nhello\n");
        let a = SafeTensors::deserialize(&src).unwrap();
        let b = SafeTensors::deserialize(&f32_bytes).unwrap();
        let mut names_b = b.names();
        names_b.sort();
        assert_eq!(names_b, vec!["b", "w"]);
        for name in ["w", "b"] {
            let (x, y) = (a.tensor(name).unwrap(), b.tensor(name).unwrap());
            assert_eq!(x.shape(), y.shape());
            let (x, y) = (f32s(x.data()), f32s(y.data()));
            for (row_x, row_y) in x.chunks(4).zip(y.chunks(4)) {
                let step = row_x.iter().fold(0f32, |m, v| m.max(v.abs())) / 127.0;
                for (u, v) in row_x.iter().zip(row_y) {
                    assert!((u - v).abs() <= step / 2.0 + 1e-7, "{name}: {u} vs {v}");
                }
            }
        }
        // Biases are copied exactly.
        assert_eq!(f32s(b.tensor("b").unwrap().data()), vec![0.5, -0.25, 1.0]);
    }

    #[test]
    fn a_plain_safetensors_file_is_not_taken_for_a_packed_model() {
        let err = unpack_bytes(&sample(), Path::new("m.safetensors")).unwrap_err();
        assert!(matches!(err, PackError::NotPacked { .. }), "{err}");
        assert!(err.to_string().contains("pack-model"));
    }

    #[test]
    fn garbage_is_a_typed_error_naming_the_file() {
        let err = unpack_bytes(b"not a model", Path::new("x.bin")).unwrap_err();
        assert!(
            err.to_string().starts_with("x.bin: not a safetensors file"),
            "{err}"
        );
    }

    #[test]
    fn zero_rows_get_a_harmless_scale() {
        let (q, s) = quantize_rows(&[0.0, 0.0, 1.0, -2.0], 2);
        assert_eq!(s[0], 1.0);
        assert_eq!(q[..2], [0, 0]);
        assert_eq!(q[3] as i8, -127);
    }
}
