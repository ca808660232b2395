//! Pacing requests to a remote API: a token bucket for requests per second and input
//! tokens per minute, and exponential backoff with jitter for retries.

use std::time::{Duration, Instant};

/// Longest wait for a request's turn. A batch larger than a minute's allowance goes after a
/// minute (the server's 429s pace the rest); the index lock is held all the while.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// A token bucket: `rate` units per second, holding at most `burst`.
#[derive(Debug)]
pub struct Bucket {
    rate: f64,
    burst: f64,
    level: f64,
    at: Instant,
}

impl Bucket {
    /// A full bucket refilling at `rate` per second, holding at most `burst`.
    pub fn new(rate: f64, burst: f64) -> Bucket {
        Bucket {
            rate,
            burst,
            level: burst,
            at: Instant::now(),
        }
    }

    /// How long to wait before `amount` can be taken; takes it (going into debt for
    /// amounts larger than the burst, so huge batches still pass, just later).
    pub fn take(&mut self, amount: f64) -> Duration {
        let now = Instant::now();
        self.level =
            (self.level + now.duration_since(self.at).as_secs_f64() * self.rate).min(self.burst);
        self.at = now;
        self.level -= amount;
        if self.level >= 0.0 {
            Duration::ZERO
        } else {
            // A wait too long for a `Duration` (a rate of `1e-300`) is as long as any.
            Duration::try_from_secs_f64(-self.level / self.rate)
                .unwrap_or(MAX_WAIT)
                .min(MAX_WAIT)
        }
    }
}

/// The delay before retry number `attempt` (0-based): base × 2^attempt, capped at `max`,
/// with "full jitter" (uniform in [delay/2, delay]) so clients do not retry in lockstep.
pub fn backoff(attempt: u32, base: Duration, max: Duration) -> Duration {
    let exp = base.saturating_mul(1u32 << attempt.min(20));
    let capped = exp.min(max);
    let half = capped / 2;
    half + half.mul_f64(jitter())
}

/// A number in [0, 1) that differs between calls and processes (no RNG crate needed).
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(Instant::now().elapsed().as_nanos());
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_is_capped_and_jittered() {
        let base = Duration::from_secs(1);
        let max = Duration::from_secs(60);
        for attempt in 0..8 {
            let d = backoff(attempt, base, max);
            let full = base.saturating_mul(1 << attempt).min(max);
            assert!(d >= full / 2 && d <= full, "attempt {attempt}: {d:?}");
        }
        assert!(backoff(30, base, max) <= max);
    }

    #[test]
    fn bucket_allows_the_burst_then_paces() {
        let mut b = Bucket::new(10.0, 2.0);
        assert_eq!(b.take(1.0), Duration::ZERO);
        assert_eq!(b.take(1.0), Duration::ZERO);
        let wait = b.take(1.0);
        assert!(
            wait > Duration::from_millis(50) && wait <= Duration::from_millis(100),
            "{wait:?}"
        );
    }

    #[test]
    fn a_rate_too_small_to_wait_for_never_panics_or_waits_long() {
        let mut b = Bucket::new(1e-300 / 60.0, 1e-300);
        let wait = b.take(5000.0);
        assert!(wait <= Duration::from_secs(60), "{wait:?}");
        let mut b = Bucket::new(f64::MIN_POSITIVE, 1.0);
        assert!(b.take(2.0) <= Duration::from_secs(60));
    }
}
