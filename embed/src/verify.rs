//! sha256 checks of model files.

use std::{
    collections::HashMap,
    fs::File,
    io::{self, Read},
    path::{Path, PathBuf},
};

use sha2::{Digest, Sha256};

use crate::{FileSpec, LoadError};

/// The sha256 of a file's content as lowercase hex.
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Checks `path` against `expected`; a missing file is [`LoadError::FileMissing`].
pub(crate) fn verify_file(path: &Path, expected: &str) -> Result<(), LoadError> {
    let actual = sha256_file(path).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => LoadError::FileMissing { path: path.to_owned() },
        _ => LoadError::Io { path: path.to_owned(), source },
    })?;
    if actual.eq_ignore_ascii_case(expected) {
        Ok(())
    } else {
        Err(LoadError::ChecksumMismatch {
            path: path.to_owned(),
            expected: expected.to_owned(),
            actual,
        })
    }
}

/// Verifies every file of a tier directory: pinned hashes first, then the
/// directory's `SHA256SUMS` for files the tier does not pin.
pub(crate) fn verify_tier_dir(dir: &Path, files: &[FileSpec]) -> Result<(), LoadError> {
    for (name, expected) in expected_hashes(dir, files)? {
        verify_file(&dir.join(name), &expected)?;
    }
    Ok(())
}

/// The sha256 each file of a tier directory must have: its pin, or what
/// the directory's `SHA256SUMS` declares for a file the tier does not pin.
pub(crate) fn expected_hashes(
    dir: &Path,
    files: &[FileSpec],
) -> Result<Vec<(&'static str, String)>, LoadError> {
    let sums_path = dir.join("SHA256SUMS");
    let mut declared: Option<HashMap<String, String>> = None;
    let mut hashes = Vec::with_capacity(files.len());
    for file in files {
        let expected = match file.sha256 {
            Some(pinned) => pinned.to_owned(),
            None => {
                if declared.is_none() {
                    declared = Some(read_sums(&sums_path)?);
                }
                declared.as_ref().and_then(|sums| sums.get(file.name).cloned()).ok_or_else(
                    || LoadError::ChecksumUnknown {
                        path: dir.join(file.name),
                        sums: sums_path.clone(),
                    },
                )?
            }
        };
        hashes.push((file.name, expected));
    }
    Ok(hashes)
}

/// Parses `sha256sum` output: `<hex>  <name>` (or `<hex> *<name>`) per line.
fn read_sums(path: &PathBuf) -> Result<HashMap<String, String>, LoadError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(source) if source.kind() == io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(source) => return Err(LoadError::Io { path: path.clone(), source }),
    };
    Ok(text
        .lines()
        .filter_map(|line| {
            let (hash, name) = line.trim().split_once(char::is_whitespace)?;
            let name = name.trim_start().trim_start_matches('*');
            Some((name.to_owned(), hash.to_ascii_lowercase()))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_known_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("abc");
        std::fs::write(&path, b"abc").unwrap();
        assert_eq!(
            sha256_file(&path).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn sums_file_is_parsed_in_both_sha256sum_modes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SHA256SUMS");
        std::fs::write(&path, "AA  model.onnx\nbb *tokenizer.json\n\n").unwrap();
        let sums = read_sums(&path).unwrap();
        assert_eq!(sums.get("model.onnx").map(String::as_str), Some("aa"));
        assert_eq!(sums.get("tokenizer.json").map(String::as_str), Some("bb"));
    }

    #[test]
    fn user_tier_without_sums_names_the_sums_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("model.onnx"), b"x").unwrap();
        let files = [FileSpec { name: "model.onnx", sha256: None }];
        let error = verify_tier_dir(dir.path(), &files).unwrap_err();
        assert!(matches!(error, LoadError::ChecksumUnknown { .. }), "{error}");
        assert!(error.to_string().contains("SHA256SUMS"), "{error}");
    }
}
