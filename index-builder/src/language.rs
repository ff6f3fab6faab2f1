//! The book's language and what it means for the asset. The question encoder (all-MiniLM-L6-v2)
//! was trained on English and its uncased English WordPiece vocabulary cuts other scripts into
//! single characters or `[UNK]`, so its vectors say little about, say, Urdu text: a book in another
//! language ships without the encoder and is searched with BM25 alone (the analyzer is
//! Unicode-aware and applies English stemming and stop words to ASCII words only). The language is
//! recorded in `manifest.json`.

use std::path::Path;

use anyhow::{Context, Result};
use book_retrieval::manifest::Manifest;

/// Whether a BCP 47 tag names English (`en`, `en-GB`, ...).
pub fn is_english(tag: &str) -> bool {
    let primary = tag.split(['-', '_']).next().unwrap_or("");
    primary.eq_ignore_ascii_case("en")
}

/// What the book's language changes in its index before it is written: follow-up questions are
/// phrased by English rules ("How do I …?", "What is …?"), so a book in another language offers none
/// rather than English templates around its own headings.
pub fn adapt_index(index: &mut book_retrieval::Index, language: &str) -> Result<()> {
    if !is_english(language) && !index.meta.follow_ups.is_empty() {
        index.meta.follow_ups.clear();
        index.meta.unaskable.clear();
        // The content hash covers the metadata: serialized and loaded back, the index names the
        // hash its chunk texts will be written under (as the calibration does).
        let dim = index.dim();
        *index = book_retrieval::Index::from_bytes(&index.to_bytes()?, Some(dim))?;
    }
    Ok(())
}

/// Records `language` in the asset at `out` (written by `build::write_asset`); for a language other
/// than English also drops the encoder file, so the widget searches with BM25 alone.
pub fn apply(out: &Path, mut manifest: Manifest, language: &str) -> Result<Manifest> {
    manifest.language = Some(language.to_string());
    if !is_english(language) {
        if let Some(enc) = manifest.files.encoder.take() {
            let p = out.join(&enc);
            std::fs::remove_file(&p).with_context(|| format!("cannot remove {}", p.display()))?;
        }
    }
    let path = out.join("manifest.json");
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(&manifest)?)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(manifest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_tags() {
        for t in ["en", "EN", "en-GB", "en_US"] {
            assert!(is_english(t), "{t}");
        }
        for t in ["ur", "fr-CA", "", "eng"] {
            assert!(!is_english(t), "{t}");
        }
    }

    #[test]
    fn only_english_books_offer_follow_ups() {
        let (mut index, _) = book_answer::testing::robot_book();
        index.meta.follow_ups = vec!["What is a node?".to_string(); index.len()];
        let index = book_retrieval::Index::from_bytes(&index.to_bytes().unwrap(), None).unwrap();
        let mut english = index.clone();
        adapt_index(&mut english, "en-GB").unwrap();
        assert!(!english.meta.follow_ups.is_empty());
        assert_eq!(english.content_hash, index.content_hash);
        let mut urdu = index.clone();
        adapt_index(&mut urdu, "ur").unwrap();
        assert!(urdu.meta.follow_ups.is_empty());
        // Its chunk texts are written under the hash of the index as it ships.
        let shipped = book_retrieval::Index::from_bytes(&urdu.to_bytes().unwrap(), None).unwrap();
        assert_eq!(urdu.content_hash, shipped.content_hash);
        assert_ne!(urdu.content_hash, index.content_hash);
    }
}
