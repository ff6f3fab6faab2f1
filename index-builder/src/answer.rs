//! `index-builder answer`: what the widget shows for each question when no LLM is configured (the
//! default of every static book), from a built asset, with the widget's own code path: the
//! browser's search (int8 encoder, quantized vectors, stored thresholds), then
//! `book_answer::compose`. `--before-encoder` answers as the widget does while the encoder module
//! is still downloading (BM25 alone, quotes chosen by terms).

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result};
use book_answer::followup::{search_in_conversation, Leaning, Searched};
use book_answer::{Answer, Found, Turn};
use book_retrieval::{ChunkTexts, Encoder, Index, Mode};
use serde::Serialize;

use crate::build::{load_asset, read_manifest, LoadedAsset};
use crate::query::for_each_question;

/// An asset with its chunk texts: everything an answer is built from.
pub struct AnswerAsset {
    /// The index and encoder.
    pub asset: LoadedAsset,
    /// The chunk texts (quoted by excerpts).
    pub texts: ChunkTexts,
}

/// Loads an asset folder, chunk texts included.
pub fn load(dir: &Path) -> Result<AnswerAsset> {
    let asset = load_asset(dir)?;
    let manifest = read_manifest(dir)?;
    let p = dir.join(&manifest.files.chunks);
    let bytes = std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
    let texts = ChunkTexts::from_bytes(&bytes, &asset.index.content_hash, asset.index.len())
        .with_context(|| format!("cannot load {}", p.display()))?;
    Ok(AnswerAsset { asset, texts })
}

/// What the search finds for `question`, as the widget searches: hybrid when `encoder` is given,
/// BM25 alone otherwise (the widget before its encoder has loaded), asked from the page at `page`
/// (URL or path; its sections get the widget's current-page boost) or from none.
pub fn find_from(
    index: &Index,
    texts: &ChunkTexts,
    encoder: Option<&Encoder>,
    question: &str,
    page: Option<&str>,
) -> Found {
    let asked = Asked {
        page,
        ..Asked::default()
    };
    find_query(
        index,
        texts,
        encoder,
        question,
        question,
        Leaning::OnItself,
        &asked,
    )
}

/// [`find_from`] for a stand-alone `query` made of the reader's words `question` (the section whose
/// follow-up `question` is comes first, the one it was `offered_by` if several offer it:
/// `SearchRequest::asked`), asked from `asked.page`, leaning on `leaning`.
fn find_query(
    index: &Index,
    texts: &ChunkTexts,
    encoder: Option<&Encoder>,
    query: &str,
    question: &str,
    leaning: Leaning<'_>,
    asked: &Asked,
) -> Found {
    let mut req = book_answer::followup::search_request(
        query,
        question,
        asked.page,
        leaning,
        asked.previous_source,
        asked.offered_by,
    );
    if encoder.is_none() {
        req.mode = Mode::Bm25Only;
    }
    book_answer::found::search(index, texts, req, encoder.map(|e| e.encode(query)))
}

/// What the widget knows of a question besides its words: the page it is asked from, the text the
/// reader selected, and the conversation so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct Asked<'a> {
    /// The page asked from (URL or path): its sections get the widget's current-page boost.
    pub page: Option<&'a str>,
    /// The passage the reader selected ("Ask about this"): its words lead the search.
    pub selection: Option<&'a str>,
    /// The conversation's earlier answered turns, oldest first (refusals are not turns, as in the
    /// widget): a follow-up borrows the previous turn's topic words.
    pub history: &'a [Turn],
    /// The URL of the first source the last turn's answer listed: a follow-up's search favours
    /// the other sections of its page (`book_answer::followup::conversation_source`).
    pub previous_source: Option<&'a str>,
    /// The URL of the section that offered the question as a follow-up, when the reader clicked
    /// it (`book_answer::suggest::Suggestion::url`).
    pub offered_by: Option<&'a str>,
}

