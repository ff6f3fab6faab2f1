//! Rewrites a follow-up question into a stand-alone retrieval query from the conversation,
//! with no LLM call: short or pronoun-led questions borrow the topic words of the previous turn.
//! Part of the answer core so that the widget and `index-builder answer` (whose batch lines may
//! form a conversation) search the same query for the same conversation.

use book_prompt::Turn;

use crate::confidence::CLEAR_MARGIN;
use crate::found::Found;
use crate::text::{content_words, is_stopword, words, words_as_written, WordList};

/// Words that point back at something said before (not "there": "there are three mugs …" opens a
/// question of its own).
const ANAPHORA: WordList = WordList(concat!(
    "it|its|this|that|these|those|they|them|their|he|she|one|ones|same|above|",
    "previous|former|latter",
));

/// Openers of elliptical follow-ups ("what about …", "and …"). Not "why": "Why?" and "why not?"
/// have at most one topic word, which makes a follow-up anyway, and a question such as "why does
/// ros2 run say no executable found" stands on its own (glued to the previous question's words,
/// it was searched for something else).
const ELLIPTIC_OPENERS: WordList = WordList("and|also|so|then|but|or|what about|how about|more");

/// Openers that take up the answer just given ("ok how do i set up the key on ubuntu?", "thanks,
/// and on windows?"): a reader who acknowledges an answer goes on from it. (From reading the first
/// held-out conversations' misses, `eval/conversations-heldout/`; no labelled question of its own
/// opens so.)
const ACKNOWLEDGEMENTS: WordList =
    WordList("ok|okay|alright|thanks|thank you|got it|cool|great|perfect|nice");

/// Whether the question ends by pointing at the conversation: "… for cmd vel then?" (what the
/// answer said decides it), or a pronoun after a preposition ("how long does transcription take
/// on it", "how do i leave some routes out of it"), which names where or what the question is
/// about, not a thing the question names before it. Not after "with" or "of" ("why would I bother
/// with it", "want all of them": the labelled questions of their own that end so), nor "into" and
/// the like, which [`points_back`] reads ("spawn a robot into it"). (From reading the second
/// held-out conversations' misses, `eval/conversations-heldout-2/`.)
fn ends_on_the_conversation(question: &str) -> bool {
    let ws = words(question);
    let pronoun = |w: &String| {
        matches!(
            w.as_str(),
            "it" | "them" | "this" | "that" | "these" | "those"
        )
    };
    match ws.as_slice() {
        [.., last] if last == "then" => true,
        [.., out, of, last] if of == "of" => out == "out" && pronoun(last),
        [.., preposition, last] => {
            pronoun(last)
                && !matches!(preposition.as_str(), "with" | "of")
                && !INTO.contains(preposition.as_str())
                && (PREPOSITIONS.contains(preposition.as_str())
                    || PLACE_PREPOSITIONS.contains(preposition.as_str()))
        }
        _ => false,
    }
}

/// Whether `lower` opens with one of `openers` as whole words ("ok, so", "and?", not "okapi",
/// "so-called" or "or's").
fn opens_with(lower: &str, openers: WordList) -> bool {
    openers.iter().any(|o| {
        lower.strip_prefix(o).is_some_and(|rest| {
            !rest.starts_with(|c: char| c.is_alphanumeric() || matches!(c, '\'' | '-' | '_'))
        })
    })
}

/// Topic words that ask for more of the same rather than name a subject: a question whose few
/// topic words are these or [`PART_OF_A_SUBJECT`] ("Show the code"), or whose one topic word is a
/// [`RELATIONAL`] noun ("Any alternatives?"), leans on the conversation, while one naming a thing
/// ("What is URDF?", "What is a quaternion?") stands on its own.
const MORE_OF_THE_SAME: WordList = WordList(concat!(
    "code|explain|elaborate|clarify|expand|detail|details|detailed|more|simpler|",
    "simply|summary|summarize|step|steps|next|further|else|continue|why|how|instead|",
    "example|examples|sample|snippet|syntax|usage|use|used|work|works|mean",
));

/// Whether the question leans on the conversation to be understood.
pub fn is_follow_up(question: &str) -> bool {
    let topic = content_words(question);
    let lower = question.trim().to_lowercase();
    let names_no_subject = |w: &String| {
        MORE_OF_THE_SAME.contains(w.as_str()) || PART_OF_A_SUBJECT.contains(w.as_str())
    };
    points_back(question)
        || relates_to_nothing(question)
        || opens_with(&lower, ELLIPTIC_OPENERS)
        || opens_with(&lower, ACKNOWLEDGEMENTS)
        || ends_on_the_conversation(question)
        || match topic.as_slice() {
            [one] if RELATIONAL.contains(one.as_str()) => true,
            // No topic word, or at most three that name no subject: "Show the code", "what's the
            // install command?", "show me what the output should look like".
            _ => topic.len() <= 3 && topic.iter().all(names_no_subject),
        }
}

