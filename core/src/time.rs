//! Timestamps: milliseconds since the Unix epoch, always passed in, never read.

use std::fmt;

/// A point in time in milliseconds since 1970-01-01T00:00:00Z (UTC).
///
/// ferrex-core never reads the clock: callers pass `now` in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub i64);

/// Milliseconds in one day.
pub const DAY_MILLIS: i64 = 86_400_000;

impl Timestamp {
    /// Milliseconds since the epoch.
    pub fn millis(self) -> i64 {
        self.0
    }

    /// Days from `earlier` to `self` (negative if `earlier` is later), as a float.
    pub fn days_since(self, earlier: Timestamp) -> f64 {
        (self.0 - earlier.0) as f64 / DAY_MILLIS as f64
    }

    /// This time moved by `days` (may be negative).
    pub fn plus_days(self, days: f64) -> Timestamp {
        Timestamp(self.0 + (days * DAY_MILLIS as f64) as i64)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}ms", self.0)
    }
}