/// The widget's answer to `question` (no LLM): searched and composed as the widget searches it
/// (`book_answer::followup::search_in_conversation`).
pub fn answer(
    index: &Index,
    texts: &ChunkTexts,
    encoder: Option<&Encoder>,
    question: &str,
    asked: &Asked,
) -> Answer {
    answer_with_found(index, texts, encoder, question, asked).1
}

/// [`answer`], with what the search found for it (the answer lists some of those sources) and
/// what it was searched as.
pub fn answer_with_found<'a>(
    index: &Index,
    texts: &ChunkTexts,
    encoder: Option<&Encoder>,
    question: &str,
    asked: &Asked<'a>,
) -> (Searched<'a>, Answer) {
    let searched = search_in_conversation(
        question,
        asked.selection,
        asked.history,
        |query, leaning| find_query(index, texts, encoder, query, question, leaning, asked),
    );
    let Searched {
        leaning,
        ref query,
        ref found,
    } = searched;
    // A reader who changed nothing: the widget's default preferences.
    let prefs = book_answer::Preferences::default();
    // English: the CLI prints the English frame (the widget translates it, `book_answer::words`).
    let words = book_answer::Words::default();
    let read = book_answer::AlreadyRead::of(question, leaning);
    let read = read.as_ref();
    let a = match encoder {
        Some(enc) => {
            let embed = |t: &str, max_tokens: usize| Some(enc.encode_opening(t, max_tokens));
            book_answer::compose(query, found, Some(&embed), &prefs, &words, read)
        }
        None => book_answer::compose(query, found, None, &prefs, &words, read),
    };
    (searched, a)
}

/// One quote in the output.
#[derive(Debug, Serialize)]
pub struct QuoteRow {
    /// The quoted sentence or code.
    pub text: String,
    /// Source path of the quoted section.
    pub path: String,
    /// Its heading (`None` for a page top).
    pub heading: Option<String>,
    /// Its URL.
    pub url: String,
    /// The code block's language, for code quotes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// "sentence", "code", "table" (`text`: rows one a line, cells separated by a tab, header
    /// first) or "list" (`text`: items one a line).
    pub form: &'static str,
    /// For a table or list: the book's lead-in sentence to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intro: Option<String>,
}

/// One listed source in the output.
#[derive(Debug, Serialize)]
pub struct SourceRow {
    /// Source path.
    pub path: String,
    /// Heading (`None` for a page top).
    pub heading: Option<String>,
    /// URL with anchor.
    pub url: String,
    /// Relevance (the scale of the refusal threshold).
    pub score: f32,
}

/// One line of output.
#[derive(Debug, Serialize)]
pub struct AnswerRow {
    /// The question's id from the batch file.
    pub id: serde_json::Value,
    /// The book does not cover it.
    pub refused: bool,
    /// "high", "medium", "low", or null for refusals.
    pub confidence: Option<book_answer::Confidence>,
    /// The quotes, in the answer's order.
    pub quotes: Vec<QuoteRow>,
    /// The sources listed under the answer, numbered from 1 in this order.
    pub sources: Vec<SourceRow>,
    /// Sections linked after the quotes ("Also relevant"), not numbered.
    pub also: Vec<SourceRow>,
    /// Follow-up questions, each with the URL of the section that offers it (give it as
    /// `offered_by` to ask one as the widget does when it is clicked).
    pub suggestions: Vec<book_answer::suggest::Suggestion>,
    /// The answer text exactly as the widget renders it (Markdown).
    pub markdown: String,
}

/// The output line of `answer` for question `id`.
pub fn row(index: &Index, id: serde_json::Value, a: Answer) -> AnswerRow {
    let path = |chunk: u32| {
        index
            .chunk(chunk)
            .map(|c| c.path.clone())
            .unwrap_or_default()
    };
    let source_row = |s: &book_answer::Source| SourceRow {
        path: path(s.chunk),
        heading: s.section.clone(),
        url: s.url.clone(),
        score: s.score,
    };
    AnswerRow {
        id,
        refused: a.refused,
        confidence: a.confidence,
        quotes: a
            .quotes
            .iter()
            .filter_map(|q| {
                let s = a.sources.get(q.source)?;
                Some(QuoteRow {
                    text: q.text.clone(),
                    path: path(s.chunk),
                    heading: s.section.clone(),
                    url: s.url.clone(),
                    code: q.code_lang().map(str::to_string),
                    form: match q.form {
                        book_answer::extractive::Form::Sentence => "sentence",
                        book_answer::extractive::Form::Code { .. } => "code",
                        book_answer::extractive::Form::Table => "table",
                        book_answer::extractive::Form::List => "list",
                    },
                    intro: q.intro.clone(),
                })
            })
            .collect(),
        sources: a.sources.iter().map(source_row).collect(),
        also: a.also.iter().map(source_row).collect(),
        suggestions: a.suggestions,
        markdown: a.markdown,
    }
}

