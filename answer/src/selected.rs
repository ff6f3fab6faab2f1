//! The passage a reader selected before asking ("Ask about this"). They have just read it, so an
//! excerpt answer quotes what the book says about it and around it, not the passage back: "what
//! does this mean?" about "Your simulated robot is a digital twin of the real robot." was answered
//! with that very sentence.

/// Share of a line's words the selection must hold, in a row, for the reader to have read the
/// line: a line the selection holds whole has all of them; a selection that is most of a sentence
/// ("Physics engines (like Gazebo's ODE, Bullet, or DART)" of "… compute realistic motion") or
/// begins in its last words holds a part; two sentences that only share a phrase are not read.
const READ_SHARE: f32 = 0.6;

/// The selected passage's words, to tell the book's lines the reader has read in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    /// Its words as [`spaced_words`] writes them.
    spaced: String,
}

impl Selected {
    /// The passage `selection`, selected by a reader who asks `question` about it; `None` when
    /// there is none, or when the question asks for the passage itself in short ("summarize
    /// this", "tl;dr"): quoting its key lines back is then the answer.
    pub fn of(question: &str, selection: Option<&str>) -> Option<Selected> {
        let spaced = spaced_words(selection?);
        (spaced.len() > 1 && !asks_summary(question)).then_some(Selected { spaced })
    }

    /// Whether the reader has read `line` of the book (a sentence, list item, code block or a
    /// quote built of them) in the selection: the selection holds the line whole, or a run of at
    /// least [`READ_SHARE`] of its words where the selection begins, ends or lies in the line.
    pub fn has_read(&self, line: &str) -> bool {
        let line = spaced_words(line);
        let words = |s: &str| s.matches(' ').count().saturating_sub(1) as f32;
        let enough = |part: &str| words(part) >= READ_SHARE * words(&line);
        let sel = self.spaced.as_str();
        if line.len() <= 1 {
            return false;
        }
        if sel.contains(&line) {
            return true;
        }
        if line.contains(sel) {
            return enough(sel);
        }
        // Split after each word: the line's tail opens the selection, or its head closes it.
        line.match_indices(' ').any(|(at, _)| {
            let (head, tail) = (&line[..=at], &line[at..]);
            (sel.starts_with(tail) && enough(tail)) || (sel.ends_with(head) && enough(head))
        })
    }
}

/// The words of `text` as a reader sees them on the page, lowercase, each followed by one space,
/// after a leading one (" a node is a process "), so that a run of whole words is a substring: a
/// link's destination is not shown, so it is left out ("[ROS 2 docs](https://docs.ros.org)" reads
/// "ROS 2 docs"); Markdown marks and punctuation split nothing but words.
fn spaced_words(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        shown.push_str(&rest[..at]);
        rest = match rest[at..].find(')') {
            Some(close) => &rest[at + close + 1..],
            None => "",
        };
    }
    shown.push_str(rest);
    let mut spaced = String::with_capacity(shown.len() + 2);
    spaced.push(' ');
    for w in shown
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        spaced.push_str(&w.to_lowercase());
        spaced.push(' ');
    }
    spaced
}

/// Whether `question` asks for the passage in short rather than about it.
fn asks_summary(question: &str) -> bool {
    let q = question.to_lowercase();
    [
        "summar",
        "tl;dr",
        "tldr",
        "recap",
        "gist",
        "in short",
        "key points",
        "main points",
    ]
    .iter()
    .any(|w| q.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSAGE: &str = "The Digital Twin: Your simulated robot is a **digital twin** of the \
                           real robot. Ideally, what works in simulation works in reality.";

    fn selected(s: &str) -> Selected {
        Selected::of("what does this mean?", Some(s)).unwrap()
    }

    #[test]
    fn a_sentence_of_the_selection_is_read_whatever_its_marks() {
        let s = selected(PASSAGE);
        assert!(s.has_read("Your simulated robot is a digital twin of the real robot."));
        assert!(s.has_read("Ideally, what works in simulation works in reality."));
        assert!(s.has_read(PASSAGE));
    }

    #[test]
    fn a_sentence_mostly_selected_is_read() {
        let s = selected("Physics engines (like Gazebo's ODE, Bullet, or DART)");
        assert!(s.has_read(
            "Physics engines (like Gazebo's ODE, Bullet, or DART) compute realistic motion"
        ));
    }

    #[test]
    fn a_selection_across_two_sentences_reads_the_one_it_mostly_holds() {
        let s = selected("is a digital twin of the real robot. Ideally");
        assert!(s.has_read("Your simulated robot is a digital twin of the real robot."));
        assert!(!s.has_read("Ideally, what works in simulation works in reality."));
        let s = selected("robot. Ideally, what works in simulation works");
        assert!(!s.has_read("Your simulated robot is a digital twin of the real robot."));
        assert!(s.has_read("Ideally, what works in simulation works in reality."));
    }

    #[test]
    fn a_sentence_sharing_a_phrase_is_not_read() {
        let s = selected(PASSAGE);
        assert!(!s.has_read(
            "A digital twin of the real robot needs accurate inertia, friction and motor limits \
             before a policy trained on it transfers."
        ));
        assert!(!s.has_read("Gazebo simulates physics."));
    }

    #[test]
    fn a_link_reads_as_its_text() {
        let s = selected("See the ROS 2 docs for the full list of QoS settings.");
        assert!(s.has_read(
            "See the [ROS 2 docs](https://docs.ros.org/en/humble/qos.html) for the full list of \
             QoS settings."
        ));
    }

    #[test]
    fn short_lines_must_be_selected_in_a_row() {
        let s = selected("IMU and LIDAR");
        assert!(s.has_read("LIDAR"));
        assert!(s.has_read("IMU and"));
        assert!(!s.has_read("IMU LIDAR"));
        assert!(!s.has_read("—"));
    }

    #[test]
    fn a_summary_is_asked_of_the_passage_itself() {
        assert_eq!(Selected::of("Summarize this", Some(PASSAGE)), None);
        assert_eq!(Selected::of("tl;dr?", Some(PASSAGE)), None);
        assert_eq!(Selected::of("what does this mean?", None), None);
        assert_eq!(Selected::of("what does this mean?", Some("  ** ")), None);
    }
}
