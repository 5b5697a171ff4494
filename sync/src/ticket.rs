//! Pairing tickets: the one line `ferrex invite` prints and `ferrex join`
//! takes. A ticket holds the inviting device's address (its endpoint id and
//! direct addresses), a random one-time secret, when it expires, and the
//! inviter's name.

use std::{fmt, str::FromStr};

use ferrex_core::Timestamp;
use iroh::EndpointAddr;
use iroh_tickets::{ParseError, Ticket};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::membership::{Role, ShareId};

/// Version of the ticket's byte layout.
const TICKET_VERSION: u8 = 1;

/// An invitation to pair with a device.
#[derive(Clone, PartialEq, Eq)]
pub struct PairingTicket {
    /// Where the inviting device listens.
    pub addr: EndpointAddr,
    /// The one-time secret the joiner proves it has.
    pub secret: [u8; 32],
    /// When the invitation stops being accepted.
    pub expires_at: Timestamp,
    /// The inviting device's name.
    pub name: String,
}

impl fmt::Debug for PairingTicket {
    // The secret stays out of logs.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("PairingTicket")
            .field("id", &self.addr.id.fmt_short().to_string())
            .field("addrs", &self.addr.addrs)
            .field("expires_at", &self.expires_at)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A ticket's bytes as its wire form, whose first field is the version.
fn decode_wire<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ParseError> {
    if bytes.first() != Some(&TICKET_VERSION) {
        return Err(ParseError::verification_failed(
            "unknown ticket version (made by a newer ferrex?)",
        ));
    }
    Ok(postcard::from_bytes(bytes)?)
}

#[derive(Serialize, Deserialize)]
struct Wire {
    version: u8,
    addr: EndpointAddr,
    secret: [u8; 32],
    expires_at: i64,
    name: String,
}

impl Ticket for PairingTicket {
    const KIND: &'static str = "ferrex";

    fn encode_bytes(&self) -> Vec<u8> {
        let wire = Wire {
            version: TICKET_VERSION,
            addr: self.addr.clone(),
            secret: self.secret,
            expires_at: self.expires_at.0,
            name: self.name.clone(),
        };
        postcard::to_stdvec(&wire).unwrap_or_default()
    }

    fn decode_bytes(bytes: &[u8]) -> Result<Self, ParseError> {
        let wire: Wire = decode_wire(bytes)?;
        Ok(PairingTicket {
            addr: wire.addr,
            secret: wire.secret,
            expires_at: Timestamp(wire.expires_at),
            name: wire.name,
        })
    }
}

impl fmt::Display for PairingTicket {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.encode_string())
    }
}

/// An invitation to a shared project: what `ferrex share PROJECT` prints
/// and `ferrex join` takes. Besides the inviting device's address, a
/// one-time secret and its expiry, it names the share, the project and
/// the role, for the joiner to see before joining; the inviting device
/// grants only what it recorded for the secret, whatever the ticket says.
#[derive(Clone, PartialEq, Eq)]
pub struct ShareTicket {
    /// Where the inviting device listens.
    pub addr: EndpointAddr,
    /// The share's id.
    pub share: ShareId,
    /// The project shared (its namespace).
    pub project: String,
    /// The role offered.
    pub role: Role,
    /// The one-time secret the joiner proves it has.
    pub secret: [u8; 32],
    /// When the invitation stops being accepted.
    pub expires_at: Timestamp,
    /// The inviting device's name.
    pub name: String,
}

impl fmt::Debug for ShareTicket {
    // The secret stays out of logs.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("ShareTicket")
            .field("id", &self.addr.id.fmt_short().to_string())
            .field("share", &self.share.to_hex())
            .field("project", &self.project)
            .field("role", &self.role)
            .field("expires_at", &self.expires_at)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize, Deserialize)]
struct ShareWire {
    version: u8,
    addr: EndpointAddr,
    share: ShareId,
    project: String,
    role: Role,
    secret: [u8; 32],
    expires_at: i64,
    name: String,
}

impl Ticket for ShareTicket {
    // A pairing ticket's line goes on with the base32 of its version byte
    // (1, so "a"): "ferrexshare" is never the start of one.
    const KIND: &'static str = "ferrexshare";

    fn encode_bytes(&self) -> Vec<u8> {
        let wire = ShareWire {
            version: TICKET_VERSION,
            addr: self.addr.clone(),
            share: self.share,
            project: self.project.clone(),
            role: self.role,
            secret: self.secret,
            expires_at: self.expires_at.0,
            name: self.name.clone(),
        };
        postcard::to_stdvec(&wire).unwrap_or_default()
    }

