//! An everyday word one letter from a book's term is a spelling of it ("colour" for "color")
//! only when the encoder puts the two words together; otherwise ("flight" and "light") it stays
//! one of the index's common words, which the search never corrects to a book's word.

use book_retrieval::analyzer::analyze;
use book_retrieval::bm25::{Bm25, Bm25Doc, Bm25Params};
use index_builder::{common_words, model};

#[test]
#[ignore = "needs the model weights (scripts/setup.sh)"]
fn spellings_of_book_words_are_typos_and_other_words_are_words() {
    let encoder = model::load_f32_encoder(&model::resolve_model_dir(None)).unwrap();
    let body = "The color of the light changes when you read the log.";
    let docs = [Bm25Doc {
        body,
        heading: "Colors",
        titles: "Logging",
    }];
    let bm25 = Bm25::build(&docs, Bm25Params::default());
    let words = common_words::for_book(&bm25, Some(&encoder), [body, "Colors", "Logging"]);
    let is_common = |w: &str| analyze(w).iter().all(|t| words.contains(t));
    assert!(!is_common("colour"), "colour is the book's color");
    for w in ["flight", "bread", "dinner"] {
        assert!(is_common(w), "{w} is a word of its own");
    }
    // Without an encoder every common word the book lacks is kept.
    let plain = common_words::for_book(&bm25, None, [body]);
    assert!(analyze("colour").iter().all(|t| plain.contains(t)));
}
