//! The process-wide ONNX Runtime environment.
//!
//! ONNX Runtime allows one environment per process, and the `ort` crate loads
//! its shared library once. This module owns both: the first embedder built in
//! a process loads the library and creates the environment; later ones share it.

use std::{
    path::Path,
    sync::{Mutex, PoisonError},
};

use ort::environment::Environment;

use crate::LoadError;

static ENVIRONMENT: Mutex<Option<Environment>> = Mutex::new(None);

/// The process's ONNX Runtime environment, loading the runtime library at
/// `library` on first use. Later calls return the same environment whatever
/// path they pass.
pub fn environment(library: &Path) -> Result<Environment, LoadError> {
    let mut slot = ENVIRONMENT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(environment) = slot.as_ref() {
        return Ok(environment.clone());
    }
    let runtime_error = |message: String| LoadError::Runtime { path: library.to_owned(), message };
    let environment = ort::init_from(library)
        .map_err(|error| runtime_error(error.to_string()))?
        .with_name("ferrex")
        // Microsoft's builds of ONNX Runtime (the PyPI wheel's library)
        // send usage telemetry, on Linux too: nothing leaves the machine.
        .with_telemetry(false)
        .build()
        .map_err(|error| runtime_error(error.to_string()))?;
    *slot = Some(environment.clone());
    Ok(environment)
}

/// The CPU execution provider without ONNX Runtime's memory arena. The arena
/// keeps the largest buffers any inference ever needed (a batch of long
/// passages) for the life of the session; without it each inference's
/// buffers go back to malloc, which the node trims when idle.
pub fn cpu_without_arena() -> ort::ep::ExecutionProviderDispatch {
    ort::ep::CPU::default().with_arena_allocator(false).build()
}
