//! Writes each target's seed inputs into `corpus/<target>/` (run by scripts/fuzz.sh before fuzzing).
fn main() -> std::io::Result<()> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for (name, _) in book_chat_fuzz::TARGETS {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir)?;
        for (i, seed) in book_chat_fuzz::seeds(name).iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i}")), seed)?;
        }
    }
    Ok(())
}
