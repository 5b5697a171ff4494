//! Watching the watched folders while the node runs: a notify watcher with
//! its debouncer queues the paths that changed for the file worker
//! (`engine/files.rs`), which reconciles every folder first.

use std::{
    sync::{Arc, atomic::AtomicBool},
    thread::JoinHandle,
    time::Duration,
};

use notify_debouncer_full::{
    DebounceEventResult, Debouncer, RecommendedCache, new_debouncer,
    notify::{RecommendedWatcher, RecursiveMode},
};

use crate::base::{config::Config, home::Home};
use ferrex_engine::engine::{Engine, lock};

/// How long a path stays quiet before its events are handed on: a save
/// is a burst of events, a checkout a longer one.
const DEBOUNCE: Duration = Duration::from_millis(300);

/// The watcher and the file worker of a running node.
pub struct Watching {
    debouncer: Arc<std::sync::Mutex<Option<Debouncer<RecommendedWatcher, RecommendedCache>>>>,
    worker: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Watching {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Watching").finish_non_exhaustive()
    }
}

/// Starts watching the folders of `config` and of `home`'s
/// `watched.json`, and the file worker, which stops with `stop`.
pub fn start(
    engine: &Arc<Engine>,
    config: &Config,
    home: &Home,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<Watching> {
    let files_engine = engine.clone();
    let debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
        let files = files_engine.files();
        match result {
            Ok(events) => {
                for event in events {
                    // Reading a file or listing a folder is an access event:
                    // the worker's own reads would queue their paths again.
                    if event.kind.is_access() {
                        continue;
                    }
                    if event.need_rescan() {
                        files.rescan();
                        continue;
                    }
                    for path in &event.paths {
                        files.changed(path.clone());
                    }
                }
            }
            Err(errors) => {
                for error in errors {
                    tracing::warn!("watching files: {error}");
                }
                // Events may have been lost: look at everything again.
                files.rescan();
            }
        }
    })?;
    let debouncer = Arc::new(std::sync::Mutex::new(Some(debouncer)));
    {
        let debouncer = debouncer.clone();
        // Each folder is watched on its own (not recursively), so that the
        // folders never read (`target`, `node_modules`) are not watched either.
        engine.files().set_watcher(Box::new(move |folder| {
            if let Some(debouncer) = lock(&debouncer).as_mut() {
                debouncer.watch(folder, RecursiveMode::NonRecursive)?;
            }
            Ok(())
        }));
    }
    engine.files().configure(&config.watches, home.watched_file())?;
    let worker = {
        let engine = engine.clone();
        std::thread::Builder::new()
            .name("ferrex-files".into())
            .spawn(move || engine.run_file_worker(&stop))?
    };
    Ok(Watching { debouncer, worker: Some(worker) })
}

impl Watching {
    /// Stops the watcher and waits for the worker (its `stop` is set).
    pub fn close(&mut self) {
        if let Some(debouncer) = lock(&self.debouncer).take() {
            debouncer.stop_nonblocking();
        }
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}
