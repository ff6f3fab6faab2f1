//! Little-endian binary reading and writing for the asset files, with bounds checks on every read,
//! and the one envelope every asset file shares (`FORMAT.md`, "Conventions"):
//! `magic · u32 version · header fields · str hash · … · bytes body`.
//!
//! Hand-written: the assets are mostly large flat arrays (int8 vectors, weights) that serde
//! formats would copy element by element; a cursor over the bytes keeps loading a plain slice copy.

use crate::error::AssetError;
use crate::hash::content_hash;

/// Starts an asset file: its magic and format version. The file's header fields follow, then
/// [`Writer::hashed_body`] (or the hash and body written apart, for the chunk-text file whose
/// count sits between them).
pub fn envelope(magic: &[u8; 8], version: u32) -> Writer {
    let mut w = Writer::default();
    w.buf.extend_from_slice(magic);
    w.u32(version);
    w
}

/// Opens an asset file: checks its magic, then that its version is one of `versions`, and returns
/// the version with a reader at the header fields. The caller reads them, then the body with
/// [`Reader::hashed_body`], so the magic, version and hash checks are written once for all files.
pub fn open_envelope<'a>(
    data: &'a [u8],
    magic: &[u8; 8],
    versions: &[u32],
    what: &'static str,
) -> Result<(u32, Reader<'a>), AssetError> {
    let mut r = Reader::new(data, what);
    if r.take(8).map_err(|_| AssetError::BadMagic { what })? != magic {
        return Err(AssetError::BadMagic { what });
    }
    let version = r.u32()?;
    if !versions.contains(&version) {
        return Err(AssetError::UnsupportedVersion {
            what,
            found: version,
            supported: versions.iter().copied().max().unwrap_or(0),
        });
    }
    Ok((version, r))
}

/// Appends little-endian values to a byte buffer.
#[derive(Debug, Default)]
pub struct Writer {
    /// The bytes written so far.
    pub buf: Vec<u8>,
}

impl Writer {
    /// One byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    /// A little-endian u32.
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// A little-endian u64.
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// A little-endian IEEE 754 f32.
    pub fn f32(&mut self, v: f32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// A UTF-8 string behind its u32 byte length.
    pub fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.buf.extend_from_slice(s.as_bytes());
    }
    /// Raw bytes behind their u64 length.
    pub fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.buf.extend_from_slice(b);
    }
    /// int8 values (quantized weights and vectors) behind their u64 count.
    pub fn i8s(&mut self, v: &[i8]) {
        self.u64(v.len() as u64);
        self.buf.extend(v.iter().map(|&x| x as u8));
    }
    /// f32 values behind their u64 count.
    pub fn f32s(&mut self, v: &[f32]) {
        self.u64(v.len() as u64);
        for x in v {
            self.f32(*x);
        }
    }
    /// u16 values (row maps) behind their u64 count.
    pub fn u16s(&mut self, v: &[u16]) {
        self.u64(v.len() as u64);
        for x in v {
            self.buf.extend_from_slice(&x.to_le_bytes());
        }
    }
    /// u32 values behind their u64 count.
    pub fn u32s(&mut self, v: &[u32]) {
        self.u64(v.len() as u64);
        for x in v {
            self.u32(*x);
        }
    }
    /// The end of the envelope: `str hash` of `body`, then `bytes body`.
    pub fn hashed_body(&mut self, body: &[u8]) {
        self.str(&content_hash(body));
        self.bytes(body);
    }
    /// The finished bytes.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

