//! This device's identity: a secret key kept in the node's home, whose public
//! half is the device's endpoint id (the id peers know it by and that its
//! writes are recorded under).

use std::{
    fs::OpenOptions,
    io::Write,
    path::{Path, PathBuf},
};

use iroh::{EndpointId, SecretKey};

/// First line of a key file; the second is the key in hex.
const KEY_HEADER: &str = "ferrex secret key 1";

/// What can go wrong loading or creating a device key.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// The key file could not be read or written.
    #[error("cannot use the device key {}: {source}", path.display())]
    Io {
        /// The key file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The key file exists but does not hold a key.
    #[error(
        "{} is not a ferrex device key; move it aside to give this device a new identity \
         (it will have to be paired again)",
        path.display()
    )]
    Malformed {
        /// The key file.
        path: PathBuf,
    },
}

/// The device's secret key and the id derived from it.
#[derive(Clone)]
pub struct Identity {
    secret: SecretKey,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Identity").field("id", &self.id().fmt_short().to_string()).finish()
    }
}

impl Identity {
    /// Loads the key at `path`, or creates one there (readable by the owner
    /// only) on first use.
    pub fn load_or_create(path: &Path) -> Result<Identity, IdentityError> {
        let io = |source| IdentityError::Io { path: path.to_owned(), source };
        match std::fs::read_to_string(path) {
            Ok(text) => {
                Self::parse(&text).ok_or_else(|| IdentityError::Malformed { path: path.to_owned() })
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let secret = SecretKey::generate();
                let hex: String =
                    secret.to_bytes().iter().map(|byte| format!("{byte:02x}")).collect();
                let temporary = path.with_extension("tmp");
                let mut file =
                    crate::platform::owner_only(OpenOptions::new().write(true).create(true), true)
                        .truncate(true)
                        .open(&temporary)
                        .map_err(io)?;
                file.write_all(format!("{KEY_HEADER}\n{hex}\n").as_bytes()).map_err(io)?;
                file.sync_all().map_err(io)?;
                drop(file);
                std::fs::rename(&temporary, path).map_err(io)?;
                if let Some(dir) = path.parent() {
                    crate::platform::sync_dir(dir).map_err(io)?;
                }
                Ok(Identity { secret })
            }
            Err(error) => Err(io(error)),
        }
    }

    fn parse(text: &str) -> Option<Identity> {
        let mut lines = text.lines();
        if lines.next()? != KEY_HEADER {
            return None;
        }
        let hex = lines.next()?.trim();
        if hex.len() != 64 {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (index, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(hex.get(index * 2..index * 2 + 2)?, 16).ok()?;
        }
        Some(Identity { secret: SecretKey::from_bytes(&bytes) })
    }

    /// A fresh identity that is not stored anywhere (for tests and tools).
    pub fn ephemeral() -> Identity {
        Identity { secret: SecretKey::generate() }
    }

    /// The endpoint id: this device's id.
    pub fn id(&self) -> EndpointId {
        self.secret.public()
    }

    /// The secret key, for the endpoint.
    pub fn secret(&self) -> &SecretKey {
        &self.secret
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_created_once_and_then_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("device.key");
        let created = Identity::load_or_create(&path).unwrap();
        let loaded = Identity::load_or_create(&path).unwrap();
        assert_eq!(created.id(), loaded.id());
        assert!(crate::platform::is_owner_only(&path).unwrap());
    }

    #[test]
    fn a_damaged_key_is_an_error_not_a_new_identity() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("device.key");
        std::fs::write(&path, "something else").unwrap();
        let error = Identity::load_or_create(&path).unwrap_err();
        assert!(matches!(error, IdentityError::Malformed { .. }), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "something else");
    }
}