/// Nouns that name a part or product of something ("the install command", "the output") and
/// verbs that go with them: a question made only of these and [`MORE_OF_THE_SAME`] says nothing of
/// its subject. (From reading the labelled conversations' misses on three books: "what's the
/// install command?" after a question on a plugin was searched alone.)
const PART_OF_A_SUBJECT: WordList = WordList(concat!(
    "install|installation|command|commands|output|outputs|result|results|",
    "requirements|dependencies|version|versions|options|parameters|arguments|setup|",
    "show|look|like|run|see|get|need",
));

/// Nouns that name a relation to something: without a complement ("alternatives to Gazebo", "the
/// difference between …") the something is the conversation's subject ("any alternatives I could
/// host myself?").
const RELATIONAL: WordList = WordList(concat!(
    "alternative|alternatives|difference|differences|pros|cons|advantages|",
    "disadvantages|limitations|downsides|drawbacks|benefits|tradeoffs",
));

/// Words that open a relational noun's complement ("alternatives *to* …", "pros and cons *of* …").
const COMPLEMENT: WordList =
    WordList("to|of|for|between|than|over|in|with|from|versus|vs|compared|against|on|among");

/// Whether the question's first topic word is a relational noun with no complement: "any
/// alternatives I could host myself?", "pros and cons?" (but not "alternatives to Gazebo").
fn relates_to_nothing(question: &str) -> bool {
    let ws = words(question);
    let is_relational = |i: usize| ws.get(i).is_some_and(|w| RELATIONAL.contains(w.as_str()));
    let Some(mut at) = ws
        .iter()
        .position(|w| w.chars().count() > 1 && !is_stopword(w))
    else {
        return false;
    };
    if !is_relational(at) {
        return false;
    }
    // "pros and cons", "advantages or disadvantages": the last of the pair takes the complement.
    while ws.get(at + 1).is_some_and(|w| w == "and" || w == "or") && is_relational(at + 2) {
        at += 2;
    }
    !ws.get(at + 1)
        .is_some_and(|w| COMPLEMENT.contains(w.as_str()))
}

/// Nouns ending in "ly", told from the adverbs that do ("make one dynamically").
const LY_NOUNS: WordList = WordList(concat!(
    "family|assembly|supply|reply|anomaly|poly|ally|fly|belly|jelly|rally|monopoly|",
    "butterfly|italy",
));

/// Whether `w` reads as an adverb in "-ly": after "one" it is not the noun "one" determines
/// ("how do I make one dynamically?" points back; "one sidebar" does not).
fn is_adverb(w: &str) -> bool {
    w.len() > 4 && w.ends_with("ly") && !LY_NOUNS.contains(w)
}

/// Prepositions of place that are not stop words ("inside that folder": "that" is a determiner
/// there, not a relative pronoun after a noun).
const PLACE_PREPOSITIONS: WordList = WordList(concat!(
    "inside|within|onto|across|behind|beside|near|toward|towards|via|without|outside|",
    "underneath|below|above|beyond|throughout",
));

/// Nouns that "this" names the book by ("built on this framework", "in this book"), not the
/// conversation.
const THE_BOOK_ITSELF: WordList = WordList(concat!(
    "book|textbook|course|framework|library|project|site|website|documentation|docs|",
    "guide|tutorial|manual|tool",
));

/// Prepositions of where a thing goes: a pronoun after them ("spawn a robot into it") is the place,
/// not the thing the question names before it.
const INTO: WordList = WordList("into|onto|inside");

/// Prepositions among the stop words.
const PREPOSITIONS: WordList = WordList("in|into|on|for|from|with|to|of|at|through|under|over|by");

/// Words after an "it" that points at nothing: "is it possible to …", "is it ok to …", "how long
/// does it take …".
const EMPTY_IT_NEXT: WordList = WordList(concat!(
    "possible|ok|okay|worth|safe|necessary|normal|better|best|bad|good|fine|true|",
    "hard|easy|recommended|common|allowed|required|take|takes|matter",
));