/// Reads little-endian values from a byte slice; every read fails with `Truncated` past the end.
#[derive(Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Which part of which file is being read, for error messages.
    what: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], what: &'static str) -> Self {
        Self { data, pos: 0, what }
    }
    pub fn position(&self) -> usize {
        self.pos
    }
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], AssetError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or(AssetError::Truncated {
                what: self.what,
                offset: self.pos,
            })?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], AssetError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    pub fn u8(&mut self) -> Result<u8, AssetError> {
        Ok(self.take(1)?[0])
    }
    pub fn u32(&mut self) -> Result<u32, AssetError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64, AssetError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn f32(&mut self) -> Result<f32, AssetError> {
        Ok(f32::from_le_bytes(self.array()?))
    }
    /// A finite f32; NaN and infinities are corrupt input.
    pub fn finite_f32(&mut self) -> Result<f32, AssetError> {
        let v = self.f32()?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(AssetError::NotFinite { what: self.what })
        }
    }
    fn len(&mut self, elem: usize) -> Result<usize, AssetError> {
        let n = self.u64()?;
        let n = usize::try_from(n).map_err(|_| AssetError::Truncated {
            what: self.what,
            offset: self.pos,
        })?;
        // A length that cannot fit in what is left is corruption, caught before allocating.
        if n.saturating_mul(elem) > self.data.len() - self.pos {
            return Err(AssetError::Truncated {
                what: self.what,
                offset: self.pos,
            });
        }
        Ok(n)
    }
    /// The end of the envelope: `str hash`, then `bytes body`, which must hash to it.
    pub fn hashed_body(&mut self) -> Result<(&'a str, &'a [u8]), AssetError> {
        let hash = self.str()?;
        let body = self.body_with_hash(hash)?;
        Ok((hash, body))
    }
    /// `bytes body`, checked against a `hash` read earlier.
    pub fn body_with_hash(&mut self, hash: &str) -> Result<&'a [u8], AssetError> {
        let body = self.bytes()?;
        if content_hash(body) != hash {
            return Err(AssetError::HashMismatch { what: self.what });
        }
        Ok(body)
    }
    pub fn str(&mut self) -> Result<&'a str, AssetError> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).map_err(|_| AssetError::Corrupt {
            what: self.what,
            reason: "string is not UTF-8".into(),
        })
    }
    pub fn bytes(&mut self) -> Result<&'a [u8], AssetError> {
        let n = self.len(1)?;
        self.take(n)
    }
    pub fn i8s(&mut self) -> Result<Vec<i8>, AssetError> {
        let n = self.len(1)?;
        Ok(self.take(n)?.iter().map(|&b| b as i8).collect())
    }
    /// f32 values, all finite.
    pub fn f32s(&mut self) -> Result<Vec<f32>, AssetError> {
        let n = self.len(4)?;
        let raw = self.take(n * 4)?;
        let v: Vec<f32> = raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if v.iter().any(|x| !x.is_finite()) {
            return Err(AssetError::NotFinite { what: self.what });
        }
        Ok(v)
    }
    pub fn u16s(&mut self) -> Result<Vec<u16>, AssetError> {
        let n = self.len(2)?;
        Ok(self
            .take(n * 2)?
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
    pub fn u32s(&mut self) -> Result<Vec<u32>, AssetError> {
        let n = self.len(4)?;
        Ok(self
            .take(n * 4)?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_values() {
        let mut w = Writer::default();
        w.u32(7);
        w.str("héllo");
        w.f32s(&[1.5, -2.0]);
        w.i8s(&[-128, 127]);
        let mut r = Reader::new(&w.buf, "test");
        assert_eq!(r.u32().unwrap(), 7);
        assert_eq!(r.str().unwrap(), "héllo");
        assert_eq!(r.f32s().unwrap(), vec![1.5, -2.0]);
        assert_eq!(r.i8s().unwrap(), vec![-128, 127]);
        assert!(r.is_empty());
    }

    #[test]
    fn envelope_round_trips_and_rejects_what_it_must() {
        let mut w = envelope(b"TESTMAG\0", 2);
        w.u32(42);
        w.hashed_body(b"payload");
        let bytes = w.finish();
        let (v, mut r) = open_envelope(&bytes, b"TESTMAG\0", &[1, 2], "t").unwrap();
        assert_eq!((v, r.u32().unwrap()), (2, 42));
        assert_eq!(r.hashed_body().unwrap().1, b"payload");
        assert!(matches!(
            open_envelope(&bytes, b"OTHERMG\0", &[2], "t"),
            Err(AssetError::BadMagic { .. })
        ));
        assert!(matches!(
            open_envelope(&bytes[..5], b"TESTMAG\0", &[2], "t"),
            Err(AssetError::BadMagic { .. })
        ));
        assert!(matches!(
            open_envelope(&bytes, b"TESTMAG\0", &[1], "t"),
            Err(AssetError::UnsupportedVersion {
                found: 2,
                supported: 1,
                ..
            })
        ));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        let (_, mut r) = open_envelope(&flipped, b"TESTMAG\0", &[2], "t").unwrap();
        r.u32().unwrap();
        assert!(matches!(
            r.hashed_body(),
            Err(AssetError::HashMismatch { .. })
        ));
    }

    #[test]
    fn huge_length_is_truncation_not_allocation() {
        let mut w = Writer::default();
        w.u64(u64::MAX / 2);
        assert!(matches!(
            Reader::new(&w.buf, "t").f32s(),
            Err(AssetError::Truncated { .. })
        ));
    }

    #[test]
    fn nan_is_rejected() {
        let mut w = Writer::default();
        w.f32s(&[f32::NAN]);
        assert!(matches!(
            Reader::new(&w.buf, "t").f32s(),
            Err(AssetError::NotFinite { .. })
        ));
    }
}
