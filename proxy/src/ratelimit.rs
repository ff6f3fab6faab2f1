//! Per-client token buckets keyed by IP address (governor's GCRA, so no hand-written
//! bucket arithmetic).

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::RateLimit;

/// One bucket per client IP: `capacity` requests at once, refilled at `per_minute`.
#[derive(Debug)]
pub struct ClientLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
}

impl ClientLimiter {
    /// A limiter for the configured rates (zeros are raised to one).
    pub fn new(cfg: RateLimit) -> Self {
        let per_minute = NonZeroU32::new(cfg.per_minute).unwrap_or(NonZeroU32::MIN);
        let capacity = NonZeroU32::new(cfg.capacity).unwrap_or(NonZeroU32::MIN);
        Self {
            limiter: RateLimiter::keyed(Quota::per_minute(per_minute).allow_burst(capacity)),
            clock: DefaultClock::default(),
        }
    }

    /// Takes one token for `ip`; `Err(seconds)` says how long until one is available.
    pub fn check(&self, ip: IpAddr) -> Result<(), u64> {
        self.limiter.check_key(&ip).map_err(|not_until| {
            let wait = not_until.wait_time_from(self.clock.now());
            // Round up so a client that waits Retry-After seconds is let through.
            (wait.as_millis().div_ceil(1000) as u64).max(1)
        })
    }

    /// Forgets clients whose buckets are full again (keeps memory bounded).
    pub fn prune(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_limited_per_ip() {
        let l = ClientLimiter::new(RateLimit {
            capacity: 3,
            per_minute: 1,
        });
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let b: IpAddr = "127.0.0.2".parse().unwrap();
        for _ in 0..3 {
            assert!(l.check(a).is_ok());
        }
        let wait = l.check(a).unwrap_err();
        assert!((1..=60).contains(&wait), "{wait}");
        assert!(l.check(b).is_ok(), "another client has its own bucket");
    }
}
