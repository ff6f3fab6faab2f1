//! The index builder as a library: the CLI (`main.rs`) and the integration tests share it.
//!
//! Pipeline: [`docs`] reads a Docusaurus folder → [`chunker`] splits sections → [`embed`] embeds
//! them (cached) with the exact model from [`model`] → [`build`] indexes and writes the asset;
//! [`query`] and [`eval`] search it with the browser's code; [`answer`] prints the widget's answers.

#![warn(missing_docs)]

pub mod answer;
pub mod bench;
pub mod build;
pub mod calibrate;
pub mod casing;
pub mod chunker;
pub mod common_words;
pub mod docs;
pub mod embed;
pub mod encoder_cache;
pub mod eval;
pub mod follow_ups;
pub mod grid;
pub mod language;
pub mod model;
pub mod model_pack;
pub mod query;
pub mod stub_pages;
