//! Limits shared by the widget (which enforces them on input) and the proxy (which rejects anything
//! beyond them). Question and selection bounds come from the seed data models (1–1000 characters).

/// Longest question accepted, in characters (Unicode scalar values).
pub const MAX_QUESTION_CHARS: usize = 1000;
/// Longest selection quoted, in characters; the widget cuts longer ones with a notice.
pub const MAX_SELECTION_CHARS: usize = 1000;
/// Upper bound for the whole prompt, in estimated tokens.
pub const CONTEXT_BUDGET_TOKENS: usize = 4000;
/// How many earlier question/answer pairs are sent at most.
pub const MAX_HISTORY_TURNS: usize = 3;
/// Longest earlier answer sent back, in characters (the widget cuts at a word and adds "…").
pub const HISTORY_ANSWER_CHARS: usize = 600;
/// Longest `session_id`, in characters.
pub const MAX_SESSION_ID_CHARS: usize = 128;
/// Longest page title quoted with a selection, in characters.
pub const MAX_PAGE_TITLE_CHARS: usize = 1000;
