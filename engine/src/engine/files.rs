//! Files as memory: the watched folders of this device, read into chunks
//! that recall ranks with memories.
//!
//! A watched folder's Markdown is split at its headings and its config
//! files (JSON, YAML, TOML) are read whole (`ferrex_core::chunk`). At
//! start every folder is reconciled with the index by modification time,
//! size and content hash; while the node runs, the watcher (started in
//! `lifecycle/node.rs`) queues the paths that changed and the file worker
//! reads them again: only a changed file's chunks are written, a deleted
//! file's are dropped, and a moved file's chunks take their vectors along.
//!
//! A folder's chunks are this device's own unless it is shared: then they
//! are memories of the namespace's documents, written by this device,
//! synced to the others and forgotten everywhere when the file changes or
//! goes. A burst of events (a checkout touching thousands of files) is
//! coalesced into a set of paths; past [`MAX_QUEUED_PATHS`] the set is
//! dropped for one reconciliation of every folder, so the queue's memory
//! is bounded.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet},
    path::{Path, PathBuf},
    sync::{
        Arc, Condvar, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant, UNIX_EPOCH},
};

use ferrex_core::{
    FieldError, MemoryKind, Namespace, Timestamp,
    chunk::{self, Chunk, FILE_SOURCE, FILE_TAG, FileKind},
};
use ferrex_sync::{NewMemory, NewRecords};
use globset::{Glob, GlobSet, GlobSetBuilder};
use sha2::{Digest, Sha256};

use super::{Engine, EngineResult, ToolError, lock};
use crate::{
    base::config::Watch,
    derived::index::{
        Derived, MemoryRow, Vectors, chunk_hash,
        files::{FileCounts, FileRecord, LOCAL_DOC},
    },
    derived::indexer::{self, KnownVectors},
};

/// Folders never read, wherever they are.
pub const NEVER_READ: [&str; 6] = [".git", "node_modules", "target", "vendor", "dist", "build"];
/// What is read when a watch names no `include`.
pub const DEFAULT_INCLUDE: [&str; 7] =
    ["**/*.md", "**/*.markdown", "**/*.mdx", "**/*.json", "**/*.yaml", "**/*.yml", "**/*.toml"];
/// Changed paths the queue holds; past this it is dropped for one
/// reconciliation of every folder.
pub const MAX_QUEUED_PATHS: usize = 10_000;
/// Skipped files `stats` and `index_files` list (with why).
pub const SKIPPED_SHOWN: usize = 10;
/// Files read per index transaction (the locks are let go between).
const FILES_PER_BATCH: usize = 64;
/// Paths the worker takes from the queue at once.
const PATHS_PER_TURN: usize = 256;

/// Why watching or reading files failed.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    /// A pattern of `include` or `exclude` that is no glob.
    #[error("{glob:?} is no glob")]
    Glob {
        /// The pattern (or the set of them).
        glob: String,
        /// Why.
        #[source]
        source: globset::Error,
    },
    /// A file ferrex keeps could not be read.
    #[error("reading {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file ferrex keeps could not be written.
    #[error("writing {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The list of paths `index_files` added is damaged.
    #[error("{} is not a list of watched paths", path.display())]
    Saved {
        /// The list (`watched.json`).
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// The worker panicked reading files (the log has the message); it
    /// goes on with the next change.
    #[error("the file worker panicked (see the log)")]
    Panicked,
}

/// One watched folder (or file), with its patterns compiled.
#[derive(Debug)]
pub struct Root {
    /// As configured.
    pub watch: Watch,
    include: GlobSet,
    exclude: GlobSet,
}

impl Root {
    /// `watch` with its patterns compiled.
    pub fn new(watch: Watch) -> Result<Root, FilesError> {
        let set = |globs: &[String]| -> Result<GlobSet, FilesError> {
            let mut builder = GlobSetBuilder::new();
            for glob in globs {
                builder.add(
                    Glob::new(glob)
                        .map_err(|source| FilesError::Glob { glob: glob.clone(), source })?,
                );
            }
            builder.build().map_err(|source| FilesError::Glob { glob: globs.join(", "), source })
        };
        let include = if watch.include.is_empty() {
            set(&DEFAULT_INCLUDE.map(str::to_owned))?
        } else {
            set(&watch.include)?
        };
        let exclude = set(&watch.exclude)?;
        Ok(Root { watch, include, exclude })
    }

    /// The path of `path` relative to the root, with `/` between its parts
    /// (a watched file is its own name).
    fn relative(&self, path: &Path) -> Option<String> {
        let root = &self.watch.path;
        if path == root {
            return root.file_name().map(|name| name.to_string_lossy().into_owned());
        }
        let rest = path.strip_prefix(root).ok()?;
        let parts: Vec<String> =
            rest.components().map(|part| part.as_os_str().to_string_lossy().into_owned()).collect();
        (!parts.is_empty()).then(|| parts.join("/"))
    }

    /// Whether a folder at `relative` is never read (nor anything in it).
    fn excludes_folder(&self, relative: &str) -> bool {
        relative.split('/').any(|part| NEVER_READ.contains(&part))
            || self.exclude.is_match(relative)
            || self.exclude.is_match(format!("{relative}/"))
    }