/// Whether the question's first pointing word ("it", "that", "one" …) points back at the
/// conversation: unless the question names its own subject before it (two topic words, or one
/// written as a name: capitals or digits), as in "what is NITROS and why is it faster" or "how
/// close can a robot get to a person before it's uncomfortable". "Does it run on ROS 2 Humble?",
/// "How do I create one in Python?", "can I set a custom one?" point back, and so do "the same
/// thing" and a demonstrative after a preposition ("inside that folder") whatever comes before
/// them. (Any pointing word used to make a follow-up: 23–36 % of the five labelled books'
/// self-contained questions, asked second in a conversation, were searched with the previous
/// question's words glued on.)
fn points_back(question: &str) -> bool {
    let ws = words(question);
    let topic = |w: &&String| w.chars().count() > 1 && !is_stopword(w);
    let is_topic = |i: usize| ws.get(i).is_some_and(|w| topic(&w));
    let next_is = |i: usize, set: WordList| ws.get(i + 1).is_some_and(|w| set.contains(w));
    // Pointing words that point at nothing: "one sidebar", "the same paragraph" (a determiner
    // before a topic word), "a navbar that hides" (a relative clause after one), "is it possible
    // to", "how long does it take" (an "it" with no referent).
    let points_nowhere = |i: usize| match ws[i].as_str() {
        "one" | "same" => is_topic(i + 1) && !ws.get(i + 1).is_some_and(|w| is_adverb(w)),
        "that" => i > 0 && is_topic(i - 1) && !PLACE_PREPOSITIONS.contains(ws[i - 1].as_str()),
        "it" => {
            next_is(i, EMPTY_IT_NEXT)
                || (next_is(i, WordList("a")) && next_is(i + 1, WordList("good|bad")))
        }
        _ => false,
    };
    let Some(at) = (0..ws.len()).find(|&i| ANAPHORA.contains(ws[i].as_str()) && !points_nowhere(i))
    else {
        return false;
    };
    // "the command to run it", "a quick test to check it loads": a pronoun after "to" and a verb
    // cannot stand for the noun the infinitive describes, nor for the verb, so neither names its
    // subject (a noun before them still can: "take the config and write a script to check it").
    let infinitive = (at >= 2 && ws[at - 2] == "to").then(|| {
        let head = (0..at - 2).rev().find(|&i| is_topic(i));
        (at - 1, head)
    });
    // "the same thing", "the same way" (not "the same as …"): the same as something said before,
    // whatever the question names. "inside that folder", "in those files": a demonstrative after a
    // preposition points at a place or thing named before.
    let preposition = |i: usize| {
        i > 0
            && (PLACE_PREPOSITIONS.contains(ws[i - 1].as_str())
                || PREPOSITIONS.contains(ws[i - 1].as_str()))
    };
    if (ws[at] == "same" && !ws[at..].iter().any(|w| w == "as"))
        || (matches!(ws[at].as_str(), "this" | "that" | "these" | "those")
            && preposition(at)
            && is_topic(at + 1)
            && !next_is(at, THE_BOOK_ITSELF))
    {
        return true;
    }
    let before: Vec<&String> = ws[..at]
        .iter()
        .enumerate()
        .filter(|&(i, w)| {
            topic(&w) && infinitive.is_none_or(|(verb, head)| i != verb && Some(i) != head)
        })
        .map(|(_, w)| w)
        .collect();
    // A name: a capital past its first letter ("NITROS", "PhysX"), a digit ("Nav2", "g1"), or a
    // capital first letter anywhere but the question's first word. Read in the question's own case.
    let original: Vec<&str> = words_as_written(question).collect();
    let named = |w: &String| {
        original.iter().enumerate().any(|(i, orig)| {
            orig.to_lowercase() == **w
                && (orig.chars().skip(1).any(char::is_uppercase)
                    || orig.chars().any(|c| c.is_ascii_digit())
                    || (i > 0 && orig.chars().next().is_some_and(char::is_uppercase)))
        })
    };
    // "one" after a word that describes it ("a custom one", "a different one in dark mode") stands
    // for a thing named before: the describing word and a verb are not a subject of its own.
    let subject_words = if matches!(ws[at].as_str(), "one" | "ones") && at > 0 && is_topic(at - 1) {
        3
    } else {
        2
    };
    // "get my urdf humanoid into it", "load a world inside it": a pronoun right after "into" is
    // where the thing before it goes, not that thing, so only a name before it can be its referent
    // ("start Gazebo and spawn a robot into it").
    let goes_into_it =
        matches!(ws[at].as_str(), "it" | "them") && at > 0 && INTO.contains(ws[at - 1].as_str());
    !((!goes_into_it && before.len() >= subject_words) || before.iter().any(|w| named(w)))
}

/// What a question leans on to be understood, decided once per question so that its search
/// ([`standalone_query`], [`search_request`]) and the lines its answer does not show again
/// ([`crate::read::AlreadyRead`]) agree on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaning<'a> {
    /// A question about the passage the reader selected ("Ask about this"): the passage is its
    /// subject, whatever the conversation before.
    OnSelection {
        /// The selected passage.
        passage: &'a str,
        /// Whether the question says what it asks with topic words of its own
        /// ([`has_own_words`]): they lead the search, and the passage only names its subject.
        own_words: bool,
    },
    /// A follow-up ([`is_follow_up`]) of the conversation's last answered turn.
    OnLastTurn(&'a Turn),
    /// A question of its own.
    OnItself,
}

impl<'a> Leaning<'a> {
    /// What `question`, asked with `selection` selected after the answered turns `history`
    /// (oldest first), leans on.
    pub fn of(question: &str, selection: Option<&'a str>, history: &'a [Turn]) -> Leaning<'a> {
        match (selection, history.last()) {
            (Some(passage), _) => Leaning::OnSelection {
                passage,
                own_words: has_own_words(question),
            },
            (None, Some(last)) if is_follow_up(question) => Leaning::OnLastTurn(last),
            _ => Leaning::OnItself,
        }
    }
}

