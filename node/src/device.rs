//! This device's identity: its id (recorded as the author of its writes) and
//! its name.

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::home::Home;

/// Who this node is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    /// Stable id of this device.
    pub id: String,
}

impl Device {
    /// Loads the device of `home`, creating it on first use.
    pub fn load_or_create(home: &Home) -> anyhow::Result<Device> {
        let path = home.device_file();
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                toml::from_str(&text).with_context(|| format!("reading {}", path.display()))
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let device = Device { id: uuid::Uuid::new_v4().simple().to_string() };
                let text = toml::to_string(&device)?;
                std::fs::write(&path, text)
                    .with_context(|| format!("writing {}", path.display()))?;
                Ok(device)
            }
            Err(error) => Err(error).with_context(|| format!("reading {}", path.display())),
        }
    }
}
