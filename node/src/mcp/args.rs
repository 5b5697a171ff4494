//! Reading tool arguments: JSON in, typed values out, and an error that
//! names the parameter for anything else.

use ferrex_core::FieldError;
use serde_json::{Map, Value};

/// The arguments of one tool call.
pub struct Args {
    map: Map<String, Value>,
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Args {
    /// Wraps the arguments, refusing parameters not in `known`.
    pub fn new(map: Map<String, Value>, known: &[&str]) -> Result<Args, FieldError> {
        if let Some(unknown) = map.keys().find(|key| !known.contains(&key.as_str())) {
            return Err(FieldError::new(
                unknown.as_str(),
                format!(
                    "is not a parameter of this tool; its parameters are: {}",
                    known.join(", ")
                ),
            ));
        }
        Ok(Args { map })
    }

    /// A value that is present and not null.
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|value| !value.is_null())
    }

    /// An optional string.
    pub fn string(&self, key: &str) -> Result<Option<String>, FieldError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => {
                Err(FieldError::new(key, format!("must be a string, not {}", type_name(other))))
            }
        }
    }

    /// A required string.
    pub fn required_string(&self, key: &str) -> Result<String, FieldError> {
        self.string(key)?.ok_or_else(|| FieldError::new(key, "is missing"))
    }

    /// An optional number.
    pub fn number(&self, key: &str) -> Result<Option<f64>, FieldError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::Number(number)) => number
                .as_f64()
                .map(Some)
                .ok_or_else(|| FieldError::new(key, "must be a finite number")),
            Some(other) => {
                Err(FieldError::new(key, format!("must be a number, not {}", type_name(other))))
            }
        }
    }

    /// An optional whole number.
    pub fn integer(&self, key: &str) -> Result<Option<i64>, FieldError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::Number(number)) => match number.as_i64() {
                Some(value) => Ok(Some(value)),
                None => match number.as_f64() {
                    Some(value) if value.fract() == 0.0 && value.abs() < 1e15 => {
                        Ok(Some(value as i64))
                    }
                    _ => Err(FieldError::new(key, format!("must be a whole number, not {number}"))),
                },
            },
            Some(other) => Err(FieldError::new(
                key,
                format!("must be a whole number, not {}", type_name(other)),
            )),
        }
    }

    /// An optional boolean.
    pub fn boolean(&self, key: &str) -> Result<Option<bool>, FieldError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(other) => Err(FieldError::new(
                key,
                format!("must be true or false, not {}", type_name(other)),
            )),
        }
    }

    /// An optional JSON object.
    pub fn object(&self, key: &str) -> Result<Option<&Map<String, Value>>, FieldError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => {
                Err(FieldError::new(key, format!("must be an object, not {}", type_name(other))))
            }
        }
    }

    /// An optional list of strings (absent means empty).
    pub fn strings(&self, key: &str) -> Result<Vec<String>, FieldError> {
        match self.value(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(index, item)| match item {
                    Value::String(text) => Ok(text.clone()),
                    other => Err(FieldError::new(
                        format!("{key}[{index}]"),
                        format!("must be a string, not {}", type_name(other)),
                    )),
                })
                .collect(),
            Some(other) => Err(FieldError::new(
                key,
                format!("must be a list of strings, not {}", type_name(other)),
            )),
        }
    }
}
