//! What files need from the operating system that Unix and Windows do
//! differently: files and folders only their owner may open, making a
//! folder's new names durable, and writing at an offset. Every other file
//! of ferrex calls these instead of a Unix-only (or Windows-only) API.
//!
//! Owner-only, on Windows: a home lives under the user's profile
//! (`%APPDATA%`), whose inherited access list already grants only the
//! user, SYSTEM and Administrators; nothing more is set there.

use std::{
    fs::{File, OpenOptions},
    io,
    path::Path,
};

/// Makes `options` create a file only its owner may read and write (mode
/// 0600 on Unix), or one others may read (0644) when `private` is false.
pub fn owner_only(options: &mut OpenOptions, private: bool) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if private { 0o600 } else { 0o644 });
    }
    #[cfg(not(unix))]
    let _ = private;
    options
}

/// Creates `dir` and its parents; the folders created are only their
/// owner's (0700 on Unix).
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Restricts an existing file (0600) or folder (0700) to its owner.
pub fn restrict_to_owner(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = if std::fs::metadata(path)?.is_dir() { 0o700 } else { 0o600 };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        std::fs::metadata(path).map(drop)
    }
}

/// Whether only the owner may read `path` (no group or other bit on Unix;
/// always true elsewhere, see the module's note). For tests and `doctor`.
pub fn is_owner_only(path: &Path) -> io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Ok(std::fs::metadata(path)?.permissions().mode() & 0o077 == 0)
    }
    #[cfg(not(unix))]
    {
        std::fs::metadata(path).map(|_| true)
    }
}

/// Makes the creations, renames and deletions in `dir` durable. On Unix the
/// folder is synced; NTFS journals them itself, and a folder cannot be
/// opened as a file there, so on Windows this does nothing.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Writes all of `bytes` to `file` at `offset`, leaving the file's own
/// position where it was on Unix (callers never rely on it).
pub fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.write_all_at(bytes, offset)
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        let mut written = 0;
        while written < bytes.len() {
            match file.seek_write(&bytes[written..], offset + written as u64) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(count) => written += count,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::io::Read;

    use super::*;

    #[test]
    fn private_files_and_folders_are_the_owners_alone() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("a/b");
        create_private_dir_all(&dir).unwrap();
        assert!(is_owner_only(&dir).unwrap());
        let file = dir.join("secret");
        owner_only(OpenOptions::new().write(true).create_new(true), true).open(&file).unwrap();
        assert!(is_owner_only(&file).unwrap());
        let shared = dir.join("shared");
        owner_only(OpenOptions::new().write(true).create_new(true), false).open(&shared).unwrap();
        #[cfg(unix)]
        assert!(!is_owner_only(&shared).unwrap());
        restrict_to_owner(&shared).unwrap();
        assert!(is_owner_only(&shared).unwrap());
        sync_dir(&dir).unwrap();
    }

    #[test]
    fn a_write_at_an_offset_lands_there() {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join("slots");
        std::fs::write(&path, [0u8; 8]).unwrap();
        let file = OpenOptions::new().read(true).write(true).open(&path).unwrap();
        write_all_at(&file, b"ab", 3).unwrap();
        let mut bytes = Vec::new();
        File::open(&path).unwrap().read_to_end(&mut bytes).unwrap();
        assert_eq!(bytes, [0, 0, 0, b'a', b'b', 0, 0, 0]);
    }
}
