//! Pruned tokens pointed at their nearest kept row (`Encoder::remap_pruned`): the choice, the
//! tokens left alone, and the file round trip.

use book_retrieval::encoder::{PrunedWords, QuantPlan, WordEmbeddings, NO_ROW};
use book_retrieval::testing;
use book_retrieval::tokenizer::WordPiece;
use book_retrieval::Encoder;

fn row_of(words: &WordEmbeddings) -> &[u16] {
    match words {
        WordEmbeddings::Grouped { row_of, .. } | WordEmbeddings::Q4 { row_of, .. } => row_of,
        WordEmbeddings::F32(_) => panic!("not pruned"),
    }
}

/// The tiny encoder's f32 table, with only the letters, digits and a few words kept.
fn pruned() -> (Encoder, Vec<bool>, Vec<String>) {
    let f = testing::encoder_f32();
    let tokens: Vec<String> = f.vocab_text.lines().map(String::from).collect();
    let keep: Vec<bool> = tokens
        .iter()
        .map(|t| t.chars().count() == 1 || ["ros", "node", "topic"].contains(&t.as_str()))
        .collect();
    (f, keep, tokens)
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>() / (n(a) * n(b))
}

#[test]
fn a_pruned_token_reads_the_kept_row_nearest_its_embedding() {
    let (f, keep, tokens) = pruned();
    let h = f.config.hidden;
    let WordEmbeddings::F32(table) = &f.words else {
        panic!("f32 table")
    };
    let plan = QuantPlan::default();
    let before = f.quantized_words(&keep, &plan);
    let mut after = before.clone();
    f.remap_pruned(&mut after, PrunedWords::NearestCosine { min_percent: 0 });
    let (before, after) = (row_of(&before), row_of(&after));
    let row = |id: usize| &table[id * h..(id + 1) * h];
    let mut remapped = 0;
    for (id, t) in tokens.iter().enumerate() {
        if before[id] != NO_ROW {
            assert_eq!(after[id], before[id], "{t}: a kept token keeps its row");
        } else if !WordPiece::can_emit(t) {
            assert_eq!(after[id], NO_ROW, "{t}: never emitted, so never stored");
        } else {
            remapped += 1;
            // The best cosine over the ordinary kept tokens.
            let best = tokens
                .iter()
                .enumerate()
                .filter(|(k, t)| before[*k] != NO_ROW && WordPiece::can_emit(t))
                .map(|(k, _)| cosine(row(id), row(k)))
                .fold(f32::NEG_INFINITY, f32::max);
            let chosen = (0..tokens.len())
                .find(|&k| before[k] == after[id])
                .expect("points at a kept token's row");
            assert!(
                WordPiece::can_emit(&tokens[chosen]),
                "{t} -> {}",
                tokens[chosen]
            );
            assert!(
                cosine(row(id), row(chosen)) >= best - 1e-5,
                "{t} -> {}",
                tokens[chosen]
            );
        }
    }
    assert!(remapped > 10, "{remapped}");
    for special in ["[PAD]", "[MASK]"] {
        let id = tokens.iter().position(|t| t == special).unwrap();
        assert_eq!(after[id], NO_ROW, "{special}");
    }
}

#[test]
fn a_stand_in_below_the_least_cosine_is_not_taken() {
    let (f, keep, tokens) = pruned();
    let h = f.config.hidden;
    let WordEmbeddings::F32(table) = &f.words else {
        panic!("f32 table")
    };
    let before = f.quantized_words(&keep, &QuantPlan::default());
    let (mut all, mut near) = (before.clone(), before.clone());
    f.remap_pruned(&mut all, PrunedWords::NearestCosine { min_percent: 0 });
    f.remap_pruned(&mut near, PrunedWords::NearestCosine { min_percent: 60 });
    let (before, all, near) = (row_of(&before), row_of(&all), row_of(&near));
    let row = |id: usize| &table[id * h..(id + 1) * h];
    let (mut kept, mut dropped) = (0, 0);
    for id in 0..tokens.len() {
        if before[id] != NO_ROW || all[id] == NO_ROW {
            assert_eq!(near[id], all[id]);
            continue;
        }
        let stand_in = (0..tokens.len()).find(|&k| before[k] == all[id]).unwrap();
        if cosine(row(id), row(stand_in)) >= 0.6 {
            assert_eq!(near[id], all[id], "{}", tokens[id]);
            kept += 1;
        } else {
            assert_eq!(near[id], NO_ROW, "{}", tokens[id]);
            dropped += 1;
        }
    }
    assert!(kept > 0 && dropped > 0, "{kept} {dropped}");
}

#[test]
fn unk_leaves_the_table_as_it_was() {
    let (f, keep, _) = pruned();
    let before = f.quantized_words(&keep, &QuantPlan::default());
    let mut after = before.clone();
    f.remap_pruned(&mut after, PrunedWords::Unk);
    assert_eq!(row_of(&before), row_of(&after));
}

#[test]
fn a_remapped_file_reads_back_and_encodes_the_same() {
    let (f, keep, _) = pruned();
    let mut shipped = f.quantized_with(&keep, &QuantPlan::default(), &[]);
    let unk_only = shipped.clone();
    f.remap_pruned(
        &mut shipped.words,
        PrunedWords::NearestCosine { min_percent: 0 },
    );
    let bytes = shipped.to_bytes().unwrap();
    let read = Encoder::from_bytes(&bytes).unwrap();
    assert_eq!(row_of(&read.words), row_of(&shipped.words));
    // "publish" and "gazebo" are pruned: they read a stand-in row, not [UNK]'s.
    let text = "which nodes publish a gazebo topic";
    assert_eq!(read.encode(text), shipped.encode(text));
    assert_ne!(read.encode(text), unk_only.encode(text));
    assert_eq!(read.encode("ros node"), unk_only.encode("ros node"));
}
