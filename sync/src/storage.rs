//! Durable document storage: a snapshot plus an append-only log per document.
//!
//! Each document has a directory holding `snapshot` (a full Automerge save)
//! and `log` (the changes made since, one framed record per write). A write
//! is appended to the log and `fdatasync`ed before it is acknowledged. When
//! the log outgrows the snapshot, the document is compacted: a new snapshot is
//! written to a temporary file, synced, and renamed over the old one, and only
//! then is the log reset. A crash at any point leaves either the old snapshot
//! with the full log, or the new snapshot with (part of) the old log; loading
//! merges whatever is there, and Automerge ignores changes it already has.
//!
//! Both files start with an 8-byte header naming the format and its version.
//! A record is `len: u32 LE | sha256(payload)[..8] | payload`. A torn record
//! at the end of the log (a crash mid-append) is cut off on open; the bytes
//! are kept aside in `log.torn-<n>` rather than thrown away.
//!
//! A failed append (a full disk, an I/O error, a write cut short) is cut
//! from the log before anything else is appended, so that a torn record
//! never hides the acknowledged records after it; until the cut succeeds
//! (and a failed directory sync of a compaction is retried) nothing more is
//! appended. Every file-system operation here passes through
//! [`crate::faults`], where tests inject those failures.

use std::{
    fs::{self, File, OpenOptions},
    io::{self, Read},
    path::{Path, PathBuf},
};

use sha2::{Digest, Sha256};

use crate::faults::{self, Op};

/// Header of a log file: magic and format version 1.
const LOG_HEADER: &[u8; 8] = b"FXLOG\x00\x00\x01";
/// Header of a snapshot file: magic and format version 1.
const SNAPSHOT_HEADER: &[u8; 8] = b"FXSNP\x00\x00\x01";
/// Bytes before each record's payload.
const RECORD_OVERHEAD: usize = 12;
/// Largest record accepted when reading (a guard against a corrupt length).
const MAX_RECORD_BYTES: usize = 1 << 30;
/// The log is compacted once it is larger than a quarter of the snapshot and
/// this size, unless the replica is configured otherwise.
pub const DEFAULT_COMPACT_LOG_BYTES: u64 = 256 * 1024;

/// What can go wrong reading or writing document files.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The file system failed.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A file does not start with a header this version understands.
    #[error(
        "{} is not a ferrex document file of a version this ferrex reads (header {header:?}); \
         was it written by a newer ferrex?",
        path.display()
    )]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// The bytes found where the header should be.
        header: Vec<u8>,
    },
    /// A snapshot's checksum does not match: the file is damaged.
    #[error("{} is damaged (checksum mismatch); restore it from a backup or a peer", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
    },
}

type Result<T, E = StorageError> = std::result::Result<T, E>;

fn io_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> StorageError + 'a {
    move |source| StorageError::Io { action, path: path.to_owned(), source }
}

/// What was on disk when a document's files were opened.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The snapshot's payload, if there is a snapshot.
    pub snapshot: Option<Vec<u8>>,
    /// Every complete log record's payload, in order.
    pub records: Vec<Vec<u8>>,
    /// Bytes of a torn record cut from the end of the log.
    pub torn_bytes: u64,
}

/// The open files of one document.
#[derive(Debug)]
pub struct DocFiles {
    dir: PathBuf,
    log: File,
    /// Bytes of the log's header and complete records: where the next
    /// record goes.
    log_bytes: u64,
    snapshot_bytes: u64,
    /// A failed append may have left part of its record after `log_bytes`.
    tail_dirty: bool,
    /// The directory's entries (a compaction's new log) may not be durable.
    dir_dirty: bool,
    /// The log is compacted once it is larger than this and a quarter of
    /// the snapshot.
    compact_log_bytes: u64,
}