    fn decode_bytes(bytes: &[u8]) -> Result<Self, ParseError> {
        let wire: ShareWire = decode_wire(bytes)?;
        Ok(ShareTicket {
            addr: wire.addr,
            share: wire.share,
            project: wire.project,
            role: wire.role,
            secret: wire.secret,
            expires_at: Timestamp(wire.expires_at),
            name: wire.name,
        })
    }
}

impl fmt::Display for ShareTicket {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.encode_string())
    }
}

/// A string that is not a ticket to a shared project.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("this is not a ferrex share ticket ({0}); copy the whole line `ferrex share` printed")]
pub struct BadShareTicket(String);

impl FromStr for ShareTicket {
    type Err = BadShareTicket;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim().to_ascii_lowercase();
        if !text.starts_with(Self::KIND) {
            return Err(BadShareTicket(
                "it does not start with \"ferrexshare\" (a pairing ticket starts with \"ferrex\" alone)"
                    .into(),
            ));
        }
        Self::decode_string(&text).map_err(|error| BadShareTicket(error.to_string()))
    }
}

/// Whether `text` is a share's ticket rather than a pairing's: `ferrex
/// join` takes both.
pub fn is_share_ticket(text: &str) -> bool {
    text.trim().to_ascii_lowercase().starts_with(ShareTicket::KIND)
}

/// A string that is not a ferrex ticket.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("this is not a ferrex pairing ticket ({0}); copy the whole line `ferrex invite` printed")]
pub struct BadTicket(String);

impl FromStr for PairingTicket {
    type Err = BadTicket;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if !text.starts_with(Self::KIND) {
            return Err(BadTicket("it does not start with \"ferrex\"".into()));
        }
        if is_share_ticket(text) {
            return Err(BadTicket(
                "it invites to a shared project, not to pair; `ferrex join` takes it as such"
                    .into(),
            ));
        }
        Self::decode_string(&text.to_ascii_lowercase())
            .map_err(|error| BadTicket(error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use iroh::SecretKey;

    use super::*;

    fn ticket() -> PairingTicket {
        PairingTicket {
            addr: EndpointAddr::new(SecretKey::generate().public())
                .with_ip_addr("127.0.0.1:4433".parse().unwrap()),
            secret: [7; 32],
            expires_at: Timestamp(1_700_000_000_000),
            name: "home-server".into(),
        }
    }

    #[test]
    fn a_ticket_round_trips_through_its_line() {
        let ticket = ticket();
        let line = ticket.to_string();
        assert!(line.starts_with("ferrex"), "{line}");
        assert!(!line.contains(char::is_whitespace));
        assert_eq!(line.parse::<PairingTicket>().unwrap(), ticket);
        assert_eq!(format!("  {line}\n").parse::<PairingTicket>().unwrap(), ticket);
    }

    #[test]
    fn malformed_tickets_are_refused_with_a_reason() {
        let line = ticket().to_string();
        for bad in ["", "hello", "ferrex", "ferrex!!!!", &line[..line.len() - 9], "endpointabc"] {
            let error = bad.parse::<PairingTicket>().unwrap_err();
            assert!(error.to_string().contains("not a ferrex pairing ticket"), "{bad}: {error}");
        }
    }

    #[test]
    fn the_secret_is_not_in_debug_output() {
        assert!(!format!("{:?}", ticket()).contains("7, 7"));
        assert!(!format!("{:?}", share_ticket()).contains("7, 7"));
    }

    fn share_ticket() -> ShareTicket {
        let pairing = ticket();
        ShareTicket {
            addr: pairing.addr,
            share: ShareId([3; 32]),
            project: "github.com/acme/api".into(),
            role: Role::Write,
            secret: [7; 32],
            expires_at: pairing.expires_at,
            name: pairing.name,
        }
    }

    #[test]
    fn a_share_ticket_round_trips_and_is_told_from_a_pairing_ticket() {
        let share = share_ticket();
        let line = share.to_string();
        assert!(line.starts_with("ferrexshare") && is_share_ticket(&line), "{line}");
        assert_eq!(format!(" {line}\n").parse::<ShareTicket>().unwrap(), share);
        assert_eq!(line.to_ascii_uppercase().parse::<ShareTicket>().unwrap(), share);
        let pairing = ticket().to_string();
        assert!(!is_share_ticket(&pairing), "{pairing}");
        let error = line.parse::<PairingTicket>().unwrap_err().to_string();
        assert!(error.contains("shared project"), "{error}");
        let error = pairing.parse::<ShareTicket>().unwrap_err().to_string();
        assert!(error.contains("pairing ticket"), "{error}");
        for bad in ["", "ferrexshare", &line[..line.len() - 9]] {
            assert!(bad.parse::<ShareTicket>().is_err(), "{bad}");
        }
    }
}
