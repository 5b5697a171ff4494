//! The node's clock: the one place ferrex reads the time.

use std::time::{SystemTime, UNIX_EPOCH};

use ferrex_core::Timestamp;

/// Now, in milliseconds since the Unix epoch.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_has_milliseconds_and_utc() {
        let time = Timestamp(1_700_000_000_123);
        assert_eq!(iso(time), "2023-11-14T22:13:20.123Z");
    }
}