impl DocFiles {
    /// Opens (creating if needed) the document directory `dir` and reads it.
    pub fn open(dir: &Path) -> Result<(DocFiles, Loaded)> {
        let created = !dir.exists();
        faults::check(Op::Create)
            .and_then(|()| fs::create_dir_all(dir))
            .map_err(io_error("creating", dir))?;
        if created && let Some(parent) = dir.parent() {
            sync_dir(parent)?;
        }
        let snapshot_path = dir.join("snapshot");
        let snapshot = match fs::read(&snapshot_path) {
            Ok(bytes) => Some(parse_snapshot(&snapshot_path, &bytes)?),
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            Err(error) => return Err(io_error("reading", &snapshot_path)(error)),
        };
        let snapshot_bytes = snapshot.as_ref().map_or(0, |payload| payload.len() as u64);

        let log_path = dir.join("log");
        let mut log = faults::check(Op::Create)
            .and_then(|()| OpenOptions::new().read(true).append(true).create(true).open(&log_path))
            .map_err(io_error("opening", &log_path))?;
        let mut bytes = Vec::new();
        log.read_to_end(&mut bytes).map_err(io_error("reading", &log_path))?;
        if bytes.is_empty() {
            faults::write_all(&mut log, LOG_HEADER).map_err(io_error("writing", &log_path))?;
            sync_file(&log, &log_path)?;
            sync_dir(dir)?;
            bytes.extend_from_slice(LOG_HEADER);
        }
        if bytes.len() < LOG_HEADER.len() && LOG_HEADER.starts_with(&bytes) {
            // Part of the header: the log was being created when the
            // process stopped or the write failed. It held nothing yet.
            faults::check(Op::Truncate)
                .and_then(|()| log.set_len(0))
                .map_err(io_error("truncating", &log_path))?;
            faults::write_all(&mut log, LOG_HEADER).map_err(io_error("writing", &log_path))?;
            sync_file(&log, &log_path)?;
            bytes = LOG_HEADER.to_vec();
        }
        check_header(&log_path, &bytes, LOG_HEADER)?;
        let (records, valid_len) = parse_records(&bytes[LOG_HEADER.len()..]);
        let valid_len = (LOG_HEADER.len() + valid_len) as u64;
        let torn_bytes = bytes.len() as u64 - valid_len;
        if torn_bytes > 0 {
            set_aside(dir, &bytes[valid_len as usize..])?;
            faults::check(Op::Truncate)
                .and_then(|()| log.set_len(valid_len))
                .map_err(io_error("truncating", &log_path))?;
            sync_file(&log, &log_path)?;
            tracing::warn!(
                dir = %dir.display(),
                torn_bytes,
                "cut a torn record from the end of a document log (a crash during a write that was never acknowledged)"
            );
        }
        let files = DocFiles {
            dir: dir.to_owned(),
            log,
            log_bytes: valid_len,
            snapshot_bytes,
            tail_dirty: false,
            dir_dirty: false,
            compact_log_bytes: DEFAULT_COMPACT_LOG_BYTES,
        };
        Ok((files, Loaded { snapshot, records, torn_bytes }))
    }

    /// Appends one record and syncs it to disk before returning. On error
    /// the record is not in the log (whatever part of it was written is
    /// cut off, now or before the next append).
    pub fn append(&mut self, payload: &[u8]) -> Result<()> {
        if payload.is_empty() {
            return Ok(());
        }
        self.make_clean()?;
        let record = frame(payload);
        let path = self.dir.join("log");
        let written = faults::write_all(&mut self.log, &record)
            .map_err(io_error("appending to", &path))
            .and_then(|()| sync_data(&self.log, &path));
        if let Err(error) = written {
            // Part of the record (or all of it, unsynced) may be in the
            // file: a record appended after it would be cut off with it on
            // the next open. Cut it now, or before the next append.
            self.tail_dirty = true;
            if let Err(cut) = self.make_clean() {
                tracing::warn!(%cut, "could not cut a failed append from a document log yet");
            }
            return Err(error);
        }
        self.log_bytes += record.len() as u64;
        Ok(())
    }

    /// Makes the files clean ([`DocFiles::make_clean`]); whether they are.
    /// A document is let go from memory only with clean files: a failed
    /// append's bytes left in the log would come back when it is read again.
    pub(crate) fn clean(&mut self) -> bool {
        self.make_clean().is_ok()
    }