/// How many of the previous turn's topic words a follow-up borrows: enough to name the
/// conversation's subject, few enough that the follow-up's own words still choose the section
/// ("how do I check it before executing it?" after a question about prompting an LLM for a plan
/// must find the section on validating the plan, not the one on prompting). 12 before; chosen on
/// two books' labelled conversations (sample book, Docusaurus docs: 27 → 29 of 32 follow-ups with
/// their section in the top 5 with the encoder, 24 → 25 before it); no gain on the other three
/// (37 → 36 and 34 → 35 of 48; eval/conversations/, README).
const BORROWED_WORDS: usize = 4;

/// The same, for a follow-up with four topic words of its own or more ("can i change one of them
/// while the node is running without restarting it?"): it needs the conversation's subject, not
/// the previous question's details, which pulled it back to the previous answer's section. Of 2
/// and 3 (and 2 from three own words), the one value that found as many follow-ups as 4 on the
/// 80 labelled conversations; on the 50 held-out ones (`eval/conversations-heldout/`, seen when
/// choosing) 2 more found with the encoder.
const BORROWED_WORDS_BESIDE_OWN: usize = 3;

/// How many topic words of its own make a follow-up borrow [`BORROWED_WORDS_BESIDE_OWN`].
const MANY_OWN_WORDS: usize = 4;

/// How many of a selected passage's topic words the search for a question about it borrows when
/// the question names nothing itself ("Explain this", "why?").
const SELECTION_WORDS: usize = 24;

/// The same, for a question with two topic terms or more ("ok but without a master how do nodes
/// even find each other?"): the passage then only names its subject, and the question's words
/// lead, for the answer is mostly elsewhere (54 of the 60 cases of `eval/selections/`). Chosen
/// leave-one-book-out on those cases (of 24, 6, 4, 3 and 2; keys shown plus first quotes from gold,
/// both phases: 83 with 24, 100 held out); 2 did as well on them (103 on all five) but left the
/// passage's page out of more answers to generic questions. Such a search is never refused
/// (`SearchRequest::about_passage`): the book holds the passage. On the 50 cases written after the
/// choice (`eval/selections-heldout/`), 3 against 24: 60 against 47.
const SELECTION_WORDS_BESIDE_OWN: usize = 3;

/// Words that ask for the passage again in other words ("explain this in simpler terms", "in
/// plain English"), beside [`MORE_OF_THE_SAME`]: they name no subject of the question's own.
const REPHRASING: WordList = WordList("terms|words|plain|simple|easier|english|layman|laymans");

/// Whether a question about a selected passage says what it asks with topic words of its own
/// ("ok but without a master how do nodes even find each other?"), rather than only pointing at
/// the passage ("Explain this", "why?", "explain this in simpler terms").
fn has_own_words(question: &str) -> bool {
    let asks_again = |t: &String| {
        MORE_OF_THE_SAME
            .iter()
            .chain(REPHRASING.iter())
            .any(|w| crate::text::stem(w) == *t)
    };
    crate::text::terms(question)
        .iter()
        .filter(|t| !asks_again(t))
        .count()
        >= 2
}

/// The retrieval query for `question`: the question itself, plus the topic words of what it
/// leans on (the selected passage's, or the previous turn's for a follow-up). Stays within 1000
/// characters.
pub fn standalone_query(question: &str, leaning: Leaning<'_>) -> String {
    let mut query = question.trim().to_string();
    let own = content_words(question);
    let mut extra: Vec<String> = Vec::new();
    match leaning {
        Leaning::OnSelection { passage, own_words } => {
            // The selection is the subject of "Explain this": its topic words lead the query,
            // unless the question has topic words of its own, which then say what is asked
            // about it.
            let n = if own_words {
                SELECTION_WORDS_BESIDE_OWN
            } else {
                SELECTION_WORDS
            };
            extra.extend(content_words(passage).into_iter().take(n));
        }
        Leaning::OnLastTurn(prev) => {
            let mut prev_words = content_words(&prev.question);
            if prev_words.len() < 3 {
                // The answer's own words, not the excerpt answer's label ("no AI summary; the
                // most relevant passages, quoted"), which opens every excerpt answer.
                let answer = prev.answer.replace(crate::words::EXCERPT_LABEL, "");
                prev_words.extend(content_words(&answer).into_iter().take(6));
            }
            let n = if own.len() >= MANY_OWN_WORDS {
                BORROWED_WORDS_BESIDE_OWN
            } else {
                BORROWED_WORDS
            };
            extra.extend(prev_words.into_iter().take(n));
        }
        Leaning::OnItself => {}
    }
    for w in extra {
        if !own.contains(&w) && !query.to_lowercase().split_whitespace().any(|q| q == w) {
            query.push(' ');
            query.push_str(&w);
        }
    }
    crate::source::cut_at_word(&query, 1000)
        .trim_end_matches('…')
        .to_string()
}

