//! What travels between devices: length-prefixed postcard frames on QUIC
//! streams, for the two protocols ferrex speaks.
//!
//! - `ferrex/pair/1`: the joiner sends one [`JoinRequest`], the inviter
//!   answers one [`JoinReply`].
//! - `ferrex/sync/2`: both sides send [`Frame`]s on one bidirectional stream
//!   for as long as the connection lives: Automerge sync messages, the keys
//!   of sealed records, status requests.
//! - `ferrex/sync/1` (documents of format 1) is only answered by closing the
//!   connection with [`OLD_PEER_REASON`].
//!
//! A frame is `len: u32 big-endian | postcard(value)`. The version is in the
//! ALPN: a change to these types gets a new ALPN, so devices never misread
//! each other.

use iroh::endpoint::{RecvStream, SendStream};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::{
    membership::{Role, ShareId},
    pairing::Refusal,
};

/// ALPN of the pairing protocol.
pub const PAIR_ALPN: &[u8] = b"ferrex/pair/1";
/// ALPN of the sync protocol: version 2, of sealed documents (format 2).
pub const SYNC_ALPN: &[u8] = b"ferrex/sync/2";
/// ALPN of version 1 of the sync protocol (documents of format 1). A node
/// answers it only to close the connection with [`OLD_PEER_REASON`].
pub const SYNC_ALPN_V1: &[u8] = b"ferrex/sync/1";
/// ALPN of the share protocol (docs/sharing.md): a joiner's preview and
/// join, and the exchange of a share's statements before a member's
/// session (or between a person's own devices, of every share).
pub const SHARE_ALPN: &[u8] = b"ferrex/share/1";
/// Why a node closes a connection of an older protocol version.
pub const OLD_PEER_REASON: &str = "this device runs ferrex with document format 2 \
    (forgotten memories are purged from every disk); upgrade ferrex on the other device: \
    it upgrades its documents on its next start and then syncs, nothing is lost";

/// Largest frame accepted. A whole-document sync message of a full shard
/// (10,000 memories) is about 1 MB; this leaves room for large memories.
pub const MAX_FRAME_BYTES: usize = 256 << 20;
/// Largest pairing message accepted.
pub const MAX_PAIR_BYTES: usize = 16 << 10;

/// Largest share-protocol message accepted: a share's statements (at most
/// 4,096 and 256 waiting, a few hundred bytes each: under 2 MB), and for
/// the person's devices every share's, for some dozens of full shares.
pub const MAX_SHARE_BYTES: usize = 64 << 20;
/// Largest share-protocol request accepted from a device that is not one of
/// the person's own: one share's statements, with room to spare.
pub const MAX_MEMBER_BYTES: usize = 4 << 20;

/// What a device opening a `ferrex/share/1` connection asks.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ShareRequest {
    /// What joining with a ticket would bring; the secret is checked, not
    /// used up.
    Preview {
        /// The share the ticket names.
        share: ShareId,
        /// The ticket's secret.
        secret: [u8; 32],
    },
    /// Join with a ticket: its secret, once.
    Join {
        /// The share the ticket names.
        share: ShareId,
        /// The ticket's secret.
        secret: [u8; 32],
        /// The joiner's device name.
        name: String,
        /// The joiner's direct addresses.
        addrs: Vec<std::net::SocketAddr>,
    },
    /// A member's exchange of a share's statements; a session of the
    /// share's documents follows on the same stream when both are members.
    Member {
        /// The share.
        share: ShareId,
        /// Every statement the asker holds.
        statements: Vec<Vec<u8>>,
        /// The asker's device name.
        name: String,
        /// The asker's direct addresses.
        addrs: Vec<std::net::SocketAddr>,
    },
    /// One of the person's own devices: every share it holds.
    Own {
        /// The shares.
        shares: Vec<OwnShare>,
    },
    /// One of the person's own devices, which takes part in `share`
    /// without a grant, asks for `admin` there to act (invite, remove); the
    /// answer is the answerer's shares (`ShareReply::Own`).
    GrantOwn {
        /// The share.
        share: ShareId,
    },
}

/// A share as a person's devices tell each other of it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OwnShare {
    /// The share.
    pub share: ShareId,
    /// The project it shares.
    pub project: String,
    /// Its statements.
    pub statements: Vec<Vec<u8>>,
    /// The members talked with: device (hex), name, addresses.
    pub contacts: Vec<(String, String, Vec<std::net::SocketAddr>)>,
}