    /// Cuts what a failed append left after the last complete record, and
    /// syncs the directory if a compaction could not: until both are done,
    /// nothing may be appended.
    fn make_clean(&mut self) -> Result<()> {
        if self.tail_dirty {
            let path = self.dir.join("log");
            faults::check(Op::Truncate)
                .and_then(|()| self.log.set_len(self.log_bytes))
                .map_err(io_error("truncating", &path))?;
            sync_data(&self.log, &path)?;
            self.tail_dirty = false;
        }
        if self.dir_dirty {
            sync_dir(&self.dir)?;
            self.dir_dirty = false;
        }
        Ok(())
    }

    /// Sets how large the log may grow before it is compacted (a quarter
    /// of the snapshot, if that is larger, still applies).
    pub fn set_compact_log_bytes(&mut self, bytes: u64) {
        self.compact_log_bytes = bytes;
    }

    /// Whether the log has outgrown the snapshot.
    pub fn should_compact(&self) -> bool {
        self.log_bytes > self.compact_log_bytes.max(self.snapshot_bytes / 4)
    }

    /// Replaces the snapshot with `snapshot` (a full save that includes every
    /// logged change) and then empties the log. On error the files still
    /// hold everything: the old snapshot and log, or the new snapshot and
    /// the old log.
    pub fn compact(&mut self, snapshot: &[u8]) -> Result<()> {
        self.make_clean()?;
        let mut contents =
            Vec::with_capacity(SNAPSHOT_HEADER.len() + RECORD_OVERHEAD + snapshot.len());
        contents.extend_from_slice(SNAPSHOT_HEADER);
        contents.extend_from_slice(&frame(snapshot));
        write_atomically(&self.dir, "snapshot", &contents)?;
        self.snapshot_bytes = snapshot.len() as u64;

        // The new, empty log is written and synced under a temporary name
        // and opened before it is renamed over the old one: the handle
        // appended to is always the file named `log`, whichever step fails.
        let temporary = self.dir.join("log.tmp");
        let mut file = faults::check(Op::Create)
            .and_then(|()| File::create(&temporary))
            .map_err(io_error("creating", &temporary))?;
        faults::write_all(&mut file, LOG_HEADER).map_err(io_error("writing", &temporary))?;
        sync_file(&file, &temporary)?;
        let log = faults::check(Op::Create)
            .and_then(|()| OpenOptions::new().read(true).append(true).open(&temporary))
            .map_err(io_error("opening", &temporary))?;
        let path = self.dir.join("log");
        self.replace_log(log, &temporary, &path)?;
        self.log_bytes = LOG_HEADER.len() as u64;
        self.tail_dirty = false;
        if let Err(error) = sync_dir(&self.dir) {
            // Until the rename is durable, a crash could bring back the
            // old log in place of records appended to the new one.
            self.dir_dirty = true;
            return Err(error);
        }
        Ok(())
    }

    /// Renames the new log `temporary` (open as `log`) over the old one at
    /// `path`, and appends to it from now on. Unix renames over an open
    /// file; Windows (without the POSIX rename of Windows 10, and Wine)
    /// does not, so there the old log is closed first and opened again if
    /// the rename fails: whichever step fails, the handle appended to is
    /// the file named `log`.
    fn replace_log(&mut self, log: File, temporary: &Path, path: &Path) -> Result<()> {
        #[cfg(windows)]
        {
            drop(std::mem::replace(&mut self.log, log));
            if let Err(error) = faults::check(Op::Rename)
                .and_then(|()| fs::rename(temporary, path))
                .map_err(io_error("renaming into", path))
            {
                self.log = OpenOptions::new()
                    .read(true)
                    .append(true)
                    .open(path)
                    .map_err(io_error("opening again", path))?;
                return Err(error);
            }
            Ok(())
        }
        #[cfg(not(windows))]
        {
            faults::check(Op::Rename)
                .and_then(|()| fs::rename(temporary, path))
                .map_err(io_error("renaming into", path))?;
            self.log = log;
            Ok(())
        }
    }

    /// Bytes in the log, header included.
    pub fn log_bytes(&self) -> u64 {
        self.log_bytes
    }

    /// Bytes of the snapshot's payload (0 without a snapshot).
    pub fn snapshot_bytes(&self) -> u64 {
        self.snapshot_bytes
    }
}

