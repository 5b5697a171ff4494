//! The node's clock: the one place ferrex reads the time, and the
//! [`Clock`] the engine is given.

use std::time::{SystemTime, UNIX_EPOCH};

use ferrex_core::Timestamp;

/// Where the engine reads the time: the system's in a node, one set by
/// hand in tests, so that staleness, expiry, ordering and recency are tested
/// without waiting for them.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Now.
    fn now(&self) -> Timestamp;
}

/// The system's clock ([`now`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        now()
    }
}

/// A clock that moves only when told to.
#[derive(Debug)]
pub struct ManualClock(std::sync::atomic::AtomicI64);

impl ManualClock {
    /// A clock showing `at`.
    pub fn new(at: Timestamp) -> ManualClock {
        ManualClock(std::sync::atomic::AtomicI64::new(at.0))
    }

    /// Moves the clock on by `by`.
    pub fn advance(&self, by: std::time::Duration) {
        let millis = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.0.fetch_add(millis, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.load(std::sync::atomic::Ordering::SeqCst))
    }
}

/// Now by the system's clock, in milliseconds since the Unix epoch: for
/// what is not the engine's (the binary's commands and logs); the engine
/// reads its [`Clock`].
pub fn now() -> Timestamp {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as i64)
        .unwrap_or(0);
    Timestamp(millis)
}

/// A timestamp as ISO-8601 / RFC 3339 text in UTC with milliseconds.
pub fn iso(time: Timestamp) -> String {
    chrono::DateTime::from_timestamp_millis(time.0)
        .map(|time| time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_else(|| time.0.to_string())
}

/// Parses an ISO-8601 / RFC 3339 time (`2026-11-23T09:30:00Z`, with an
/// offset, or without one as UTC) or date (`2026-11-23`, midnight UTC).
pub fn parse(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(time) = chrono::DateTime::parse_from_rfc3339(text) {
        return Some(Timestamp(time.timestamp_millis()));
    }
    if let Ok(time) = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f") {
        return Some(Timestamp(time.and_utc().timestamp_millis()));
    }
    let date = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    Some(Timestamp(date.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_dates_parse() {
        let time = Timestamp(1_700_000_000_123);
        assert_eq!(parse(&iso(time)), Some(time));
        assert_eq!(parse("2023-11-14T23:13:20.123+01:00"), Some(time));
        assert_eq!(parse("2023-11-14T22:13:20.123"), Some(time));
        assert_eq!(parse("1970-01-02"), Some(Timestamp(86_400_000)));
        for bad in ["", "yesterday", "2023-13-01", "2023-11-14 22:13"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn iso_has_milliseconds_and_utc() {
        let time = Timestamp(1_700_000_000_123);
        assert_eq!(iso(time), "2023-11-14T22:13:20.123Z");
    }
}