/// What the device answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ShareReply {
    /// What joining brings.
    Preview {
        /// The project shared.
        project: String,
        /// The role the ticket gives.
        role: Role,
        /// Memories in the share now.
        memories: u64,
        /// The inviting device's name.
        name: String,
    },
    /// Joined: the share's statements (the joiner's grant among them).
    Joined {
        /// The project shared.
        project: String,
        /// Every statement the inviting device holds.
        statements: Vec<Vec<u8>>,
        /// The inviting device's name.
        name: String,
        /// Its direct addresses.
        addrs: Vec<std::net::SocketAddr>,
    },
    /// The answerer's statements; a session follows.
    Member {
        /// Every statement the answerer holds.
        statements: Vec<Vec<u8>>,
        /// Its device name.
        name: String,
        /// Its direct addresses.
        addrs: Vec<std::net::SocketAddr>,
    },
    /// The answering device's shares.
    Own {
        /// The shares.
        shares: Vec<OwnShare>,
    },
    /// Refused, and why.
    Refused(Refusal),
}

/// What a joining device sends.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JoinRequest {
    /// The ticket's secret.
    pub secret: [u8; 32],
    /// The joiner's device name.
    pub name: String,
    /// The joiner's direct addresses.
    pub addrs: Vec<std::net::SocketAddr>,
}

/// What the inviting device answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum JoinReply {
    /// Paired: the inviter's name and addresses, and when it recorded it.
    Accepted {
        /// The inviter's device name.
        name: String,
        /// The inviter's direct addresses.
        addrs: Vec<std::net::SocketAddr>,
        /// When the pairing was recorded (ms since the epoch).
        at: i64,
    },
    /// Refused, and why.
    Refused(Refusal),
}

/// One message of the sync protocol.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Frame {
    /// An Automerge sync message for document `doc`.
    Sync {
        /// The document id (`registry`, `ns.<namespace>.<n>`).
        doc: String,
        /// The encoded `automerge::sync::Message`.
        message: Vec<u8>,
    },
    /// A request for where the peer stands, with the asker's heads.
    StatusRequest {
        /// Echoed in the reply.
        id: u64,
        /// The asker's heads per document: `(document, heads in hex)`.
        heads: Vec<(String, Vec<String>)>,
    },
    /// A request for the keys of sealed records of document `doc` that the
    /// asker holds but cannot read.
    KeyRequest {
        /// The document id.
        doc: String,
        /// The records: their root map's number (see
        /// [`crate::SEALED_ROOTS`]) and key.
        records: Vec<(u8, String)>,
    },
    /// Keys of records of document `doc`, for live records only.
    Keys {
        /// The document id.
        doc: String,
        /// The keys (the receiver finds which record each one opens).
        keys: Vec<[u8; 32]>,
    },
    /// Where the replier stands, per document it has.
    StatusReply {
        /// The request's id.
        id: u64,
        /// Per document.
        docs: Vec<DocReport>,
    },
}

/// Where one device stands on one document, as it tells a peer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocReport {
    /// The document id.
    pub doc: String,
    /// Its heads (change hashes, hex).
    pub heads: Vec<String>,
    /// How many of its changes the asking peer lacks (by the heads it sent).
    pub missing: u64,
}

/// Why a frame could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The stream failed or was reset.
    #[error("stream error: {0}")]
    Stream(String),
    /// The peer sent something that is not a valid frame.
    #[error("malformed frame: {0}")]
    Malformed(String),
    /// The peer announced a frame larger than allowed.
    #[error("frame of {0} bytes is larger than allowed")]
    TooLarge(usize),
}

/// Writes one frame; returns the bytes written.
pub async fn write_frame<T: Serialize>(
    send: &mut SendStream,
    value: &T,
) -> Result<usize, WireError> {
    let payload =
        postcard::to_stdvec(value).map_err(|error| WireError::Malformed(error.to_string()))?;
    let mut bytes = Vec::with_capacity(4 + payload.len());
    bytes.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    bytes.extend_from_slice(&payload);
    send.write_all(&bytes).await.map_err(|error| WireError::Stream(error.to_string()))?;
    Ok(bytes.len())
}

