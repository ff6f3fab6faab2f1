//! `index-builder`: Docusaurus docs -> static index asset.
mod docs;
fn main() {}
