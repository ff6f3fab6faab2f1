//! Content hashes: chunk ids, asset file names and the integrity check of every asset.

use sha2::{Digest, Sha256};

/// First 16 hex digits of the SHA-256 of `bytes`: short enough for file names, long enough to never collide in a book.
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_value() {
        assert_eq!(super::content_hash(b"abc"), "ba7816bf8f01cfea");
    }
}
