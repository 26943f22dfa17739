//! The engine's one error: bad input, naming the field of the request it came from.

use std::fmt;

/// Bad input: `field` is the path in the request (`network.classes[1].bytes`, `options.ios`).
#[derive(Debug, Clone, PartialEq)]
pub struct SimError {
    pub field: String,
    pub message: String,
}

impl SimError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        SimError { field: field.into(), message: message.into() }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for SimError {}