fn frame(payload: &[u8]) -> Vec<u8> {
    let mut record = Vec::with_capacity(RECORD_OVERHEAD + payload.len());
    record.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    record.extend_from_slice(&Sha256::digest(payload)[..8]);
    record.extend_from_slice(payload);
    record
}

/// Parses complete records; returns them and how many bytes they span.
fn parse_records(mut bytes: &[u8]) -> (Vec<Vec<u8>>, usize) {
    let mut records = Vec::new();
    let mut consumed = 0;
    while bytes.len() >= RECORD_OVERHEAD {
        let mut length = [0u8; 4];
        length.copy_from_slice(&bytes[..4]);
        let length = u32::from_le_bytes(length) as usize;
        if length > MAX_RECORD_BYTES || bytes.len() < RECORD_OVERHEAD + length {
            break;
        }
        let payload = &bytes[RECORD_OVERHEAD..RECORD_OVERHEAD + length];
        if Sha256::digest(payload)[..8] != bytes[4..12] {
            break;
        }
        records.push(payload.to_vec());
        consumed += RECORD_OVERHEAD + length;
        bytes = &bytes[RECORD_OVERHEAD + length..];
    }
    (records, consumed)
}

fn check_header(path: &Path, bytes: &[u8], expected: &[u8; 8]) -> Result<()> {
    if bytes.len() < expected.len() || &bytes[..expected.len()] != expected {
        return Err(StorageError::UnknownFormat {
            path: path.to_owned(),
            header: bytes[..bytes.len().min(expected.len())].to_vec(),
        });
    }
    Ok(())
}

fn parse_snapshot(path: &Path, bytes: &[u8]) -> Result<Vec<u8>> {
    check_header(path, bytes, SNAPSHOT_HEADER)?;
    let (mut records, consumed) = parse_records(&bytes[SNAPSHOT_HEADER.len()..]);
    if records.len() != 1 || SNAPSHOT_HEADER.len() + consumed != bytes.len() {
        return Err(StorageError::Corrupt { path: path.to_owned() });
    }
    Ok(records.remove(0))
}

/// Keeps torn bytes in `log.torn-<n>` so that nothing is silently destroyed.
fn set_aside(dir: &Path, bytes: &[u8]) -> Result<()> {
    let path = (0u32..)
        .map(|attempt| dir.join(format!("log.torn-{attempt}")))
        .find(|path| !path.exists())
        .unwrap_or_else(|| dir.join("log.torn"));
    faults::check(Op::Create)
        .and_then(|()| File::create(&path))
        .and_then(|mut file| faults::write_all(&mut file, bytes))
        .map_err(io_error("writing", &path))
}

/// Writes `name` in `dir` atomically: temporary file, sync, rename, sync dir.
pub(crate) fn write_atomically(dir: &Path, name: &str, contents: &[u8]) -> Result<()> {
    let temporary = dir.join(format!("{name}.tmp"));
    let mut file = faults::check(Op::Create)
        .and_then(|()| File::create(&temporary))
        .map_err(io_error("creating", &temporary))?;
    faults::write_all(&mut file, contents).map_err(io_error("writing", &temporary))?;
    sync_file(&file, &temporary)?;
    drop(file);
    let target = dir.join(name);
    faults::check(Op::Rename)
        .and_then(|()| fs::rename(&temporary, &target))
        .map_err(io_error("renaming into", &target))?;
    sync_dir(dir)
}

/// Syncs a file's data and metadata to disk.
fn sync_file(file: &File, path: &Path) -> Result<()> {
    faults::check(Op::Sync).and_then(|()| file.sync_all()).map_err(io_error("syncing", path))
}

/// Syncs a file's data (and the metadata needed to read it back, its
/// length) to disk: what an append needs, cheaper than [`sync_file`].
fn sync_data(file: &File, path: &Path) -> Result<()> {
    faults::check(Op::Sync).and_then(|()| file.sync_data()).map_err(io_error("syncing", path))
}

