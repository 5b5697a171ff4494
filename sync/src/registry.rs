//! The registry document: which devices are paired, what each is called and
//! where it listens, and which were revoked. It is replicated like every
//! other document, so a device that pairs with one device learns them all.
//!
//! ```text
//! devices:  { <id>: { name, addrs, updated_at } }        written only by device <id> itself
//! pairings: { <inviter>|<joiner>: { inviter, joiner, inviter_name, joiner_name,
//!                                   inviter_addrs, joiner_addrs, at } }   add-only
//! revoked:  { <id>: { at, by } }                         add-only, never undone
//! ```
//!
//! Each device entry is created and written by its own device only, so two
//! devices never create the same map concurrently. A pairing is written by
//! both of its ends (each needs it at once, to let the other in); the two
//! writes describe the same pairing, so whichever Automerge keeps is right.

use std::{
    collections::{BTreeMap, BTreeSet},
    net::SocketAddr,
};

use automerge::{AutoCommit, AutomergeError, ObjType, ScalarValue, transaction::Transactable};
use ferrex_core::Timestamp;

use crate::{
    ChangedKeys, DocId, ReplicaError,
    replica::{Replica, lock},
    schema::{MapView, Roots},
};

/// A device as it describes itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRecord {
    /// Endpoint id (hex).
    pub id: String,
    /// Name shown to people.
    pub name: String,
    /// Direct addresses it listens on.
    pub addrs: Vec<SocketAddr>,
    /// When it last updated this record.
    pub updated_at: Timestamp,
}

/// The record that two devices paired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairing {
    /// The device that printed the ticket.
    pub inviter: String,
    /// The device that joined with it.
    pub joiner: String,
    /// The inviter's name at the time.
    pub inviter_name: String,
    /// The joiner's name at the time.
    pub joiner_name: String,
    /// The inviter's addresses at the time.
    pub inviter_addrs: Vec<SocketAddr>,
    /// The joiner's addresses at the time.
    pub joiner_addrs: Vec<SocketAddr>,
    /// When they paired.
    pub at: Timestamp,
}

impl Pairing {
    /// The document key of the pairing.
    pub fn key(&self) -> String {
        format!("{}|{}", self.inviter, self.joiner)
    }
}

/// The record that a device was removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revocation {
    /// The removed device.
    pub id: String,
    /// When.
    pub at: Timestamp,
    /// By which device.
    pub by: String,
}

/// Everything the registry says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registry {
    /// Device records by id.
    pub devices: BTreeMap<String, DeviceRecord>,
    /// Every pairing, by key.
    pub pairings: BTreeMap<String, Pairing>,
    /// Revocations by device id.
    pub revoked: BTreeMap<String, Revocation>,
}

impl Registry {
    /// Every device that is part of a pairing and not revoked (this device
    /// included, once it has paired).
    pub fn paired(&self) -> BTreeSet<String> {
        self.pairings
            .values()
            .flat_map(|pairing| [pairing.inviter.clone(), pairing.joiner.clone()])
            .filter(|id| !self.revoked.contains_key(id))
            .collect()
    }

    /// Whether `id` may exchange data with this group of devices.
    pub fn is_paired(&self, id: &str) -> bool {
        !self.is_revoked(id)
            && self.pairings.values().any(|pairing| pairing.inviter == id || pairing.joiner == id)
    }

    /// Whether `id` was ever paired (removed since, or not): one of this
    /// person's devices, now or once.
    pub fn ever_paired(&self, id: &str) -> bool {
        self.pairings.values().any(|pairing| pairing.inviter == id || pairing.joiner == id)
    }

    /// Whether `id` was removed.
    pub fn is_revoked(&self, id: &str) -> bool {
        self.revoked.contains_key(id)
    }

    /// The name of `id`: its own record's, else the one given when it paired.
    pub fn name_of(&self, id: &str) -> Option<String> {
        if let Some(device) = self.devices.get(id) {
            return Some(device.name.clone());
        }
        self.pairings.values().find_map(|pairing| {
            if pairing.inviter == id {
                Some(pairing.inviter_name.clone())
            } else if pairing.joiner == id {
                Some(pairing.joiner_name.clone())
            } else {
                None
            }
        })
    }

