//! What the reader has just read: the passage they selected before asking ("Ask about this"), or
//! the answer a follow-up follows. An excerpt answer quotes what the book says about it and around
//! it rather than the same lines again: "what does this mean?" about "Your simulated robot is a
//! digital twin of the real robot." was answered with that very sentence, and "and without python,
//! straight from the terminal?" after the Python example with the Python example (the section's
//! `ros2 action send_goal` line was there to quote).

use crate::followup::Leaning;

/// Share of a line's words what was read must hold, in a row, for the reader to have read the
/// line: a line the selection holds whole has all of them; a selection that is most of a sentence
/// ("Physics engines (like Gazebo's ODE, Bullet, or DART)" of "… compute realistic motion") or
/// begins in its last words holds a part; two sentences that only share a phrase are not read.
const READ_SHARE: f32 = 0.6;

/// The words the reader has just read, to tell the book's lines they need not be shown again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlreadyRead {
    /// Its words as [`spaced_words`] writes them.
    spaced: String,
    /// Where they were read.
    seen: Seen,
}

/// Where the reader read what they have just read, which says whether a line of it may be quoted
/// again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// The passage the question is about: never quoted back.
    Selected,
    /// The answer a follow-up follows: a line of it is quoted again only when the section the
    /// answer comes from has nothing else to quote. The follow-up often asks about the same
    /// section, and the line read may still be its answer ("can I save them all to a file?"
    /// after a block of commands that ends with `ros2 param dump`). Left out altogether, the
    /// labelled follow-ups lost 9 first quotes from their gold section and 4 answer keys.
    PreviousAnswer,
}

impl AlreadyRead {
    /// What a reader asking `question` has just read: the passage it is about
    /// ([`Leaning::OnSelection`]), or the answer of the turn a follow-up leans on
    /// ([`Leaning::OnLastTurn`]). `None` for a question of its own, or one that asks for that text
    /// itself in short ("summarize this", "tl;dr"): quoting its key lines is then the answer.
    pub fn of(question: &str, leaning: Leaning<'_>) -> Option<AlreadyRead> {
        if asks_summary(question) {
            return None;
        }
        let (text, seen) = match leaning {
            Leaning::OnSelection { passage, .. } => (passage, Seen::Selected),
            Leaning::OnLastTurn(turn) => (turn.answer.as_str(), Seen::PreviousAnswer),
            Leaning::OnItself => return None,
        };
        let spaced = spaced_words(text);
        (spaced.len() > 1).then_some(AlreadyRead { spaced, seen })
    }

    /// Whether a line of it may be quoted again when its section has nothing else.
    pub fn may_requote(&self) -> bool {
        self.seen == Seen::PreviousAnswer
    }

    /// Whether the reader has just read `line` of the book (a sentence, list item, code block or
    /// a quote built of them): what they read holds the line whole, or a run of at least
    /// [`READ_SHARE`] of its words where it begins, ends or lies in the line.
    pub fn has_read(&self, line: &str) -> bool {
        let line = spaced_words(line);
        let words = |s: &str| s.matches(' ').count().saturating_sub(1) as f32;
        let enough = |part: &str| words(part) >= READ_SHARE * words(&line);
        let read = self.spaced.as_str();
        if line.len() <= 1 {
            return false;
        }
        if read.contains(&line) {
            return true;
        }
        if line.contains(read) {
            return enough(read);
        }
        // Split after each word: the line's tail opens what was read, or its head closes it.
        line.match_indices(' ').any(|(at, _)| {
            let (head, tail) = (&line[..=at], &line[at..]);
            (read.starts_with(tail) && enough(tail)) || (read.ends_with(head) && enough(head))
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

/// Whether `question` asks for the passage in short rather than about it: a word opening with
/// "summar" or "recap", or "tl;dr", "gist", "in short", "key points", "main points" (whole words:
/// "logistics" holds "gist").
fn asks_summary(question: &str) -> bool {
    let q = spaced_words(question);
    [" summar", " recap"].iter().any(|w| q.contains(w))
        || [
            " tl dr ",
            " tldr ",
            " gist ",
            " in short ",
            " key points ",
            " main points ",
        ]
        .iter()
        .any(|w| q.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Turn;

    /// What a reader asking `q` after `history` with `selection` selected has read.
    fn read_by(q: &str, selection: Option<&str>, history: &[Turn]) -> Option<AlreadyRead> {
        AlreadyRead::of(q, Leaning::of(q, selection, history))
    }

    const PASSAGE: &str = "The Digital Twin: Your simulated robot is a **digital twin** of the \
                           real robot. Ideally, what works in simulation works in reality.";

    fn selected(s: &str) -> AlreadyRead {
        read_by("what does this mean?", Some(s), &[]).unwrap()
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
    fn a_follow_up_has_read_the_answer_it_follows() {
        let history = [Turn {
            question: "how do I set up tab completion in bash?".into(),
            answer: "Excerpts from the book:\n\n> Run `eval \"$(python my_app.py -sc install=bash)\"` [1]"
                .into(),
        }];
        let read = read_by("and for zsh?", None, &history).unwrap();
        assert!(read.may_requote());
        assert!(read.has_read("Run `eval \"$(python my_app.py -sc install=bash)\"`"));
        assert!(!read.has_read("Zsh is compatible with the Bash shell completion."));
        // A question of its own starts afresh.
        assert_eq!(read_by("How do I configure logging?", None, &history), None);
        // A question about a selection has read the selection, and never sees it again.
        let about = read_by("why?", Some(PASSAGE), &history).unwrap();
        assert!(!about.may_requote());
        assert!(about.has_read("Ideally, what works in simulation works in reality."));
        assert!(!about.has_read("Run `eval \"$(python my_app.py -sc install=bash)\"`"));
    }

    #[test]
    fn a_summary_is_asked_of_the_passage_itself() {
        assert_eq!(read_by("Summarize this", Some(PASSAGE), &[]), None);
        assert_eq!(read_by("tl;dr?", Some(PASSAGE), &[]), None);
        assert_eq!(read_by("Give me the gist", Some(PASSAGE), &[]), None);
        assert!(read_by("why does logistics matter here?", Some(PASSAGE), &[]).is_some());
        assert_eq!(read_by("what does this mean?", None, &[]), None);
        assert_eq!(read_by("what does this mean?", Some("  ** "), &[]), None);
    }
}
