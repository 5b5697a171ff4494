//! What the engine stands on: its settings ([`config`]), the one clock
//! ([`clock`]), the poison-ignoring lock ([`lock`]), and how an error is
//! told with its causes ([`with_causes`]).

pub mod clock;
pub mod config;
pub mod lock;

/// `error` and every cause under it, as a person reads them:
/// `opening x: file is not a database` (what `anyhow` prints with `{:#}`,
/// for the errors of a library that does not use it).
pub fn with_causes(error: &dyn std::error::Error) -> String {
    let mut told = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        told.push_str(": ");
        told.push_str(&next.to_string());
        cause = next.source();
    }
    told
}

#[cfg(test)]
mod tests {
    #[test]
    fn causes_are_told_in_order() {
        let error = super::config::absolute_path("notes").unwrap_err();
        let within = super::config::ConfigError::In {
            place: "in the --watch flag".into(),
            source: Box::new(error),
        };
        assert_eq!(
            super::with_causes(&within),
            "in the --watch flag: \"notes\" is relative: give an absolute path (or one starting with ~/)"
        );
    }
}
