//! The operator's global budget: requests and upstream tokens per minute and per day, over all
//! clients. Fixed windows (the current UTC minute and day): simple to explain in `Retry-After`
//! and in health. A spent per-minute budget is 429, a spent daily one 503; both say when to retry.
//!
//! Tokens come from the upstream's streamed `usage` (asked for with `stream_options`), or are
//! estimated (about four characters per token) when it sends none.

use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

/// Limits; `None` is unlimited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BudgetConfig {
    /// Chat requests per minute.
    pub requests_per_minute: Option<u64>,
    /// Chat requests per day.
    pub requests_per_day: Option<u64>,
    /// Upstream tokens per minute.
    pub tokens_per_minute: Option<u64>,
    /// Upstream tokens per day.
    pub tokens_per_day: Option<u64>,
}

/// Which budget is spent and when it refills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exhausted {
    /// "request" or "token", per "minute" or "day".
    pub what: &'static str,
    /// Whether it is a daily budget (503) rather than a per-minute one (429).
    pub daily: bool,
    /// Seconds until the window ends.
    pub retry_after: u64,
}

#[derive(Debug, Default, Clone, Copy, Serialize)]
struct Counts {
    minute: u64,
    day: u64,
    requests_minute: u64,
    requests_day: u64,
    tokens_minute: u64,
    tokens_day: u64,
}

/// The shared counters.
#[derive(Debug, Default)]
pub struct Budget {
    cfg: BudgetConfig,
    counts: Mutex<Counts>,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Budget {
    /// A budget with `cfg`'s limits.
    pub fn new(cfg: BudgetConfig) -> Self {
        Self {
            cfg,
            counts: Mutex::new(Counts::default()),
        }
    }

    fn counts_at(&self, now: u64) -> std::sync::MutexGuard<'_, Counts> {
        let mut c = match self.counts.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let (minute, day) = (now / 60, now / 86_400);
        if c.minute != minute {
            c.minute = minute;
            c.requests_minute = 0;
            c.tokens_minute = 0;
        }
        if c.day != day {
            c.day = day;
            c.requests_day = 0;
            c.tokens_day = 0;
        }
        c
    }

    /// Counts one request if every budget has room.
    pub fn admit(&self) -> Result<(), Exhausted> {
        self.admit_at(now_secs())
    }

    /// [`Budget::admit`] at `now` (unix seconds).
    pub fn admit_at(&self, now: u64) -> Result<(), Exhausted> {
        let mut c = self.counts_at(now);
        let to_minute = 60 - now % 60;
        let to_day = 86_400 - now % 86_400;
        let over = |used: u64, limit: Option<u64>| limit.is_some_and(|l| used >= l);
        let checks = [
            (
                over(c.requests_day, self.cfg.requests_per_day),
                "daily request",
                true,
                to_day,
            ),
            (
                over(c.tokens_day, self.cfg.tokens_per_day),
                "daily token",
                true,
                to_day,
            ),
            (
                over(c.requests_minute, self.cfg.requests_per_minute),
                "per-minute request",
                false,
                to_minute,
            ),
            (
                over(c.tokens_minute, self.cfg.tokens_per_minute),
                "per-minute token",
                false,
                to_minute,
            ),
        ];
        if let Some(&(_, what, daily, retry_after)) = checks.iter().find(|c| c.0) {
            return Err(Exhausted {
                what,
                daily,
                retry_after,
            });
        }
        c.requests_minute += 1;
        c.requests_day += 1;
        Ok(())
    }

    /// Adds tokens an answer used.
    pub fn add_tokens(&self, tokens: u64) {
        self.add_tokens_at(now_secs(), tokens)
    }

    /// [`Budget::add_tokens`] at `now`.
    pub fn add_tokens_at(&self, now: u64, tokens: u64) {
        let mut c = self.counts_at(now);
        c.tokens_minute += tokens;
        c.tokens_day += tokens;
    }

    /// What health reports: limits, use in the current windows, and whether chats are refused.
    pub fn status(&self) -> serde_json::Value {
        let now = now_secs();
        let exhausted = {
            let c = self.counts_at(now);
            let over = |used: u64, limit: Option<u64>| limit.is_some_and(|l| used >= l);
            over(c.requests_day, self.cfg.requests_per_day)
                || over(c.tokens_day, self.cfg.tokens_per_day)
                || over(c.requests_minute, self.cfg.requests_per_minute)
                || over(c.tokens_minute, self.cfg.tokens_per_minute)
        };
        let c = *self.counts_at(now);
        serde_json::json!({
            "exhausted": exhausted,
            "requests": {"minute": c.requests_minute, "day": c.requests_day,
                          "per_minute": self.cfg.requests_per_minute, "per_day": self.cfg.requests_per_day},
            "tokens": {"minute": c.tokens_minute, "day": c.tokens_day,
                        "per_minute": self.cfg.tokens_per_minute, "per_day": self.cfg.tokens_per_day},
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_minute_then_daily() {
        let b = Budget::new(BudgetConfig {
            requests_per_minute: Some(2),
            requests_per_day: Some(3),
            ..BudgetConfig::default()
        });
        let t = 86_400 * 100 + 30;
        assert!(b.admit_at(t).is_ok());
        assert!(b.admit_at(t + 1).is_ok());
        let e = b.admit_at(t + 2).unwrap_err();
        assert!(!e.daily);
        assert_eq!(e.retry_after, 28);
        assert!(b.admit_at(t + 31).is_ok(), "next minute");
        let e = b.admit_at(t + 40).unwrap_err();
        assert!(e.daily && e.what.contains("daily"));
        assert!(b.admit_at(t + 86_400).is_ok(), "next day");
    }

    #[test]
    fn tokens_count_after_the_answer() {
        let b = Budget::new(BudgetConfig {
            tokens_per_minute: Some(100),
            ..BudgetConfig::default()
        });
        let t = 600;
        assert!(b.admit_at(t).is_ok());
        b.add_tokens_at(t, 150);
        assert_eq!(b.admit_at(t + 1).unwrap_err().what, "per-minute token");
        assert!(b.admit_at(t + 60).is_ok());
    }
}
