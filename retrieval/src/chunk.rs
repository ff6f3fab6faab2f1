//! The unit of retrieval: one piece of one section of one page of the book.

use serde::{Deserialize, Serialize};

/// Where a chunk comes from: everything a citation needs, without the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkMeta {
    /// Stable id: hex of a hash of the chunk's content and location.
    pub id: String,
    /// Module label (the top-level category's `_category_` label).
    pub module: String,
    /// Chapter: the doc's title.
    pub chapter: String,
    /// Section heading text; `None` for the text before the first heading (page top).
    pub section: Option<String>,
    /// Headings from the doc title down to this section (title first).
    pub headings: Vec<String>,
    /// Site URL of the section, with `#anchor` unless it is the page top.
    pub url: String,
    /// Source path relative to the docs folder, with `/` separators.
    pub path: String,
    /// Whether the chunk contains a fenced code block.
    pub has_code: bool,
    /// Index of the page (doc) this chunk belongs to, in build order.
    pub page: u32,
}

/// Headings of sections that list what a chapter covers or asks rather than explain it.
const POINTING_HEADINGS: &[&str] = &[
    "what you'll learn",
    "what you will learn",
    "learning objectives",
    "learning outcomes",
    "objectives",
    "next steps",
    "what's next",
    "what's next in this book",
    "what next",
    "where to go next",
    "where to go from here",
    "next section",
    "related topics",
    "resources",
    "further resources",
    "additional resources",
    "more resources",
    "external resources",
    "review resources",
    "useful links",
    "external links",
    "learn more",
    "prerequisites",
    "further reading",
    "references",
    "see also",
    "review questions",
];

/// Whether a section points elsewhere rather than explains: objectives, next steps, reading
/// lists, a quiz (any section of a quiz page). Such sections restate, in the chapter's words, what
/// another section explains; the search can rank them lower and the excerpt answer quotes the
/// explaining section first. One definition for both.
pub fn points_elsewhere(chapter: &str, section: Option<&str>) -> bool {
    let quiz = |t: &str| {
        t.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| matches!(w, "quiz" | "quizzes"))
    };
    quiz(chapter) || section.is_some_and(quiz) || heading_in(section, POINTING_HEADINGS)
}

/// Whether `section`'s heading, without its number ("2.1.") and closing punctuation and
/// lowercased, is one of `list`.
fn heading_in(section: Option<&str>, list: &[&str]) -> bool {
    section.is_some_and(|h| {
        let h = h
            .trim()
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
            .trim_end_matches([':', '?', ' '])
            .to_lowercase();
        list.contains(&h.as_str())
    })
}

/// Whether a section sums up its chapter ("Summary", "Key Takeaways", "5. Conclusion"). A summary
/// restates the chapter's sections in a few lines, so its words match many questions a section
/// above it answers: the excerpt answer chooses its first sentence from the section that explains,
/// so that section is always quoted. Unlike a section that points elsewhere
/// ([`points_elsewhere`]), a summary is searched like any other and may give a later quote or be
/// listed as also relevant: its lines are often the shortest statement of a difference ("topics
/// stream data; services answer quick questions").
pub fn sums_up(section: Option<&str>) -> bool {
    heading_in(section, &["summary", "key takeaways", "conclusion"])
}

/// Whether a chunk is where its page introduces the topic whose analyzed `terms` a bare-topic
/// question names ([`crate::analyzer::bare_topic`]): the page's top, or a section headed by the
/// topic alone ("Whisper", "What is Whisper?") or "Introduction" / "Overview", when the page title
/// with that heading holds every term. A reader who types only "whisper" wants the page's "What is
/// Whisper?", not its "Whisper Streaming Libraries", which holds the word as often.
pub fn introduces(meta: &ChunkMeta, terms: &[String]) -> bool {
    let heading = crate::analyzer::analyze(meta.section.as_deref().unwrap_or(""));
    heading
        .iter()
        .all(|t| terms.contains(t) || t == "introduction" || t == "overview")
        && {
            let title = crate::analyzer::analyze(&meta.chapter);
            terms
                .iter()
                .all(|t| title.contains(t) || heading.contains(t))
        }
}

impl ChunkMeta {
    /// See [`points_elsewhere`].
    pub fn points_elsewhere(&self) -> bool {
        points_elsewhere(&self.chapter, self.section.as_deref())
    }
}

/// A chunk with its text (cleaned Markdown: prose, lists, tables and fenced code kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Where the chunk comes from.
    #[serde(flatten)]
    pub meta: ChunkMeta,
    /// The chunk's text.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::{introduces, points_elsewhere, sums_up, ChunkMeta};

    #[test]
    fn a_topic_is_introduced_by_its_pages_top_and_what_is_sections() {
        let meta = |chapter: &str, section: Option<&str>| ChunkMeta {
            id: String::new(),
            module: String::new(),
            chapter: chapter.into(),
            section: section.map(Into::into),
            headings: Vec::new(),
            url: String::new(),
            path: String::new(),
            has_code: false,
            page: 0,
        };
        let whisper = crate::analyzer::analyze("whisper");
        assert!(introduces(&meta("Voice with Whisper", None), &whisper));
        assert!(introduces(
            &meta("Voice", Some("What is Whisper?")),
            &whisper
        ));
        assert!(introduces(&meta("Whisper", Some("Overview")), &whisper));
        assert!(introduces(&meta("Voice", Some("Whisper")), &whisper));
        assert!(!introduces(
            &meta("Whisper", Some("Whisper Streaming Libraries")),
            &whisper
        ));
        assert!(!introduces(&meta("Voice pipelines", None), &whisper));
        assert!(!introduces(&meta("Voice", Some("Introduction")), &whisper));
    }

    #[test]
    fn quizzes_objectives_and_next_steps_point_elsewhere() {
        assert!(points_elsewhere(
            "Chapter 3 Quiz",
            Some("Question 2: USD Format")
        ));
        assert!(points_elsewhere("Module 2: Quizzes", None));
        assert!(points_elsewhere("ROS 2", Some("2.1. Learning Objectives:")));
        assert!(points_elsewhere("ROS 2", Some("Next Steps")));
        assert!(points_elsewhere("Capstone", Some("Where to go next")));
        assert!(points_elsewhere("Capstone", Some("What's next?")));
        assert!(points_elsewhere("ROS 2", Some("Quiz: check yourself")));
        // Reading lists: links out, whatever the chapter's words in them.
        assert!(points_elsewhere("Simulation", Some("Resources")));
        assert!(points_elsewhere("ROS 2", Some("Review Resources")));
        assert!(points_elsewhere("ROS 2", Some("Useful links")));
        assert!(!points_elsewhere("ROS 2", Some("Compute resources")));
        assert!(!points_elsewhere("ROS 2", Some("Quizzical robots")));
        assert!(!points_elsewhere("ROS 2", Some("Services and actions")));
        assert!(!points_elsewhere("ROS 2", None));
        assert!(!points_elsewhere("ROS 2", Some("Summary")));
    }

    #[test]
    fn summaries_sum_up() {
        assert!(sums_up(Some("Summary")));
        assert!(sums_up(Some("Key Takeaways")));
        assert!(sums_up(Some("5. Conclusion")));
        assert!(!sums_up(Some("Summary statistics of the dataset")));
        assert!(!sums_up(Some("Services and actions")));
        assert!(!sums_up(None));
    }
}
