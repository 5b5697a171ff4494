//! This device: its identity (a secret key in the home, whose public half is
//! the id its writes are recorded under and peers know it by) and its name.

use anyhow::Context;
use ferrex_sync::Identity;

use crate::{base::config::Config, base::home::Home};

/// Who this node is.
#[derive(Debug, Clone)]
pub struct Device {
    /// The key pair behind the id.
    pub identity: Identity,
    /// The endpoint id, in hex: the device's id.
    pub id: String,
    /// The name shown to peers.
    pub name: String,
}

impl Device {
    /// Loads the device of `home`, creating its key on first use.
    pub fn load_or_create(home: &Home, config: &Config) -> anyhow::Result<Device> {
        let path = home.key_file();
        let identity = Identity::load_or_create(&path)
            .with_context(|| format!("loading this device's identity from {}", path.display()))?;
        let name = config.name.clone().unwrap_or_else(host_name);
        Ok(Device { id: identity.id().to_string(), identity, name })
    }
}

/// The machine's host name, the default device name.
pub fn host_name() -> String {
    let name = gethostname::gethostname();
    let name: String =
        name.to_string_lossy().trim().chars().filter(|c| !c.is_control()).take(64).collect();
    if name.is_empty() { "ferrex".to_owned() } else { name }
}