/// Syncs a directory so that file creations and renames in it are durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    faults::check(Op::Sync)
        .and_then(|()| crate::platform::sync_dir(dir))
        .map_err(io_error("syncing directory", dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(dir: &Path) -> (DocFiles, Loaded) {
        DocFiles::open(dir).unwrap()
    }

    #[test]
    fn appended_records_come_back_in_order() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("doc");
        let (mut files, loaded) = open(&dir);
        assert!(loaded.snapshot.is_none() && loaded.records.is_empty());
        files.append(b"one").unwrap();
        files.append(b"").unwrap();
        files.append(b"two").unwrap();
        drop(files);
        let (_, loaded) = open(&dir);
        assert_eq!(loaded.records, vec![b"one".to_vec(), b"two".to_vec()]);
    }

    #[test]
    fn a_torn_tail_is_cut_off_set_aside_and_later_appends_survive() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("doc");
        let (mut files, _) = open(&dir);
        files.append(b"kept").unwrap();
        files.append(b"torn record").unwrap();
        drop(files);
        let log = dir.join("log");
        let length = fs::metadata(&log).unwrap().len();
        OpenOptions::new().write(true).open(&log).unwrap().set_len(length - 3).unwrap();

        let (mut files, loaded) = open(&dir);
        assert_eq!(loaded.records, vec![b"kept".to_vec()]);
        assert_eq!(loaded.torn_bytes, (RECORD_OVERHEAD + 11 - 3) as u64);
        assert!(dir.join("log.torn-0").exists());
        files.append(b"after").unwrap();
        drop(files);
        let (_, loaded) = open(&dir);
        assert_eq!(loaded.records, vec![b"kept".to_vec(), b"after".to_vec()]);
    }

    #[test]
    fn a_flipped_bit_stops_reading_at_that_record() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("doc");
        let (mut files, _) = open(&dir);
        files.append(b"first").unwrap();
        files.append(b"second").unwrap();
        drop(files);
        let log = dir.join("log");
        let mut bytes = fs::read(&log).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x01;
        fs::write(&log, bytes).unwrap();
        let (_, loaded) = open(&dir);
        assert_eq!(loaded.records, vec![b"first".to_vec()]);
    }

    #[test]
    fn compaction_replaces_the_snapshot_and_empties_the_log() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("doc");
        let (mut files, _) = open(&dir);
        files.append(b"change").unwrap();
        files.compact(b"full state").unwrap();
        files.append(b"later").unwrap();
        drop(files);
        let (_, loaded) = open(&dir);
        assert_eq!(loaded.snapshot.as_deref(), Some(&b"full state"[..]));
        assert_eq!(loaded.records, vec![b"later".to_vec()]);
        assert!(!dir.join("snapshot.tmp").exists());
    }

    #[test]
    fn compaction_is_due_past_the_configured_size_and_a_quarter_of_the_snapshot() {
        let temp = tempfile::tempdir().unwrap();
        let (mut files, _) = open(&temp.path().join("doc"));
        files.set_compact_log_bytes(1_024);
        files.append(&[7; 900]).unwrap();
        assert!(!files.should_compact(), "900 bytes and a header are under 1 KiB");
        files.append(&[7; 200]).unwrap();
        assert!(files.should_compact());
        files.compact(&[1; 8_000]).unwrap();
        files.append(&[7; 1_500]).unwrap();
        assert!(!files.should_compact(), "under a quarter of the 8 KB snapshot");
        files.append(&[7; 600]).unwrap();
        assert!(files.should_compact());
    }

    #[test]
    fn files_of_an_unknown_format_are_refused_not_overwritten() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("doc");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("log"), b"FXLOG\x00\x00\x09future").unwrap();
        let error = DocFiles::open(&dir).unwrap_err();
        assert!(matches!(error, StorageError::UnknownFormat { .. }), "{error}");
        assert_eq!(fs::read(dir.join("log")).unwrap(), b"FXLOG\x00\x00\x09future");
    }

    #[test]
    fn a_damaged_snapshot_is_an_error() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("doc");
        let (mut files, _) = open(&dir);
        files.compact(b"state").unwrap();
        drop(files);
        let mut bytes = fs::read(dir.join("snapshot")).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        fs::write(dir.join("snapshot"), bytes).unwrap();
        assert!(matches!(DocFiles::open(&dir).unwrap_err(), StorageError::Corrupt { .. }));
    }
}
