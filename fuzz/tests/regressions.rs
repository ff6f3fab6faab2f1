//! Stable-toolchain replay of the fuzz targets: seeds, deterministic mutations of them (every
//! truncation, bit flips, byte splices), the saved corpus (`corpus/<target>/`, written by
//! `cargo fuzz`) and every crash kept in `regressions/<target>/`. A panic fails the test.
use std::path::Path;

fn files(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    rd.filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .filter_map(|e| std::fs::read(e.path()).ok())
        .collect()
}

fn mutations(seed: &[u8], out: &mut Vec<Vec<u8>>) {
    let mut s = 0x2545f4914f6cdd1du64 ^ seed.len() as u64;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for len in 0..seed.len().min(4096) {
        out.push(seed[..len].to_vec());
    }
    for _ in 0..400 {
        let mut m = seed.to_vec();
        if m.is_empty() {
            m.push(rnd() as u8);
        }
        for _ in 0..(1 + rnd() % 4) {
            let i = (rnd() as usize) % m.len();
            match rnd() % 3 {
                0 => m[i] ^= 1 << (rnd() % 8),
                1 => m[i] = rnd() as u8,
                _ => {
                    let v = [0u8, 0xff, b'\n', b'[', b'#', b'-', b'`', b'{', 0x80];
                    m.insert(i, v[(rnd() as usize) % v.len()]);
                }
            }
        }
        out.push(m);
    }
}

#[test]
fn every_target_survives_seeds_mutations_corpus_and_past_crashes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut total = 0;
    for (name, run) in book_chat_fuzz::TARGETS {
        let seeds = book_chat_fuzz::seeds(name);
        assert!(!seeds.is_empty(), "{name} has no seed");
        let mut inputs = Vec::new();
        for s in &seeds {
            inputs.push(s.clone());
            mutations(s, &mut inputs);
        }
        inputs.extend(files(&root.join("corpus").join(name)));
        inputs.extend(files(&root.join("regressions").join(name)));
        for input in &inputs {
            run(input);
        }
        total += inputs.len();
    }
    println!("{total} inputs replayed");
}

#[test]
fn seeds_are_accepted_where_they_should_be() {
    // The loader seeds must be valid files, or the mutations would only probe the magic check.
    let idx = book_chat_fuzz::seeds("index_loader");
    assert!(book_retrieval::Index::from_bytes(&idx[0], None).is_ok());
    let t = &book_chat_fuzz::seeds("chunk_texts")[0];
    assert!(book_retrieval::ChunkTexts::from_bytes(&t[4..], "0123456789abcdef", 3).is_ok());
}