    /// Whether the file at `relative` is read, and as what.
    fn reads(&self, relative: &str) -> Option<FileKind> {
        let (folder, _) = relative.rsplit_once('/').unwrap_or(("", relative));
        if !folder.is_empty() && self.excludes_folder(folder) {
            return None;
        }
        if self.exclude.is_match(relative) {
            return None;
        }
        let single_file = self.watch.path.is_file();
        if !single_file && !self.include.is_match(relative) {
            return None;
        }
        FileKind::of(relative)
    }
}

/// Where the watcher and the file worker are, for `stats` and
/// `sync status`.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct WatchStatus {
    /// `starting`, `reconciling`, `reading` (changed files) or `watching`.
    pub state: String,
    /// Changed paths waiting to be read.
    pub queued: usize,
    /// Whether every folder waits for a reconciliation (the queue
    /// overflowed, or the index was rebuilt).
    pub rescan_pending: bool,
    /// Files read (their content changed, or new) since the node started.
    pub files_read: u64,
    /// Bursts that overflowed the queue since the node started.
    pub overflows: u64,
    /// The last error, if reading failed.
    pub last_error: Option<String>,
}

/// What one reconciliation or re-read did.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Reconciled {
    /// Files looked at.
    pub seen: u64,
    /// Files read because they were new or changed.
    pub read: u64,
    /// Files whose chunks were dropped (deleted, moved away, excluded now).
    pub dropped: u64,
    /// Files skipped (binary, too large, unreadable).
    pub skipped: u64,
    /// Chunks written.
    pub chunks_written: u64,
}

impl Reconciled {
    fn add(&mut self, other: &Reconciled) {
        self.seen += other.seen;
        self.read += other.read;
        self.dropped += other.dropped;
        self.skipped += other.skipped;
        self.chunks_written += other.chunks_written;
    }
}

/// A watched folder as `index_files` reports it.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct WatchedReport {
    /// Where it is on this device.
    pub path: String,
    /// Its namespace.
    pub namespace: String,
    /// Whether its chunks are synced.
    pub shared: bool,
    /// Files, chunks and skipped files recorded for it.
    #[serde(flatten)]
    pub counts: FileCounts,
}

#[derive(Debug, Default)]
struct Queue {
    paths: BTreeSet<PathBuf>,
    rescan: bool,
}

/// Called for each folder to watch (the watcher's `watch`, or nothing
/// when the node runs without one).
pub type WatchFolder =
    Box<dyn Fn(&Path) -> Result<(), Box<dyn std::error::Error + Send + Sync>> + Send + Sync>;

/// The watched folders of this device and the queue of changed paths.
#[derive(Default)]
pub struct FileWatch {
    roots: Mutex<Vec<Arc<Root>>>,
    queue: Mutex<Queue>,
    wake: Condvar,
    status: Mutex<WatchStatus>,
    /// Where folders added at run time are kept (`watched.json`).
    saved: Mutex<Option<PathBuf>>,
    /// Folders handed to the watcher.
    watched_folders: Mutex<HashSet<PathBuf>>,
    watch_folder: Mutex<Option<WatchFolder>>,
    /// Set while a reconciliation runs (one at a time).
    reconciling: Mutex<()>,
}

impl std::fmt::Debug for FileWatch {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("FileWatch").finish_non_exhaustive()
    }
}

impl FileWatch {
    /// Takes the configured watches and those added at run time (kept in
    /// `saved`); an entry that cannot be used is logged and left out.
    pub fn configure(&self, configured: &[Watch], saved: PathBuf) -> Result<(), FilesError> {
        let mut all: Vec<Watch> = configured.to_vec();
        // A damaged list of added paths is reported, not fatal: the
        // configured ones are watched all the same.
        match read_saved(&saved) {
            Ok(added) => all.extend(added),
            Err(error) => tracing::error!(
                "the paths index_files added are left out: {}",
                crate::base::with_causes(&error)
            ),
        }
        let mut roots = lock(&self.roots);
        for watch in all {
            if roots.iter().any(|root| root.watch.path == watch.path) {
                continue;
            }
            match Root::new(watch) {
                Ok(root) => roots.push(Arc::new(root)),
                Err(error) => tracing::error!(
                    "a watched path is left out: {}",
                    crate::base::with_causes(&error)
                ),
            }
        }
        *lock(&self.saved) = Some(saved);
        let mut status = lock(&self.status);
        status.state = "starting".into();
        drop(status);
        drop(roots);
        self.rescan();
        Ok(())
    }

    /// Hands each folder to `watch` from now on.
    pub fn set_watcher(&self, watch: WatchFolder) {
        *lock(&self.watch_folder) = Some(watch);
        lock(&self.watched_folders).clear();
    }

    /// The watched folders.
    pub fn roots(&self) -> Vec<Arc<Root>> {
        lock(&self.roots).clone()
    }

    /// Queues `path` (changed, created, deleted or moved) to be read again.
    pub fn changed(&self, path: PathBuf) {
        let mut queue = lock(&self.queue);
        if queue.rescan {
            return;
        }
        if queue.paths.len() >= MAX_QUEUED_PATHS {
            queue.paths.clear();
            queue.rescan = true;
            lock(&self.status).overflows += 1;
            tracing::info!(
                limit = MAX_QUEUED_PATHS,
                "a burst of file changes overflowed the queue: every watched folder is reconciled instead"
            );
        } else {
            queue.paths.insert(path);
        }
        drop(queue);
        self.wake.notify_all();
    }