/// Below this margin over the relevance threshold ([`Found::relevance_margin`]) a question of its
/// own, asked in a conversation, is answered only weakly by the book alone (its best source is
/// under the threshold; it passed the words test only): its words may lean on the conversation in
/// a way no rule of [`is_follow_up`] reads ("where do i put the key so it sticks across terminals"
/// after a question about the Whisper API's cost).
const WEAK_ALONE: f32 = 0.0;

/// What a question is searched as, and what that search found.
#[derive(Debug, Clone)]
pub struct Searched<'a> {
    /// What the question was read to lean on.
    pub leaning: Leaning<'a>,
    /// Its stand-alone query ([`standalone_query`]).
    pub query: String,
    /// What the search found.
    pub found: Found,
}

/// Searches `question`, asked with `selection` selected after the answered turns `history`, with
/// `search` (a stand-alone query and what it leans on, to what it finds). A question read as one
/// of its own that the book answers only weakly alone ([`WEAK_ALONE`], with the encoder: margins
/// before it are on another scale) is searched again leaning on the last turn, and answered so
/// when that answers it clearly ([`CLEAR_MARGIN`]) from another best source. A question the book
/// refuses alone is never answered from the conversation: an out-of-scope question asked second
/// would borrow the conversation's words and pass. One function for the widget and
/// `index-builder answer`.
pub fn search_in_conversation<'a>(
    question: &str,
    selection: Option<&'a str>,
    history: &'a [Turn],
    mut search: impl FnMut(&str, Leaning<'a>) -> Found,
) -> Searched<'a> {
    let leaning = Leaning::of(question, selection, history);
    let query = standalone_query(question, leaning);
    let found = search(&query, leaning);
    // The last turn, when the question is one of its own that the book answers only weakly alone.
    let weak_after = match (leaning, history.last()) {
        (Leaning::OnItself, Some(last))
            if found.vector.is_some()
                && !found.refused
                && found.relevance_margin() < WEAK_ALONE =>
        {
            Some(last)
        }
        _ => None,
    };
    if let Some(last) = weak_after {
        let on_last = Leaning::OnLastTurn(last);
        let leaning_query = standalone_query(question, on_last);
        let leaning_found = search(&leaning_query, on_last);
        let best = |f: &Found| f.sources.first().map(|s| s.chunk);
        // The same best source: the conversation changes nothing the answer is drawn from, only
        // what is linked beside it.
        if !leaning_found.refused
            && leaning_found.relevance_margin() >= CLEAR_MARGIN
            && best(&leaning_found) != best(&found)
        {
            return Searched {
                leaning: on_last,
                query: leaning_query,
                found: leaning_found,
            };
        }
    }
    Searched {
        leaning,
        query,
        found,
    }
}

/// The source whose page a follow-up's search favours, beside that source itself
/// ([`book_retrieval::SearchRequest::conversation_source_url`]): `previous_source`, the first source
/// the previous answer listed, when the question leans on that turn ([`Leaning::OnLastTurn`]);
/// `None` for a question of its own, or one about a selected passage (the passage is its subject).
pub fn conversation_source<'a>(
    leaning: Leaning<'_>,
    previous_source: Option<&'a str>,
) -> Option<&'a str> {
    previous_source.filter(|_| matches!(leaning, Leaning::OnLastTurn(_)))
}

