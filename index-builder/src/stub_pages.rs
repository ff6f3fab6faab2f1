//! Stub pages: a page whose whole text is a notice that its content is still to come ("Content
//! for this section is coming soon!", twelve pages of one of the real textbooks). Indexed, such a
//! page wins questions on its title and links the reader to nothing; the build leaves it out of
//! the chat index and says so, as it does for any page it cannot use.

use crate::docs::Page;

/// Phrases of a notice that a page's content is still to come, lowercase, word by word.
const NOTICES: &[&[&str]] = &[
    &["coming", "soon"],
    &["to", "be", "written"],
    &["to", "be", "added"],
    &["to", "be", "announced"],
    &["under", "construction"],
    &["work", "in", "progress"],
    &["tbd"],
    &["tba"],
    &["todo"],
];

/// Most words a stub page says in all (a notice and a title's worth): a page longer than this
/// has content of its own, whatever else it announces ("Hydra 1.4 is coming soon. Until …").
const MAX_STUB_WORDS: usize = 20;

/// The notice a stub page consists of (its text, trimmed), or `None` when the page has content:
/// more than [`MAX_STUB_WORDS`] words, any code, or no notice phrase.
pub fn notice(page: &Page) -> Option<String> {
    if page.sections.iter().any(|s| s.has_code) {
        return None;
    }
    let text: Vec<&str> = page
        .sections
        .iter()
        .map(|s| s.text.trim())
        .filter(|t| !t.is_empty())
        .collect();
    let text = text.join(" ");
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let announces = NOTICES
        .iter()
        .any(|n| words.windows(n.len()).any(|w| w == *n));
    (announces && words.len() <= MAX_STUB_WORDS).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::{read_page, CategoryLabels, ReadOptions};

    fn page(source: &str) -> Page {
        let (page, _) = read_page(
            "a/stub.mdx",
            source,
            &CategoryLabels::new(),
            &ReadOptions::default(),
        )
        .expect("a valid page");
        page
    }

    #[test]
    fn a_page_that_only_announces_its_content_is_a_stub() {
        let stub = page(
            "---\ntitle: Sim-to-Real Transfer\n---\n\nContent for this section is coming soon!\n",
        );
        assert_eq!(
            notice(&stub).as_deref(),
            Some("Content for this section is coming soon!")
        );
        let headed = page("# Isaac ROS\n\n## Setup\n\nTBD\n\n## Usage\n\nTo be written.\n");
        assert!(notice(&headed).is_some());
    }

    #[test]
    fn a_page_with_content_is_not_a_stub() {
        let release = page("# Releases\n\nHydra 1.4 is coming soon. Until the stable release is available, you can try the release candidate from PyPI with pip and report any problems you meet on the issue tracker.\n");
        assert_eq!(notice(&release), None);
        let short = page("# Intro\n\nWelcome to the book.\n");
        assert_eq!(notice(&short), None);
        let code = page("# Run\n\nComing soon:\n\n```bash\nros2 run demo talker\n```\n");
        assert_eq!(notice(&code), None);
    }
}