    /// Queues one reconciliation of every folder.
    pub fn rescan(&self) {
        let mut queue = lock(&self.queue);
        queue.paths.clear();
        queue.rescan = true;
        drop(queue);
        self.wake.notify_all();
    }

    /// Where the watcher and the worker are.
    pub fn status(&self) -> WatchStatus {
        let mut status = lock(&self.status).clone();
        let queue = lock(&self.queue);
        status.queued = queue.paths.len();
        status.rescan_pending = queue.rescan;
        status
    }

    fn set_state(&self, state: &str) {
        lock(&self.status).state = state.to_owned();
    }

    /// Waits (up to `wait`) for work; returns what to do: every folder, or
    /// these paths.
    fn next(&self, wait: Duration) -> Option<Work> {
        let mut queue = lock(&self.queue);
        if !queue.rescan && queue.paths.is_empty() {
            queue = self.wake.wait_timeout(queue, wait).map(|(queue, _)| queue).unwrap_or_else(
                |poisoned| {
                    let (queue, _) = poisoned.into_inner();
                    queue
                },
            );
        }
        if queue.rescan {
            queue.rescan = false;
            queue.paths.clear();
            return Some(Work::Everything);
        }
        if queue.paths.is_empty() {
            return None;
        }
        let mut taken = Vec::new();
        while taken.len() < PATHS_PER_TURN {
            let Some(path) = queue.paths.pop_first() else { break };
            taken.push(path);
        }
        Some(Work::Paths(taken))
    }

    /// Keeps `watch` among the folders added at run time.
    fn save(&self, watch: &Watch) -> Result<(), FilesError> {
        let Some(saved) = lock(&self.saved).clone() else { return Ok(()) };
        let mut all = read_saved(&saved)?;
        all.retain(|kept| kept.path != watch.path);
        all.push(watch.clone());
        write_saved(&saved, &all)
    }

    /// Drops `path` from the folders added at run time; whether it was one.
    fn unsave(&self, path: &Path) -> Result<bool, FilesError> {
        let Some(saved) = lock(&self.saved).clone() else { return Ok(false) };
        let mut all = read_saved(&saved)?;
        let before = all.len();
        all.retain(|kept| kept.path != path);
        write_saved(&saved, &all)?;
        Ok(all.len() != before)
    }

    /// Forgets that `folder` and the folders under it were handed to the
    /// watcher (they went away, or came back: notify dropped their watches).
    fn unwatched(&self, folder: &Path) {
        lock(&self.watched_folders).retain(|watched| !watched.starts_with(folder));
    }

    /// Hands `folder` to the watcher if it has not been.
    fn watch_folder(&self, folder: &Path) {
        if !lock(&self.watched_folders).insert(folder.to_owned()) {
            return;
        }
        if let Some(watch) = lock(&self.watch_folder).as_ref()
            && let Err(error) = watch(folder)
        {
            tracing::warn!(
                "cannot watch {}: {}",
                folder.display(),
                crate::base::with_causes(&*error)
            );
        }
    }
}

enum Work {
    Everything,
    Paths(Vec<PathBuf>),
}

fn read_saved(path: &Path) -> Result<Vec<Watch>, FilesError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|source| FilesError::Saved { path: path.to_owned(), source }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(source) => Err(FilesError::Read { path: path.to_owned(), source }),
    }
}

fn write_saved(path: &Path, watches: &[Watch]) -> Result<(), FilesError> {
    let temporary = path.with_extension("json.tmp");
    let bytes = serde_json::to_vec_pretty(watches)
        .map_err(|source| FilesError::Saved { path: path.to_owned(), source })?;
    std::fs::write(&temporary, bytes)
        .map_err(|source| FilesError::Write { path: temporary.clone(), source })?;
    std::fs::rename(&temporary, path)
        .map_err(|source| FilesError::Write { path: path.to_owned(), source })?;
    Ok(())
}

/// A file read, with its chunks' rows, before they are written.
struct Prepared {
    record: FileRecord,
    /// Its path in its watched folder.
    relative: String,
    rows: Vec<MemoryRow>,
}

/// A file as found on disk.
struct Found {
    path: PathBuf,
    relative: String,
    kind: FileKind,
    modified: i64,
    size: i64,
}

/// What `index_files` was asked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IndexFilesRequest {
    /// A folder or file to watch from now on (absolute).
    pub add: Option<Watch>,
    /// A watched path to stop watching (its chunks are dropped).
    pub remove: Option<PathBuf>,
    /// Reconcile every folder now.
    pub reindex: bool,
}

/// What `index_files` answers.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct IndexFilesAnswer {
    /// Every watched folder, with its counts.
    pub watched: Vec<WatchedReport>,
    /// What this call read, when it read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconciled: Option<Reconciled>,
    /// Skipped files, with why (the first few).
    pub skipped: Vec<SkippedFile>,
    /// Chunks waiting for their vectors (recall finds them by keywords
    /// until then).
    pub embeddings_queued: i64,
    /// The watcher and the worker.
    pub status: WatchStatus,
}

/// A file that gave no chunks, and why.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct SkippedFile {
    /// Its path on this device.
    pub path: String,
    /// Why.
    pub reason: String,
}

impl Engine {
    /// The watched folders and their queue.
    pub fn files(&self) -> &FileWatch {
        &self.files
    }