/// Answers every question of a JSON-lines batch file, one JSON line each. Lines with the same
/// `conversation` are asked in file order in one conversation, as a reader asks them in one panel.
/// A bad line gets an error on stderr and is skipped.
pub fn run_batch(asset: &AnswerAsset, batch: &Path, before_encoder: bool) -> Result<()> {
    let encoder = asset.asset.encoder.as_ref().filter(|_| !before_encoder);
    // Each conversation's answered turns, and the URL of the first source its last answer listed.
    let mut conversations: HashMap<String, (Vec<Turn>, Option<String>)> = HashMap::new();
    for_each_question(batch, |q| {
        let key = q.conversation.as_ref().map(|c| c.to_string());
        let (history, previous_source) = key
            .as_ref()
            .and_then(|k| conversations.get(k))
            .map_or((&[][..], None), |(turns, source)| {
                (turns.as_slice(), source.as_deref())
            });
        let asked = Asked {
            page: q.page.as_deref(),
            selection: q.selection.as_deref(),
            history,
            previous_source,
            offered_by: q.offered_by.as_deref(),
        };
        let a = answer(
            &asset.asset.index,
            &asset.texts,
            encoder,
            &q.question,
            &asked,
        );
        if let Some(k) = key.filter(|_| !a.refused) {
            let (turns, source) = conversations.entry(k).or_default();
            turns.push(Turn {
                question: q.question.trim().to_string(),
                answer: a.markdown.clone(),
            });
            *source = a.sources.first().map(|s| s.url.clone());
        }
        row(&asset.asset.index, q.id, a)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_asked_from_ranks_its_sections_first_as_in_the_widget() {
        // Two pages explaining launch files in the same words: a tie the page asked from breaks.
        let text = "A launch file starts several nodes at once with their parameters.";
        let (index, texts) = book_answer::testing::tiny_index(&[
            (
                "Simulation",
                Some("Launch files"),
                "/docs/sim",
                Some("launch-files"),
                text,
            ),
            (
                "Hardware",
                Some("Launch files"),
                "/docs/robot",
                Some("launch-files"),
                text,
            ),
        ]);
        let q = "What does a launch file start?";
        let top = |page: Option<&str>| {
            let asked = Asked {
                page,
                ..Asked::default()
            };
            let a = answer(&index, &texts, None, q, &asked);
            assert!(!a.refused, "{q}");
            a.sources.first().map(|s| s.url.clone()).unwrap_or_default()
        };
        assert_eq!(top(None), "/docs/sim#launch-files");
        assert_eq!(top(Some("/docs/robot")), "/docs/robot#launch-files");
        // The widget passes the page's full URL: host, trailing slash and anchor do not matter.
        assert_eq!(
            top(Some("http://127.0.0.1:3000/docs/robot/#intro")),
            "/docs/robot#launch-files"
        );
    }

    #[test]
    fn a_follow_up_is_answered_from_the_conversation_as_in_the_widget() {
        let (index, texts) = book_answer::testing::tiny_index(&[
            (
                "Gazebo",
                Some("What Gazebo is"),
                "/docs/gazebo",
                Some("what"),
                "Gazebo is a robot simulator with a physics engine and sensor plugins.",
            ),
            (
                "Gazebo",
                Some("Installing"),
                "/docs/gazebo",
                Some("installing"),
                "Install it with sudo apt install gz-harmonic on Ubuntu.",
            ),
            (
                "Isaac Sim",
                Some("What Isaac Sim is"),
                "/docs/isaac",
                Some("what"),
                "Isaac Sim is NVIDIA's photorealistic robot simulator built on Omniverse.",
            ),
            (
                "Isaac Sim",
                Some("Installing"),
                "/docs/isaac",
                Some("installing"),
                "Install it from the Omniverse launcher on a machine with an RTX card.",
            ),
        ]);
        let first = "What is Isaac Sim?";
        let a = answer(&index, &texts, None, first, &Asked::default());
        assert!(!a.refused);
        let history = [Turn {
            question: first.into(),
            answer: a.markdown,
        }];
        let follow_up = "How do I install it?";
        let in_conversation = Asked {
            history: &history,
            ..Asked::default()
        };
        let a = answer(&index, &texts, None, follow_up, &in_conversation);
        assert_eq!(
            a.sources.first().map(|s| s.url.as_str()),
            Some("/docs/isaac#installing"),
            "{:?}",
            a.sources
        );
        // Asked alone it does not know which simulator: Gazebo's page comes first.
        let a = answer(&index, &texts, None, follow_up, &Asked::default());
        assert_eq!(
            a.sources.first().map(|s| s.url.as_str()),
            Some("/docs/gazebo#installing")
        );
    }

    #[test]
    fn a_batch_line_may_name_its_conversation_and_selection() {
        let q: crate::query::Question = serde_json::from_str(
            r#"{"id": 2, "question": "why?", "conversation": "c1", "selection": "a passage"}"#,
        )
        .expect("parses");
        assert_eq!(q.conversation, Some(serde_json::json!("c1")));
        assert_eq!(q.selection.as_deref(), Some("a passage"));
    }

    #[test]
    fn a_clicked_follow_up_is_answered_from_the_section_it_was_offered_under() {
        // Two pages whose "Example configuration" sections offer the same follow-up.
        let (mut index, texts) = book_answer::testing::tiny_index(&[
            (
                "Sitemap plugin",
                Some("Example configuration"),
                "/docs/sitemap",
                Some("example-configuration"),
                "Set the change frequency and priority of every page in the sitemap options.",
            ),
            (
                "Blog plugin",
                Some("Example configuration"),
                "/docs/blog",
                Some("example-configuration"),
                "Set the blog's route base path and how many posts a page of the list shows.",
            ),
        ]);
        let q = "Can you show the example configuration?";
        index.meta.follow_ups = vec![q.into(), q.into()];
        let first = |offered_by: Option<&str>, page: Option<&str>| {
            let asked = Asked {
                offered_by,
                page,
                ..Asked::default()
            };
            let a = answer(&index, &texts, None, q, &asked);
            assert!(!a.refused, "{a:?}");
            a.sources.first().map(|s| s.url.clone()).unwrap_or_default()
        };
        let typed = first(None, None);
        let other = if typed == "/docs/blog#example-configuration" {
            "/docs/sitemap#example-configuration"
        } else {
            "/docs/blog#example-configuration"
        };
        // Clicked under the other section: that one, even asked from the typed one's page.
        assert_eq!(first(Some(other), None), other);
        let typed_page = typed.split('#').next();
        assert_eq!(first(Some(other), typed_page), other);
        // A batch line names it as `offered_by`, the `url` of the suggestion clicked.
        let line: crate::query::Question = serde_json::from_str(&format!(
            r#"{{"id": 1, "question": "{q}", "offered_by": "{other}"}}"#
        ))
        .expect("parses");
        assert_eq!(line.offered_by.as_deref(), Some(other));
    }

    #[test]
    fn a_batch_line_may_name_the_page() {
        let q: crate::query::Question =
            serde_json::from_str(r#"{"id": 1, "question": "q", "page": "/docs/intro"}"#)
                .expect("parses");
        assert_eq!(q.page.as_deref(), Some("/docs/intro"));
        let q: crate::query::Question =
            serde_json::from_str(r#"{"id": 1, "question": "q"}"#).expect("parses");
        assert_eq!(q.page, None);
    }
}