    /// Where `id` may be reached: its own record's addresses first, then the
    /// ones known when it paired.
    pub fn addrs_of(&self, id: &str) -> Vec<SocketAddr> {
        let mut addrs: Vec<SocketAddr> =
            self.devices.get(id).map(|device| device.addrs.clone()).unwrap_or_default();
        for pairing in self.pairings.values() {
            let more = if pairing.inviter == id {
                &pairing.inviter_addrs
            } else if pairing.joiner == id {
                &pairing.joiner_addrs
            } else {
                continue;
            };
            for addr in more {
                if !addrs.contains(addr) {
                    addrs.push(*addr);
                }
            }
        }
        addrs
    }
}

pub(crate) fn read(doc: &AutoCommit, roots: &Roots) -> Registry {
    let mut registry = Registry::default();
    let devices = MapView::new(doc, roots.get("devices").clone());
    for id in devices.keys() {
        let Some(view) = devices.map(&id) else { continue };
        registry.devices.insert(
            id.clone(),
            DeviceRecord {
                name: view.string("name").unwrap_or_default(),
                addrs: view.string("addrs").map(|text| decode_addrs(&text)).unwrap_or_default(),
                updated_at: Timestamp(view.int("updated_at").unwrap_or(0)),
                id,
            },
        );
    }
    let pairings = MapView::new(doc, roots.get("pairings").clone());
    for key in pairings.keys() {
        let Some(view) = pairings.map(&key) else { continue };
        let (Some(inviter), Some(joiner)) = (view.string("inviter"), view.string("joiner")) else {
            continue;
        };
        let addrs = |field: &str| view.string(field).map(|text| decode_addrs(&text));
        registry.pairings.insert(
            key,
            Pairing {
                inviter,
                joiner,
                inviter_name: view.string("inviter_name").unwrap_or_default(),
                joiner_name: view.string("joiner_name").unwrap_or_default(),
                inviter_addrs: addrs("inviter_addrs").unwrap_or_default(),
                joiner_addrs: addrs("joiner_addrs").unwrap_or_default(),
                at: Timestamp(view.int("at").unwrap_or(0)),
            },
        );
    }
    let revoked = MapView::new(doc, roots.get("revoked").clone());
    for id in revoked.keys() {
        let Some(view) = revoked.map(&id) else { continue };
        registry.revoked.insert(
            id.clone(),
            Revocation {
                at: Timestamp(view.int("at").unwrap_or(0)),
                by: view.string("by").unwrap_or_default(),
                id,
            },
        );
    }
    registry
}

/// Writes this device's own record; false when it already says the same.
pub(crate) fn put_device(
    doc: &mut AutoCommit,
    roots: &Roots,
    record: &DeviceRecord,
) -> Result<bool, AutomergeError> {
    let devices = roots.get("devices");
    let existing = MapView::new(doc, devices.clone()).map(&record.id);
    let addrs = encode_addrs(&record.addrs);
    if let Some(view) = &existing
        && view.string("name").as_deref() == Some(record.name.as_str())
        && view.string("addrs").as_deref() == Some(addrs.as_str())
    {
        return Ok(false);
    }
    let object = match existing {
        Some(view) => view.object(),
        None => doc.put_object(devices, &record.id, ObjType::Map)?,
    };
    doc.put(&object, "name", record.name.as_str())?;
    doc.put(&object, "addrs", addrs)?;
    doc.put(&object, "updated_at", ScalarValue::Timestamp(record.updated_at.0))?;
    Ok(true)
}

/// Records a pairing; false when it is already there.
pub(crate) fn put_pairing(
    doc: &mut AutoCommit,
    roots: &Roots,
    pairing: &Pairing,
) -> Result<bool, AutomergeError> {
    let pairings = roots.get("pairings");
    if MapView::new(doc, pairings.clone()).map(&pairing.key()).is_some() {
        return Ok(false);
    }
    let object = doc.put_object(pairings, pairing.key(), ObjType::Map)?;
    doc.put(&object, "inviter", pairing.inviter.as_str())?;
    doc.put(&object, "joiner", pairing.joiner.as_str())?;
    doc.put(&object, "inviter_name", pairing.inviter_name.as_str())?;
    doc.put(&object, "joiner_name", pairing.joiner_name.as_str())?;
    doc.put(&object, "inviter_addrs", encode_addrs(&pairing.inviter_addrs))?;
    doc.put(&object, "joiner_addrs", encode_addrs(&pairing.joiner_addrs))?;
    doc.put(&object, "at", ScalarValue::Timestamp(pairing.at.0))?;
    Ok(true)
}

