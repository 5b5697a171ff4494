//! Namespaces: the names that partition memories.

use std::fmt;

use crate::FieldError;

/// A valid namespace name: 1 to 64 characters from `[A-Za-z0-9_.-]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Namespace(String);

impl Namespace {
    /// The namespace used when none is given.
    pub const DEFAULT: &'static str = "default";
    /// The longest name, in characters.
    pub const MAX_CHARS: usize = 64;
    /// The rule `parse` applies, as a JSON-schema pattern (for the tools'
    /// schemas; `parse` itself does not use regular expressions).
    pub const PATTERN: &'static str = "^[A-Za-z0-9_.-]{1,64}$";

    /// Checks `name`; the error names the `namespace` field and says why.
    pub fn parse(name: &str) -> Result<Namespace, FieldError> {
        if name.is_empty() {
            return Err(FieldError::new("namespace", "must not be empty"));
        }
        if name.len() > Self::MAX_CHARS {
            return Err(FieldError::new(
                "namespace",
                format!(
                    "is {} characters long; at most {} are allowed",
                    name.chars().count(),
                    Self::MAX_CHARS
                ),
            ));
        }
        if let Some(bad) =
            name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
        {
            return Err(FieldError::new(
                "namespace",
                format!("contains {bad:?}; only letters, digits, '_', '.' and '-' are allowed"),
            ));
        }
        Ok(Namespace(name.to_owned()))
    }

    /// The `default` namespace.
    pub fn default_namespace() -> Namespace {
        Namespace(Self::DEFAULT.to_owned())
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Namespace {
    fn default() -> Self {
        Namespace::default_namespace()
    }
}

impl fmt::Display for Namespace {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, ok: bool) {
        assert_eq!(Namespace::parse(name).is_ok(), ok, "{name:?}");
    }

    #[test]
    fn namespace_rules() {
        check("default", true);
        check("proj-1.x_y", true);
        check(&"a".repeat(64), true);
        check(&"a".repeat(65), false);
        check("", false);
        check("has space", false);
        check("slash/y", false);
        check("ünï", false);
        check("..", true);
    }

    #[test]
    fn the_schema_pattern_states_the_same_length() {
        let bounds = format!("{{1,{}}}", Namespace::MAX_CHARS);
        assert!(Namespace::PATTERN.contains(&bounds), "{}", Namespace::PATTERN);
    }

    #[test]
    fn errors_name_the_field_and_the_reason() {
        let error = Namespace::parse("a b").unwrap_err();
        assert_eq!(error.field, "namespace");
        assert!(error.to_string().contains("' '"), "{error}");
    }
}
