//! Local state files (peers' sync state, invitations, revocations, the last
//! port): every one is written through [`save_json`] — temporary file,
//! `fsync`, rename, `fsync` of the directory — so a crash leaves the old
//! file or the new one, never a torn one; and read through [`load_json`],
//! which tells a missing file from a damaged one instead of reading damage
//! as "empty".

use std::{
    fs::OpenOptions,
    path::{Path, PathBuf},
};

use serde::{Serialize, de::DeserializeOwned};

use crate::faults::{self, Op};

/// A state file that could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateFileError {
    /// The file system failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is there but is not what ferrex wrote.
    #[error(
        "{} is damaged ({reason}); move it aside to let ferrex start afresh, after checking what it held",
        path.display()
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        reason: String,
    },
}

/// Writes `value` as JSON to `path`, durably and atomically, readable by
/// the owner only when `private`.
pub(crate) fn save_json<T: Serialize + ?Sized>(
    path: &Path,
    value: &T,
    private: bool,
) -> Result<(), StateFileError> {
    let bytes = serde_json::to_vec_pretty(value).map_err(|error| StateFileError::Corrupt {
        path: path.to_owned(),
        reason: error.to_string(),
    })?;
    save_bytes(path, &bytes, private)
}

/// Writes `bytes` to `path`, durably and atomically.
pub(crate) fn save_bytes(path: &Path, bytes: &[u8], private: bool) -> Result<(), StateFileError> {
    let io = |action: &'static str, path: &Path| {
        let path = path.to_owned();
        move |source| StateFileError::Io { action, path, source }
    };
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    faults::check(Op::Create)
        .and_then(|()| std::fs::create_dir_all(dir))
        .map_err(io("create", dir))?;
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let mut file = faults::check(Op::Create)
        .and_then(|()| {
            crate::platform::owner_only(OpenOptions::new().write(true).create(true), private)
                .truncate(true)
                .open(&temporary)
        })
        .map_err(io("create", &temporary))?;
    faults::write_all(&mut file, bytes).map_err(io("write", &temporary))?;
    faults::check(Op::Sync).and_then(|()| file.sync_all()).map_err(io("sync", &temporary))?;
    drop(file);
    faults::check(Op::Rename)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(io("rename", path))?;
    faults::check(Op::Sync)
        .and_then(|()| crate::platform::sync_dir(dir))
        .map_err(io("sync", dir))?;
    Ok(())
}

/// Reads the JSON state in `path`: `None` when there is no such file, an
/// error when it cannot be read or parsed.
pub(crate) fn load_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, StateFileError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(StateFileError::Io { action: "read", path: path.to_owned(), source });
        }
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|error| StateFileError::Corrupt {
        path: path.to_owned(),
        reason: error.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_file_reads_back_a_missing_one_is_none_and_a_torn_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/revoked.json");
        assert_eq!(load_json::<Vec<String>>(&path).unwrap(), None);
        save_json(&path, &vec!["a".to_owned()], true).unwrap();
        assert_eq!(load_json::<Vec<String>>(&path).unwrap(), Some(vec!["a".to_owned()]));
        assert!(crate::platform::is_owner_only(&path).unwrap());
        std::fs::write(&path, b"[\"a\", \"b").unwrap();
        let error = load_json::<Vec<String>>(&path).unwrap_err();
        assert!(matches!(error, StateFileError::Corrupt { .. }));
        assert!(error.to_string().contains("revoked.json is damaged"), "{error}");
    }

    #[test]
    fn a_failing_disk_at_any_operation_leaves_the_old_file_or_the_new_one() {
        use crate::faults::{self, Fault};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/peers.json");
        let mut injected = 0;
        for fault in [Fault::NoSpace, Fault::Io, Fault::Torn(0), Fault::Torn(128), Fault::Torn(255)]
        {
            for countdown in 0.. {
                save_json(&path, &vec!["old".to_owned()], false).unwrap();
                faults::arm(countdown, fault);
                let saved = save_json(&path, &vec!["new".to_owned(); 100], false);
                let (fired, _) = faults::disarm();
                if !fired {
                    assert!(saved.is_ok());
                    break;
                }
                injected += 1;
                let read = load_json::<Vec<String>>(&path).unwrap().unwrap();
                let new = vec!["new".to_owned(); 100];
                assert!(
                    read == vec!["old".to_owned()] || read == new,
                    "{fault:?} after {countdown}"
                );
                if saved.is_ok() {
                    // A failed directory sync after the rename is an error
                    // although the new file is in place; a success never
                    // leaves the old one.
                    assert_eq!(read, new, "{fault:?} after {countdown}");
                }
                // The next save succeeds over whatever was left.
                save_json(&path, &vec!["after".to_owned()], false).unwrap();
                assert_eq!(load_json::<Vec<String>>(&path).unwrap().unwrap(), vec!["after"]);
            }
        }
        assert!(injected >= 5 * 4, "{injected}");
    }
}