/// The search for `question` (the reader's words), searched as `query` (its stand-alone form,
/// [`standalone_query`]): asked from the page at `page` (its sections get the current page's
/// boost), leaning on `leaning`, in a conversation whose last answer listed `previous_source`
/// first ([`conversation_source`]), and, when the reader clicked it as a follow-up, `offered_by`
/// the section that offered it. One request for the widget and `index-builder answer`, so both
/// search alike.
pub fn search_request<'a>(
    query: &'a str,
    question: &'a str,
    page: Option<&'a str>,
    leaning: Leaning<'_>,
    previous_source: Option<&'a str>,
    offered_by: Option<&'a str>,
) -> book_retrieval::SearchRequest<'a> {
    let mut req = book_retrieval::SearchRequest::new(query, None);
    req.k = book_retrieval::index::DEFAULT_K;
    // A question about a passage that has words of its own is about something the passage's
    // page may not hold (the answer is on another page in 37 of `eval/selections/`' 60 cases):
    // the passage's words already name its subject ([`standalone_query`]), so its page gets no
    // boost of its own.
    let asks_beyond_passage = matches!(
        leaning,
        Leaning::OnSelection {
            own_words: true,
            ..
        }
    );
    req.current_page_url = page.filter(|_| !asks_beyond_passage);
    req.conversation_source_url = conversation_source(leaning, previous_source);
    req.asked = Some(question);
    req.offered_by = offered_by;
    req.about_passage = matches!(leaning, Leaning::OnSelection { .. });
    req
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`standalone_query`] of `q` asked after `history` with `selection` selected.
    fn query(q: &str, history: &[Turn], selection: Option<&str>) -> String {
        standalone_query(q, Leaning::of(q, selection, history))
    }

    /// [`conversation_source`] of `q` asked after a turn about Isaac Sim with `selection` selected.
    fn source<'a>(q: &str, selection: Option<&str>, previous: Option<&'a str>) -> Option<&'a str> {
        let history = [turn("How do I install Isaac Sim?", "Use the launcher.")];
        conversation_source(Leaning::of(q, selection, &history), previous)
    }

    fn turn(q: &str, a: &str) -> Turn {
        Turn {
            question: q.into(),
            answer: a.into(),
        }
    }

    /// What a search finds: one source, chunk `chunk`, `margin` above a threshold of 0.4, refused
    /// or not, with the encoder (`vector`) or before it.
    fn found(chunk: u32, margin: f32, refused: bool, vector: bool) -> Found {
        Found {
            sources: vec![crate::source::Source {
                chunk,
                chapter: "Whisper".into(),
                section: None,
                parent: None,
                url: "/docs/whisper".into(),
                text: String::new(),
                score: 0.4 + margin,
                subsections: Vec::new(),
            }],
            refused,
            threshold: 0.4,
            vector: vector.then(|| vec![0.0; 4]),
            ..Found::default()
        }
    }

    /// [`search_in_conversation`] of a question of its own asked after one turn about the Whisper
    /// API, its search alone finding `alone` and leaning on that turn `leaning`: what it leans on
    /// in the end, and the queries searched.
    fn searched(alone: Found, leaning: Found) -> (bool, Vec<String>) {
        let history = [turn(
            "how much does the openai whisper api cost",
            "It costs $0.006 a minute.",
        )];
        let mut queries = Vec::new();
        let s = search_in_conversation(
            "where do i put the key so it sticks across terminals",
            None,
            &history,
            |q, l| {
                queries.push(q.to_string());
                match l {
                    Leaning::OnItself => alone.clone(),
                    _ => leaning.clone(),
                }
            },
        );
        let leans = matches!(s.leaning, Leaning::OnLastTurn(_));
        assert_eq!(
            Some(&s.query),
            queries.get(usize::from(leans)),
            "the query searched"
        );
        (leans, queries)
    }

    #[test]
    fn a_question_the_book_answers_weakly_alone_is_answered_from_the_conversation() {
        let (leans, queries) = searched(found(0, -0.05, false, true), found(1, 0.2, false, true));
        assert!(leans, "weak alone, clear in the conversation");
        assert_eq!(queries.len(), 2);
        assert!(queries[1].contains("whisper"), "{queries:?}");
        assert!(
            !searched(found(0, -0.05, false, true), found(1, 0.05, false, true)).0,
            "not clear"
        );
        assert!(
            !searched(found(0, -0.05, false, true), found(1, 0.2, true, true)).0,
            "refused"
        );
        assert!(
            !searched(found(0, -0.05, false, true), found(0, 0.2, false, true)).0,
            "the same best source: the answer alone is kept"
        );
        // Asked once: the book answers it alone, refuses it (an out-of-scope question asked
        // second stays refused), or the encoder has not loaded (margins on another scale).
        for alone in [
            found(0, 0.05, false, true),
            found(0, -0.3, true, true),
            found(0, -0.05, false, false),
        ] {
            assert_eq!(
                searched(alone, found(1, 0.3, false, true)),
                (
                    false,
                    vec!["where do i put the key so it sticks across terminals".to_string()]
                )
            );
        }
    }

    #[test]
    fn only_a_follow_up_favours_the_previous_answers_page() {
        let page = Some("/docs/isaac");
        assert_eq!(source("How do I install it?", None, page), page);
        assert_eq!(source("and for zsh?", None, page), page);
        assert_eq!(source("How do I launch Gazebo worlds?", None, page), None);
        assert_eq!(source("Explain this", Some("a passage"), page), None);
        assert_eq!(source("How do I install it?", None, None), None);
    }

    #[test]
    fn self_contained_question_is_unchanged() {
        let h = [turn("What is a ROS 2 node?", "A node is a process.")];
        assert_eq!(
            query("How do I launch Gazebo worlds?", &h, None),
            "How do I launch Gazebo worlds?"
        );
    }

    #[test]
    fn pronoun_follow_up_borrows_previous_topic() {
        let h = [turn("What is a ROS 2 node?", "A node is a process.")];
        let q = query("How do I create one in Python?", &h, None);
        assert!(q.starts_with("How do I create one in Python?"));
        assert!(q.contains("ros") && q.contains("node"), "{q}");
    }

    #[test]
    fn acknowledging_the_answer_goes_on_from_it() {
        for q in [
            "ok how do i set up the key on ubuntu?",
            "ok so what should i pick for velocity commands?",
            "Okay, where do the logs go?",
            "thanks! and on windows?",
        ] {
            assert!(is_follow_up(q), "{q}");
        }
        for q in [
            "okapi config for a humanoid arm",
            "pros and cons of keeping translations in git rather than a translation service",
            "How do quaternions represent rotation?",
        ] {
            assert!(!is_follow_up(q), "{q}");
        }
    }

    #[test]
    fn ending_on_then_or_on_a_pronoun_after_a_preposition_goes_on_from_the_answer() {
        for q in [
            "what should i use for cmd vel then?",
            "how long does transcription take on it",
            "how do i leave some routes out of it",
            "what do i change when bringing the urdf in for that",
        ] {
            assert!(is_follow_up(q), "{q}");
        }
        for q in [
            "what is xacro and why would I bother with it",
            "blog sidebar only lists 5 recent posts, want all of them",
            "start Gazebo and spawn a robot into it",
        ] {
            assert!(!is_follow_up(q), "{q}");
        }
    }

    #[test]
    fn elliptic_follow_up() {
        let h = [turn("How does Isaac Sim render scenes?", "With RTX.")];
        let q = query("What about physics?", &h, None);
        assert!(q.contains("isaac") && q.contains("physics"), "{q}");
        assert!(is_follow_up("Why?"));
        assert!(is_follow_up("why not?"));
        assert!(!is_follow_up("How do quaternions represent rotation?"));
        assert!(!is_follow_up("why does ros2 run say no executable found"));
        // An opener is a whole word, whatever follows it: "and, on windows?" as "and on windows?".
        for q in ["and, on windows?", "so... what about zsh", "more?"] {
            assert!(is_follow_up(q), "{q}");
        }
        for q in [
            "so-called digital twins in industrial robot simulation",
            "ordering of launch file arguments in ROS 2 launch files",
        ] {
            assert!(!is_follow_up(q), "{q}");
        }
        // A pointing word before the question's own topic, or with at most one topic word.
        for q in [
            "How do I install it?",
            "Does it run on ROS 2 Humble?",
            "Why is that slower than Gazebo?",
            "What are its limitations?",
            "How does it compare to Unity?",
            "Can you show an example of that?",
            "Which one should I use?",
            "Is this the same as a service?",
            "can I set a custom one?",
            "can I use a different one in dark mode?",
            "what's the command to run it?",
            "show me a quick test to check it loads",
            "what's the install command?",
            "show me what the output should look like",
            "can my code run inside that folder so files i write land there?",
            "do regular docs pages support the same thing?",
            "can I group a few of those links under a dropdown?",
            "how do i get my urdf humanoid into it?",
        ] {
            assert!(is_follow_up(q), "{q}");
        }
        // A pointing word after the question's own subject points inside the question.
        for q in [
            "what is NITROS and why is it faster",
            "how close can a robot get to a person before it's uncomfortable",
            "depth camera noise gets worse further away, how do I simulate that",
            "there are three mugs and the user says 'the mug', what should the robot do",
            "how much does a unitree g1 cost and where can I buy one",
            "opening one sidebar group should automatically close its siblings",
            "reuse the same paragraph of markdown in several docs",
            "css that only applies in dark mode",
            "Is it possible to stop readers from collapsing a section of the sidebar?",
            "is it a good idea to make 'walk to the kitchen' a service call?",
            "how long does it take from speaking to the robot reacting",
            "initialize with an absolute path to my config folder instead of a relative one",
            "alegro or shadow, which one should a lab buy",
            "load the yaml config and write a script to validate it",
            "what's the install command for the optuna sweeper?",
            "show me the output of ros2 topic list",
            "is there a list of open source repos built on this framework?",
            "does the python api work the same way as the cli?",
            "start Gazebo and spawn a robot into it",
            "pip install my app so the yaml files ship with it",
        ] {
            assert!(!is_follow_up(q), "{q}");
        }
        // A relation to the conversation's subject ("alternatives", "pros and cons") with no
        // complement, and "one" before an adverb.
        for q in [
            "any alternatives I could host myself?",
            "pros and cons?",
            "what are the advantages and disadvantages here",
            "can I make one dynamically from a react component instead of a code block?",
        ] {
            assert!(is_follow_up(q), "{q}");
        }
        for q in [
            "what are the alternatives to Gazebo for humanoid simulation",
            "pros and cons of simulating in Isaac Sim",
            "difference between a topic and a service",
            "limitations of the zero moment point model",
            "one family of controllers for walking robots",
        ] {
            assert!(!is_follow_up(q), "{q}");
        }
        // One topic word: a follow-up when it asks for more, not when it names the subject.
        assert!(is_follow_up("Show the code"));
        assert!(is_follow_up("Any alternatives?"));
        assert!(is_follow_up("in C++?"));
        assert!(!is_follow_up("What is URDF?"));
        assert!(!is_follow_up("What is a quaternion?"));
        let q = query("What is URDF?", &h, None);
        assert_eq!(q, "What is URDF?");
        let q = query("why does ros2 run say no executable found", &h, None);
        assert_eq!(q, "why does ros2 run say no executable found");
    }

    #[test]
    fn labelled_questions_asked_second_stand_on_their_own() {
        // The five books' labelled questions are self-contained, written to be asked alone; asked
        // second in a conversation, each must still be searched alone (the previous question's
        // words added to it moved Docusaurus docs section R@1 0.710 → 0.626).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../eval");
        let mut books = 0;
        for entry in std::fs::read_dir(&dir).expect("eval/ is in the repository") {
            let path = entry.expect("readable").path();
            if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("readable");
            let questions: Vec<String> = text
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter_map(|v| v["question"].as_str().map(str::to_string))
                .collect();
            let misread: Vec<&String> = questions.iter().filter(|q| is_follow_up(q)).collect();
            assert!(
                misread.len() as f32 <= 0.02 * questions.len() as f32,
                "{}: {} of {} read as follow-ups: {misread:?}",
                path.display(),
                misread.len(),
                questions.len()
            );
            books += 1;
        }
        assert!(books >= 5, "labelled question files in {}", dir.display());
    }

    #[test]
    fn a_short_question_borrows_the_answer_words_not_the_excerpt_label() {
        let answer = format!(
            "{}\n\n> A URDF file describes a robot's links and joints in XML. [1]",
            crate::words::EXCERPT_LABEL
        );
        let h = [turn("what's urdf?", &answer)];
        let q = query("how do I check one for errors?", &h, None);
        assert!(q.contains("urdf"), "{q}");
        for label_word in ["excerpts", "summary", "relevant", "passages", "quoted"] {
            assert!(!q.contains(label_word), "{q}");
        }
    }

    #[test]
    fn a_follow_up_borrows_few_words() {
        let h = [turn(
            "how should I prompt an llm so it gives me a plan my robot can actually run?",
            "Ask for JSON.",
        )];
        let q = query("how do I check it before executing it?", &h, None);
        let borrowed = q.trim_start_matches("how do I check it before executing it?");
        assert_eq!(borrowed.split_whitespace().count(), BORROWED_WORDS, "{q}");
        let own = "can i change one of them while the node is running without restarting it?";
        let q = query(own, &h, None);
        let borrowed = q.trim_start_matches(own);
        assert_eq!(
            borrowed.split_whitespace().count(),
            BORROWED_WORDS_BESIDE_OWN,
            "{q}"
        );
    }

    #[test]
    fn selection_drives_explain_this() {
        let q = query(
            "Explain this",
            &[],
            Some("The URDF file describes links and joints."),
        );
        assert!(q.contains("urdf") && q.contains("joints"), "{q}");
    }

    #[test]
    fn a_question_with_words_of_its_own_leads_the_search_about_a_selection() {
        let passage =
            "ROS 2 was redesigned around an industry standard, the Data Distribution Service \
                       (DDS), which removes the master entirely.";
        let q = query(
            "ok but without a master how do nodes find each other?",
            &[],
            Some(passage),
        );
        // The passage's first three topic words name the subject; the rest stay out.
        assert!(q.ends_with(" ros redesigned around"), "{q}");
        let generic = query("why?", &[], Some(passage));
        assert!(
            generic.contains("distribution") && generic.contains("entirely"),
            "{generic}"
        );
        // Asking for the passage in other words names nothing of its own either.
        for again in [
            "explain this in simpler terms",
            "can you say that in plain English?",
        ] {
            let q = query(again, &[], Some(passage));
            assert!(q.contains("distribution") && q.contains("entirely"), "{q}");
        }
        // Either way the search is about the passage, which the book holds: never refused.
        let about = Leaning::of("why?", Some(passage), &[]);
        assert!(search_request(&q, "why?", None, about, None, None).about_passage);
        let alone = Leaning::of("why?", None, &[]);
        assert!(!search_request(&q, "why?", None, alone, None, None).about_passage);
        // The passage's page is favoured only for a question that names nothing itself.
        let page = Some("/docs/ros2#dds");
        let generic = search_request(&q, "why?", page, about, None, None);
        assert_eq!(generic.current_page_url, page);
        let own = "ok but without a master how do nodes find each other?";
        let beyond = Leaning::of(own, Some(passage), &[]);
        assert_eq!(
            search_request(&q, own, page, beyond, None, None).current_page_url,
            None
        );
        let typed = Leaning::of(own, None, &[]);
        assert_eq!(
            search_request(&q, own, page, typed, None, None).current_page_url,
            page
        );
    }

    #[test]
    fn no_history_keeps_question() {
        assert_eq!(query("Why?", &[], None), "Why?");
    }

    #[test]
    fn query_is_bounded() {
        let long_sel = "distinctword ".repeat(200);
        let q = query(&"x".repeat(990), &[], Some(&long_sel));
        assert!(q.chars().count() <= 1000);
    }
}