    /// The file worker: reconciles every folder first, then reads what
    /// the watcher queues, until `stop`.
    pub fn run_file_worker(&self, stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) {
            let Some(work) = self.files.next(Duration::from_millis(250)) else {
                self.files.set_state("watching");
                continue;
            };
            // A panic reading one file is an error of that turn, not the
            // end of the worker.
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match work {
                Work::Everything => {
                    self.files.set_state("reconciling");
                    self.reconcile_all()
                }
                Work::Paths(paths) => {
                    self.files.set_state("reading");
                    self.reread(&paths)
                }
            }))
            .unwrap_or_else(|_| Err(FilesError::Panicked.into()));
            match outcome {
                // New chunks wait for their vectors: wake the embedding
                // worker (only then: a rebuild embeds what it projected
                // itself).
                Ok(done) if done.chunks_written > 0 => self.work.notify(),
                Ok(_) => {}
                Err(error) => {
                    tracing::error!("reading watched files: {}", crate::base::with_causes(&error));
                    lock(&self.files.status).last_error = Some(crate::base::with_causes(&error));
                }
            }
        }
    }

    /// Reconciles every watched folder with the index.
    pub fn reconcile_all(&self) -> EngineResult<Reconciled> {
        let _one = lock(&self.files.reconciling);
        let mut total = Reconciled::default();
        for root in self.files.roots() {
            let started = Instant::now();
            let done = self.reconcile(&root)?;
            tracing::info!(
                path = %root.watch.path.display(),
                seen = done.seen,
                read = done.read,
                dropped = done.dropped,
                skipped = done.skipped,
                ms = started.elapsed().as_millis() as u64,
                "watched folder reconciled"
            );
            total.add(&done);
        }
        // Files of folders no longer watched.
        let roots: HashSet<(String, String)> = self
            .files
            .roots()
            .iter()
            .map(|root| {
                (root.watch.path.to_string_lossy().into_owned(), root.watch.namespace.clone())
            })
            .collect();
        let orphans: Vec<FileRecord> = lock(&self.index)
            .all_files()?
            .into_iter()
            .filter(|file| !roots.contains(&(file.root.clone(), file.namespace.clone())))
            .collect();
        for batch in orphans.chunks(FILES_PER_BATCH) {
            total.dropped += batch.len() as u64;
            self.drop_files(batch)?;
        }
        Ok(total)
    }

    /// Reconciles one folder: new and changed files read, gone ones
    /// dropped; a file whose time and size did not change is not read.
    fn reconcile(&self, root: &Root) -> EngineResult<Reconciled> {
        // A folder that is not there (unmounted, not checked out yet)
        // keeps its chunks: they go when it is taken off the watch list.
        if !root.watch.path.exists() {
            tracing::warn!(
                path = %root.watch.path.display(),
                "a watched path is missing: its chunks are kept until it is back or unwatched"
            );
            return Ok(Reconciled::default());
        }
        let namespace = root.watch.namespace.clone();
        let root_text = root.watch.path.to_string_lossy().into_owned();
        let known: HashMap<String, FileRecord> = lock(&self.index)
            .files_under(&namespace, &root_text)?
            .into_iter()
            .map(|file| (file.path.clone(), file))
            .collect();
        let mut done = Reconciled::default();
        let mut seen: HashSet<String> = HashSet::new();
        let mut batch: Vec<Found> = Vec::new();
        let unreadable = std::cell::RefCell::new(Vec::new());
        for found in self.walk(root, &root.watch.path, &unreadable) {
            done.seen += 1;
            let key = found.path.to_string_lossy().into_owned();
            // A file once unreadable is read again; one whose folder's
            // sharing changed is written again.
            let unchanged = known.get(&key).is_some_and(|file| {
                file.modified == found.modified
                    && file.size == found.size
                    && file.shared == root.watch.share
                    && !file.skipped.as_deref().is_some_and(|why| why.starts_with("unreadable"))
            });
            seen.insert(key);
            if !unchanged {
                batch.push(found);
            }
            if batch.len() >= FILES_PER_BATCH {
                done.add(&self.read_files(root, &std::mem::take(&mut batch))?);
            }
        }
        done.add(&self.read_files(root, &batch)?);
        let unreadable = unreadable.into_inner();
        let gone: Vec<FileRecord> = known
            .into_values()
            .filter(|file| !seen.contains(&file.path))
            .filter(|file| !unreadable.iter().any(|path| Path::new(&file.path).starts_with(path)))
            .collect();
        for batch in gone.chunks(FILES_PER_BATCH) {
            done.dropped += batch.len() as u64;
            self.drop_files(batch)?;
        }
        Ok(done)
    }

    /// The files of `root` that are read, its folders handed to the
    /// watcher as they are found; excluded folders are never entered.
    fn walk<'a>(
        &'a self,
        root: &'a Root,
        start: &Path,
        unreadable: &'a std::cell::RefCell<Vec<PathBuf>>,
    ) -> impl Iterator<Item = Found> + 'a {
        let base = start.to_owned();
        // A watched file is watched through its folder (its siblings'
        // events are not the root's, and are left alone).
        if root.watch.path.is_file()
            && let Some(parent) = root.watch.path.parent()
        {
            self.files.watch_folder(parent);
        }
        let walker = walkdir::WalkDir::new(&base).follow_links(false).into_iter();
        walker
            .filter_entry(move |entry| {
                if !entry.file_type().is_dir() || entry.path() == root.watch.path {
                    return true;
                }
                root.relative(entry.path()).is_none_or(|relative| !root.excludes_folder(&relative))
            })
            .filter_map(move |entry| {
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(error) => {
                        tracing::warn!("walking {}: {error}", base.display());
                        // What is under it was not seen, not deleted.
                        unreadable
                            .borrow_mut()
                            .push(error.path().map_or_else(|| base.clone(), Path::to_path_buf));
                        return None;
                    }
                };
                if entry.file_type().is_dir() {
                    self.files.watch_folder(entry.path());
                    return None;
                }
                if !entry.file_type().is_file() {
                    return None;
                }
                found(root, entry.path())
            })
    }

    /// Reads `files` of `root` again and writes their chunks.
    fn read_files(&self, root: &Root, files: &[Found]) -> EngineResult<Reconciled> {
        let mut done = Reconciled::default();
        if files.is_empty() {
            return Ok(done);
        }
        let namespace = &root.watch.namespace;
        let device = self.replica.device().to_owned();
        let mut prepared: Vec<Prepared> = Vec::new();
        for file in files {
            let key = file.path.to_string_lossy().into_owned();
            let previous = lock(&self.index).file(namespace, &key)?;
            if let Some(previous) = previous.as_ref().filter(|old| old.shared != root.watch.share) {
                // The folder's sharing changed: its chunks go from where
                // they were (this index, or the documents) before they are
                // written where they are now.
                self.drop_files(std::slice::from_ref(previous))?;
            }
            let limit = chunk::size_limit(file.kind);
            let bytes = if file.size as u64 > limit as u64 {
                Err(chunk::Skip::TooLarge { bytes: file.size as usize, limit })
            } else {
                std::fs::read(&file.path)
                    .map_err(|error| chunk::Skip::Unreadable(error.to_string()))
            };
            let (hash, chunks, skipped) = match bytes {
                Ok(bytes) => {
                    let hash = hex::encode(Sha256::digest(&bytes));
                    if let Some(previous) = previous
                        && previous.hash == hash
                        && previous.skipped.is_none()
                        && previous.shared == root.watch.share
                    {
                        // Touched, not changed: only the time is new.
                        let record =
                            FileRecord { modified: file.modified, size: file.size, ..previous };
                        lock(&self.index).transaction(|tx| tx.put_file(&record))?;
                        continue;
                    }
                    match chunk::chunks(file.kind, &bytes) {
                        Ok(chunks) => (hash, chunks, None),
                        Err(skip) => (hash, Vec::new(), Some(skip.to_string())),
                    }
                }
                Err(skip) => (String::new(), Vec::new(), Some(skip.to_string())),
            };
            done.read += 1;
            if skipped.is_some() {
                done.skipped += 1;
            }
            let rows = chunk_rows(namespace, &key, &file.relative, &chunks, file.modified, &device);
            done.chunks_written += rows.len() as u64;
            let record = FileRecord {
                namespace: namespace.clone(),
                path: key,
                root: root.watch.path.to_string_lossy().into_owned(),
                shared: root.watch.share,
                modified: file.modified,
                size: file.size,
                hash,
                chunks: rows.iter().map(|row| row.id.clone()).collect(),
                skipped,
            };
            prepared.push(Prepared { record, relative: file.relative.clone(), rows });
        }
        if root.watch.share {
            self.write_shared(namespace, prepared)?;
        } else {
            self.write_local(prepared)?;
        }
        lock(&self.files.status).files_read += done.read;
        Ok(done)
    }

    /// Writes the chunks of unshared files (rows of this index only); a
    /// chunk whose text another chunk had takes its vectors.
    fn write_local(&self, prepared: Vec<Prepared>) -> EngineResult<()> {
        let mut index = lock(&self.index);
        let mut reused: HashMap<String, Vectors> = HashMap::new();
        for Prepared { rows, .. } in &prepared {
            for row in rows {
                if reused.contains_key(&row.content_hash) || index.row(&row.id)?.is_some() {
                    continue;
                }
                if let Some(other) = index.chunk_with_hash(&row.namespace, &row.content_hash)? {
                    let vectors = index.vectors(&other)?;
                    if !vectors.is_empty() {
                        reused.insert(row.content_hash.clone(), vectors);
                    }
                }
            }
        }
        index.transaction(|tx| {
            for Prepared { record, rows, .. } in &prepared {
                let old = tx.file_chunks(&record.namespace, &record.path)?;
                let new: HashSet<&String> = rows.iter().map(|row| &row.id).collect();
                for id in old.iter().filter(|id| !new.contains(id)) {
                    tx.delete_memory(id)?;
                }
                for row in rows {
                    tx.put_local_chunk(row, reused.get(&row.content_hash))?;
                }
                tx.put_file(record)?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// Writes the chunks of shared files as memories of the namespace's
    /// documents: unchanged chunks stay, new ones are written, and those
    /// the file no longer has are forgotten (everywhere).
    fn write_shared(&self, namespace: &str, prepared: Vec<Prepared>) -> EngineResult<()> {
        let single_shared = self
            .files
            .roots()
            .iter()
            .filter(|root| root.watch.share && root.watch.namespace == namespace)
            .count()
            == 1;
        let parsed = Namespace::parse(namespace)?;
        let mut to_forget: Vec<String> = Vec::new();
        let now = self.now();
        {
            let _writing = lock(&self.write_lock);
            let mut memories: Vec<NewMemory> = Vec::new();
            let mut records: Vec<FileRecord> = Vec::new();
            for Prepared { mut record, relative, rows } in prepared {
                let old = lock(&self.index).file(namespace, &record.path)?;
                // Without a record (the index was rebuilt), the chunks this
                // device wrote for the file are still in the documents; they
                // are told apart by path only, so only when one shared folder
                // of this device writes to the namespace.
                let old_ids = match old {
                    Some(file) => file.chunks,
                    None if single_shared => lock(&self.index).shared_chunks_of(
                        namespace,
                        &relative,
                        &ferrex_core::Namespace::parse(namespace).map_or_else(
                            |_| self.replica.device().to_owned(),
                            |ns| self.replica.writer_in(&ns),
                        ),
                    )?,
                    None => Vec::new(),
                };
                let kept_rows = lock(&self.index).rows(&old_ids)?;
                // Old chunks by their text: each kept once.
                let mut by_hash: BTreeMap<String, Vec<String>> = BTreeMap::new();
                for id in &old_ids {
                    if let Some(row) = kept_rows.get(id) {
                        by_hash.entry(row.content_hash.clone()).or_default().push(id.clone());
                    }
                }
                let mut ids = Vec::new();
                for row in rows {
                    if let Some(kept) = by_hash.get_mut(&row.content_hash).and_then(Vec::pop) {
                        ids.push(kept);
                        continue;
                    }
                    let id = super::new_id();
                    memories.push(NewMemory {
                        id: id.clone(),
                        kind: MemoryKind::Procedural,
                        content: ferrex_core::Content::Text(row.text),
                        confidence: 1.0,
                        source: row.source,
                        context: row.context,
                        tags: row.tags,
                        entity_ids: Vec::new(),
                        subject_entity: None,
                        predicate_written: None,
                        cardinality: None,
                        created_at: now,
                        created_by: row.created_by,
                        t_valid: Timestamp(row.t_valid),
                    });
                    ids.push(id);
                }
                to_forget.extend(by_hash.into_values().flatten());
                record.chunks = ids;
                records.push(record);
            }
            if !memories.is_empty() {
                let change = self.replica.write_new(
                    &parsed,
                    now,
                    &NewRecords { memories, ..NewRecords::default() },
                )?;
                let mut index = lock(&self.index);
                indexer::apply_change(&mut index, &self.replica, &change, &KnownVectors::new())?;
            }
            lock(&self.index).transaction(|tx| {
                for record in &records {
                    tx.put_file(record)?;
                }
                Ok(())
            })?;
        }
        if !to_forget.is_empty() {
            self.forget_as_engine(&to_forget)?;
        }
        Ok(())
    }

    /// Drops the chunks of `files` and their records.
    fn drop_files(&self, files: &[FileRecord]) -> EngineResult<()> {
        let shared: Vec<String> =
            files.iter().filter(|file| file.shared).flat_map(|file| file.chunks.clone()).collect();
        if !shared.is_empty() {
            self.forget_as_engine(&shared)?;
        }
        let mut index = lock(&self.index);
        index.transaction(|tx| {
            for file in files {
                if !file.shared {
                    for id in &file.chunks {
                        tx.delete_memory(id)?;
                    }
                }
                tx.delete_file(&file.namespace, &file.path)?;
            }
            Ok(())
        })?;
        super::checkpoint(&index);
        Ok(())
    }

    /// Reads `paths` again (each changed, created, deleted or moved): a
    /// file read again or dropped, a folder reconciled. Within a turn,
    /// what exists is read before what is gone is dropped, so a moved
    /// file's chunks take their vectors along.
    fn reread(&self, paths: &[PathBuf]) -> EngineResult<Reconciled> {
        let _one = lock(&self.files.reconciling);
        let mut done = Reconciled::default();
        let mut gone: Vec<FileRecord> = Vec::new();
        let mut reads: Vec<(Arc<Root>, Found)> = Vec::new();
        for path in paths {
            for root in self.files.roots() {
                let Some(relative) = root.relative(path) else { continue };
                let metadata = std::fs::symlink_metadata(path);
                match metadata {
                    Ok(metadata) if metadata.is_dir() => {
                        if !root.excludes_folder(&relative) {
                            self.files.unwatched(path);
                            done.add(&self.reconcile_under(&root, path)?);
                        }
                    }
                    // A change event is read whatever the time and size say
                    // (an edit within one tick of the clock, a tool that
                    // keeps times); an unchanged content hash writes nothing.
                    Ok(metadata) if metadata.is_file() => {
                        if let Some(found) = found(&root, path) {
                            reads.push((root.clone(), found));
                        }
                    }
                    _ if path == &root.watch.path => {
                        self.files.unwatched(path);
                        tracing::warn!(
                            path = %path.display(),
                            "a watched path went away: its chunks are kept until it is back or unwatched"
                        );
                    }
                    _ => {
                        // Gone: the file, or every file of a folder.
                        self.files.unwatched(path);
                        gone.extend(lock(&self.index).files_at(
                            &root.watch.namespace,
                            &root.watch.path.to_string_lossy(),
                            &path.to_string_lossy(),
                        )?);
                    }
                }
            }
        }
        for (root, found) in reads {
            done.seen += 1;
            done.add(&self.read_files(&root, &[found])?);
        }
        for batch in gone.chunks(FILES_PER_BATCH) {
            done.dropped += batch.len() as u64;
            self.drop_files(batch)?;
        }
        Ok(done)
    }

    /// Reconciles the part of `root` under `folder` (a folder created or
    /// moved in).
    fn reconcile_under(&self, root: &Root, folder: &Path) -> EngineResult<Reconciled> {
        let mut done = Reconciled::default();
        let mut batch = Vec::new();
        let unreadable = std::cell::RefCell::new(Vec::new());
        for found in self.walk(root, folder, &unreadable) {
            done.seen += 1;
            batch.push(found);
            if batch.len() >= FILES_PER_BATCH {
                done.add(&self.read_files(root, &std::mem::take(&mut batch))?);
            }
        }
        done.add(&self.read_files(root, &batch)?);
        Ok(done)
    }

    /// `index_files`: adds or removes a watched path, or reconciles every
    /// folder now; answers every folder's counts.
    pub fn index_files(&self, request: &IndexFilesRequest) -> Result<IndexFilesAnswer, ToolError> {
        let mut reconciled = None;
        if let Some(watch) = &request.add {
            let metadata = std::fs::metadata(&watch.path).map_err(|error| {
                FieldError::new("path", format!("{}: {error}", watch.path.display()))
            })?;
            if !metadata.is_dir() && FileKind::of(&watch.path.to_string_lossy()).is_none() {
                return Err(FieldError::new(
                    "path",
                    format!(
                        "{} is neither a folder nor a Markdown, JSON, YAML or TOML file",
                        watch.path.display()
                    ),
                )
                .into());
            }
            let existing =
                self.files.roots().into_iter().find(|root| root.watch.path == watch.path);
            if let Some(existing) = existing.as_ref()
                && existing.watch.namespace == watch.namespace
                && existing.watch.share == watch.share
            {
                // Watched already, as asked (perhaps by ferrex.toml, with
                // its patterns): read it again, keep its settings.
                let done = {
                    let _one = lock(&self.files.reconciling);
                    self.reconcile(existing)?
                };
                return self.answer_files(Some(done));
            }
            if let Some(existing) = existing {
                return Err(FieldError::new(
                    "path",
                    format!(
                        "{} is watched already, for namespace {:?}{}: remove it first",
                        watch.path.display(),
                        existing.watch.namespace,
                        if existing.watch.share { ", shared" } else { ", not shared" }
                    ),
                )
                .into());
            }
            let root =
                Arc::new(Root::new(watch.clone()).map_err(|error| {
                    FieldError::new("include", crate::base::with_causes(&error))
                })?);
            self.files.save(watch)?;
            {
                let mut roots = lock(&self.files.roots);
                roots.retain(|kept| kept.watch.path != watch.path);
                roots.push(root.clone());
            }
            let _one = lock(&self.files.reconciling);
            reconciled = Some(self.reconcile(&root)?);
        }
        if let Some(path) = &request.remove {
            let known = self.files.roots().into_iter().any(|root| &root.watch.path == path);
            if !known {
                return Err(FieldError::new(
                    "remove",
                    format!("{} is not watched", path.display()),
                )
                .into());
            }
            if !self.files.unsave(path)? {
                return Err(FieldError::new(
                    "remove",
                    format!(
                        "{} is watched by ferrex.toml: take it out of the file",
                        path.display()
                    ),
                )
                .into());
            }
            lock(&self.files.roots).retain(|root| &root.watch.path != path);
            reconciled = Some(self.reconcile_all()?);
        }
        if request.reindex {
            reconciled = Some(self.reconcile_all()?);
        }
        self.answer_files(reconciled)
    }

    /// `index_files`' answer: every watched folder's counts, and what a
    /// call `reconciled`.
    fn answer_files(&self, reconciled: Option<Reconciled>) -> Result<IndexFilesAnswer, ToolError> {
        self.work.notify();
        let index = lock(&self.index);
        let mut watched = Vec::new();
        for root in self.files.roots() {
            let path = root.watch.path.to_string_lossy().into_owned();
            watched.push(WatchedReport {
                counts: index.file_counts(Some(&path))?,
                path,
                namespace: root.watch.namespace.clone(),
                shared: root.watch.share,
            });
        }
        let skipped = index
            .skipped_files(SKIPPED_SHOWN)?
            .into_iter()
            .map(|(path, reason)| SkippedFile { path, reason })
            .collect();
        let (embeddings_queued, _) = index.embedding_backlog(None)?;
        Ok(IndexFilesAnswer {
            watched,
            reconciled,
            skipped,
            embeddings_queued,
            status: self.files.status(),
        })
    }
}

/// The file at `path` of `root`, if it is one ferrex reads.
fn found(root: &Root, path: &Path) -> Option<Found> {
    let relative = root.relative(path)?;
    let kind = root.reads(&relative)?;
    let metadata = std::fs::metadata(path).ok()?;
    let modified = metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_millis() as i64);
    Some(Found { path: path.to_owned(), relative, kind, modified, size: metadata.len() as i64 })
}

/// The rows of a file's chunks: procedural text, source
/// [`FILE_SOURCE`], the file's path and headings as context, the path as a
/// `file:` tag. Credentials are redacted. An id is a hash of where the
/// chunk is and what it says, so an unchanged section keeps its row (and
/// vectors) when the file around it changes.
fn chunk_rows(
    namespace: &str,
    path: &str,
    relative: &str,
    chunks: &[Chunk],
    modified: i64,
    device: &str,
) -> Vec<MemoryRow> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    chunks
        .iter()
        .map(|chunk| {
            let text = ferrex_core::secrets::redact_found(&chunk.text);
            let place = ferrex_core::secrets::redact_found(&chunk.place(relative));
            let mut hasher = Sha256::new();
            for part in [namespace, path, &place, &text] {
                hasher.update(part.as_bytes());
                hasher.update([0]);
            }
            let base = hex::encode(&hasher.finalize()[..16]);
            let occurrence = seen.entry(base.clone()).or_default();
            *occurrence += 1;
            let id = match *occurrence {
                1 => format!("file-{base}"),
                n => format!("file-{base}-{n}"),
            };
            MemoryRow {
                id,
                doc: LOCAL_DOC.to_owned(),
                namespace: namespace.to_owned(),
                kind: MemoryKind::Procedural,
                content_hash: chunk_hash(&text),
                text,
                subject: None,
                predicate: None,
                object: None,
                subject_entity: None,
                predicate_written: None,
                cardinality: None,
                confidence: 1.0,
                source: Some(FILE_SOURCE.to_owned()),
                context: Some(place),
                tags: vec![format!("{FILE_TAG}{relative}")],
                entities: Vec::new(),
                created_at: modified,
                created_by: device.to_owned(),
                t_valid: modified,
                evidence: 1,
                last_validated: None,
                access_count: 0,
                last_access: None,
                derived: Derived::default(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(path: &Path, include: &[&str], exclude: &[&str]) -> Root {
        Root::new(Watch {
            namespace: "default".into(),
            path: path.to_owned(),
            share: false,
            include: include.iter().map(|glob| (*glob).to_owned()).collect(),
            exclude: exclude.iter().map(|glob| (*glob).to_owned()).collect(),
        })
        .unwrap()
    }

    #[test]
    fn defaults_read_docs_and_config_and_never_the_build_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = root(dir.path(), &[], &["drafts/**", "secret.md"]);
        assert_eq!(root.reads("AGENT.md"), Some(FileKind::Markdown));
        assert_eq!(root.reads("docs/adr/0001.md"), Some(FileKind::Markdown));
        assert_eq!(root.reads("config/app.yaml"), Some(FileKind::Config));
        assert_eq!(root.reads("src/main.rs"), None);
        for never in ["node_modules/x/README.md", ".git/x.json", "a/target/b.toml", "dist/i.md"] {
            assert_eq!(root.reads(never), None, "{never}");
        }
        assert_eq!(root.reads("drafts/idea.md"), None);
        assert_eq!(root.reads("secret.md"), None);
        assert!(root.excludes_folder("build") && root.excludes_folder("drafts"));
        assert!(!root.excludes_folder("docs"));
        let only = super::tests::root(dir.path(), &["docs/**/*.md"], &[]);
        assert_eq!(only.reads("docs/a.md"), Some(FileKind::Markdown));
        assert_eq!(only.reads("README.md"), None);
    }

    #[test]
    fn a_chunk_keeps_its_id_while_its_section_is_unchanged() {
        let chunks = |text: &str| chunk::chunks(FileKind::Markdown, text.as_bytes()).unwrap();
        let before =
            chunk_rows("n", "/r/A.md", "A.md", &chunks("# A\n\nOne.\n\n# B\n\nTwo.\n"), 1, "d");
        let after = chunk_rows(
            "n",
            "/r/A.md",
            "A.md",
            &chunks("# A\n\nOne, edited.\n\n# B\n\nTwo.\n"),
            2,
            "d",
        );
        assert_ne!(before[0].id, after[0].id);
        assert_eq!(before[1].id, after[1].id);
        assert_eq!(after[1].context.as_deref(), Some("A.md > B"));
        assert_eq!(after[1].tags, vec!["file:A.md".to_owned()]);
        // The same section twice gets two ids.
        let twice =
            chunk_rows("n", "/r/A.md", "A.md", &chunks("# A\n\nSame.\n\n# A\n\nSame.\n"), 1, "d");
        assert_ne!(twice[0].id, twice[1].id);
    }

    #[test]
    fn credentials_in_a_file_are_redacted_before_they_are_indexed() {
        let chunks = chunk::chunks(
            FileKind::Config,
            b"aws_secret_access_key = \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"\nregion = \"eu\"\n",
        )
        .unwrap();
        let rows = chunk_rows("n", "/r/c.toml", "c.toml", &chunks, 1, "d");
        assert!(!rows[0].text.contains("wJalrXUtnFEMI"), "{}", rows[0].text);
        assert!(rows[0].text.contains("region"));
        // In a heading too: the place a chunk is answered with.
        let chunks = chunk::chunks(
            FileKind::Markdown,
            b"## aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n\nRotate it.\n",
        )
        .unwrap();
        let rows = chunk_rows("n", "/r/k.md", "k.md", &chunks, 1, "d");
        let place = rows[0].context.as_deref().unwrap();
        assert!(!place.contains("wJalrXUtnFEMI") && place.starts_with("k.md > "), "{place}");
    }
}