/// Reads one frame of at most `max` bytes; `None` when the stream ended
/// cleanly between frames. Returns the value and the bytes read.
pub async fn read_frame<T: DeserializeOwned>(
    recv: &mut RecvStream,
    max: usize,
) -> Result<Option<(T, usize)>, WireError> {
    read_frame_from(recv, max).await
}

/// What a frame's payload grows by at most per read: memory follows the
/// bytes that arrived, not the length a peer announced.
const READ_CHUNK: usize = 64 << 10;

/// [`read_frame`] from any byte stream.
pub(crate) async fn read_frame_from<T: DeserializeOwned>(
    recv: &mut (impl tokio::io::AsyncRead + Unpin),
    max: usize,
) -> Result<Option<(T, usize)>, WireError> {
    use tokio::io::AsyncReadExt;
    let stream = |error: std::io::Error| WireError::Stream(error.to_string());
    let mut length = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match recv.read(&mut length[got..]).await.map_err(stream)? {
            0 if got == 0 => return Ok(None),
            0 => return Err(WireError::Stream("the stream ended inside a frame".into())),
            read => got += read,
        }
    }
    let length = u32::from_be_bytes(length) as usize;
    if length > max {
        return Err(WireError::TooLarge(length));
    }
    let mut payload = Vec::new();
    while payload.len() < length {
        let want = (length - payload.len()).min(READ_CHUNK);
        let at = payload.len();
        payload.resize(at + want, 0);
        let read = recv.read(&mut payload[at..]).await.map_err(stream)?;
        payload.truncate(at + read);
        if read == 0 {
            return Err(WireError::Stream("the stream ended inside a frame".into()));
        }
    }
    let value =
        postcard::from_bytes(&payload).map_err(|error| WireError::Malformed(error.to_string()))?;
    Ok(Some((value, 4 + length)))
}

#[cfg(test)]
mod tests {
    use std::{
        pin::Pin,
        task::{Context, Poll},
    };

    use super::*;

    /// A stream of `bytes` that notes the largest buffer it was asked to
    /// fill: what the reader had allocated for what had not arrived.
    struct Noting<'a> {
        bytes: &'a [u8],
        largest_ask: usize,
    }

    impl tokio::io::AsyncRead for Noting<'_> {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            self.largest_ask = self.largest_ask.max(buf.remaining());
            let take = buf.remaining().min(self.bytes.len()).min(1000);
            buf.put_slice(&self.bytes[..take]);
            self.bytes = &self.bytes[take..];
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn a_frame_announced_larger_than_sent_costs_what_was_sent_not_what_was_announced() {
        let mut bytes = (200u32 << 20).to_be_bytes().to_vec();
        bytes.extend_from_slice(&[7; 10]);
        // Past the cap: refused on the header alone.
        let mut stream = Noting { bytes: &bytes, largest_ask: 0 };
        let refused = read_frame_from::<Frame>(&mut stream, 16 << 20).await;
        assert!(matches!(refused, Err(WireError::TooLarge(length)) if length == 200 << 20));
        // Under a larger cap: the stream ends after 10 bytes, and no buffer
        // larger than one chunk was ever offered to it.
        let mut stream = Noting { bytes: &bytes, largest_ask: 0 };
        let ended = read_frame_from::<Frame>(&mut stream, MAX_FRAME_BYTES).await;
        assert!(matches!(ended, Err(WireError::Stream(_))), "{ended:?}");
        assert!(stream.largest_ask <= READ_CHUNK, "asked to fill {} bytes", stream.largest_ask);
    }

    #[tokio::test]
    async fn frames_read_whole_across_many_small_reads() {
        let frame = Frame::Sync { doc: "work.0".into(), message: vec![3; 200_000] };
        let payload = postcard::to_stdvec(&frame).unwrap();
        let mut bytes = (payload.len() as u32).to_be_bytes().to_vec();
        bytes.extend_from_slice(&payload);
        let mut stream = Noting { bytes: &bytes, largest_ask: 0 };
        let (read, length) =
            read_frame_from::<Frame>(&mut stream, MAX_FRAME_BYTES).await.unwrap().unwrap();
        assert_eq!(length, bytes.len());
        assert!(matches!(read, Frame::Sync { message, .. } if message.len() == 200_000));
        assert_eq!(
            read_frame_from::<Frame>(&mut stream, MAX_FRAME_BYTES).await.unwrap().map(|f| f.1),
            None
        );
    }
}