/// Records a revocation; false when the device was revoked already.
pub(crate) fn put_revocation(
    doc: &mut AutoCommit,
    roots: &Roots,
    revocation: &Revocation,
) -> Result<bool, AutomergeError> {
    let revoked = roots.get("revoked");
    if MapView::new(doc, revoked.clone()).map(&revocation.id).is_some() {
        return Ok(false);
    }
    let object = doc.put_object(revoked, &revocation.id, ObjType::Map)?;
    doc.put(&object, "at", ScalarValue::Timestamp(revocation.at.0))?;
    doc.put(&object, "by", revocation.by.as_str())?;
    Ok(true)
}

fn encode_addrs(addrs: &[SocketAddr]) -> String {
    addrs.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

fn decode_addrs(text: &str) -> Vec<SocketAddr> {
    text.split(',').filter_map(|part| part.trim().parse().ok()).collect()
}

impl Replica {
    /// Everything the registry says now.
    pub fn registry(&self) -> Registry {
        match self.document(&DocId::Registry) {
            Ok(document) => {
                let document = lock(&document);
                read(&document.doc, &document.roots)
            }
            Err(_) => Registry::default(),
        }
    }

    /// Writes this device's own record (name and addresses) unless the
    /// registry already says the same; true when it wrote.
    pub fn put_own_device(
        &self,
        record: &DeviceRecord,
        now: Timestamp,
    ) -> Result<bool, ReplicaError> {
        self.write_registry(now, |doc, roots, keys| {
            let wrote = put_device(doc, roots, record)?;
            if wrote {
                keys.devices.insert(record.id.clone());
            }
            Ok(wrote)
        })
    }

    /// Records a pairing; true when it was new.
    pub fn add_pairing(&self, pairing: &Pairing, now: Timestamp) -> Result<bool, ReplicaError> {
        self.write_registry(now, |doc, roots, keys| {
            let wrote = put_pairing(doc, roots, pairing)?;
            if wrote {
                keys.pairings.insert(pairing.key());
            }
            Ok(wrote)
        })
    }

    /// Revokes a device for good; true when it was not revoked before.
    pub fn revoke(&self, revocation: &Revocation, now: Timestamp) -> Result<bool, ReplicaError> {
        self.write_registry(now, |doc, roots, keys| {
            let wrote = put_revocation(doc, roots, revocation)?;
            if wrote {
                keys.revoked.insert(revocation.id.clone());
            }
            Ok(wrote)
        })
    }

    fn write_registry(
        &self,
        now: Timestamp,
        write: impl FnOnce(&mut AutoCommit, &Roots, &mut ChangedKeys) -> Result<bool, AutomergeError>,
    ) -> Result<bool, ReplicaError> {
        let document = self.document(&DocId::Registry)?;
        let (wrote, _) = lock(&document).write(now, write)?;
        if wrote {
            self.announce(&DocId::Registry);
        }
        Ok(wrote)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairing(inviter: &str, joiner: &str) -> Pairing {
        Pairing {
            inviter: inviter.into(),
            joiner: joiner.into(),
            inviter_name: format!("{inviter}-name"),
            joiner_name: format!("{joiner}-name"),
            inviter_addrs: vec!["127.0.0.1:1".parse().unwrap()],
            joiner_addrs: vec!["127.0.0.1:2".parse().unwrap()],
            at: Timestamp(1),
        }
    }

    #[test]
    fn paired_devices_are_the_ends_of_pairings_minus_the_revoked() {
        let mut registry = Registry::default();
        for pairing in [pairing("server", "laptop"), pairing("server", "desktop")] {
            registry.pairings.insert(pairing.key(), pairing);
        }
        assert_eq!(
            registry.paired(),
            BTreeSet::from(["desktop", "laptop", "server"].map(String::from))
        );
        registry.revoked.insert(
            "desktop".into(),
            Revocation { id: "desktop".into(), at: Timestamp(2), by: "laptop".into() },
        );
        assert!(!registry.is_paired("desktop"));
        assert!(registry.is_paired("laptop"));
        assert!(!registry.is_paired("stranger"));
        assert_eq!(registry.name_of("laptop").as_deref(), Some("laptop-name"));
        assert_eq!(registry.addrs_of("server"), vec!["127.0.0.1:1".parse().unwrap()]);
    }

    #[test]
    fn addresses_round_trip_and_bad_ones_are_skipped() {
        let addrs: Vec<SocketAddr> =
            vec!["127.0.0.1:4000".parse().unwrap(), "[::1]:5000".parse().unwrap()];
        assert_eq!(decode_addrs(&encode_addrs(&addrs)), addrs);
        assert_eq!(decode_addrs("nonsense,127.0.0.1:1"), vec!["127.0.0.1:1".parse().unwrap()]);
        assert!(decode_addrs("").is_empty());
    }
}
