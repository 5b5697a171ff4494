//! Vectors between devices: `ferrex/vectors/1`.
//!
//! Vectors are derived from memories' texts and never enter the documents:
//! every node computes its own. A device that joins a group holding 100k
//! memories would spend about twenty minutes embedding them; a paired
//! device running the same model (the same [profile](VectorSource::profile):
//! model id and the sha256 of every file it is built from) can send the
//! vectors it already has. The receiver asks for a batch of memories it has
//! no vector for, naming each one's content hash; the peer answers with the
//! vectors it holds for exactly that text, or says it runs another model or
//! shares none. What the receiver trusts is its own business (the node
//! embeds a sample itself and compares); this module only carries them.
//!
//! A connection of this protocol is gated like sync: a device that is not
//! paired is refused right after the handshake. Requests and answers are
//! frames of [`crate::wire`] on one bidirectional stream; the asker sends a
//! request, reads its answer, and may send the next.

use std::{sync::Arc, time::Duration};

use iroh::endpoint::{Connection, RecvStream, SendStream};
use iroh::protocol::{AcceptError, ProtocolHandler};
use serde::{Deserialize, Serialize};

use crate::wire::{WireError, read_frame, write_frame};

/// ALPN of the vector protocol.
pub const VECTORS_ALPN: &[u8] = b"ferrex/vectors/1";
/// Most memories one request may name.
pub const MAX_WANTED: usize = 512;
/// Largest request accepted: [`MAX_WANTED`] ids and hashes, and a profile.
const MAX_REQUEST_BYTES: usize = 256 << 10;
/// Largest answer accepted: [`MAX_WANTED`] memories of up to 32 vectors of
/// up to 1,024 floats would be 64 MB; real ones are far smaller.
const MAX_ANSWER_BYTES: usize = 96 << 20;
/// How long a connection may wait for its next request or answer.
const IDLE: Duration = Duration::from_secs(30);

/// A memory whose vectors are wanted: its id and the hash of its content
/// as the asker has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wanted {
    /// The memory's id.
    pub id: String,
    /// Its content hash (the index's `content_hash`).
    pub content_hash: String,
}

/// A request for the vectors of up to [`MAX_WANTED`] memories.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VectorRequest {
    /// The asker's profile; vectors of another model are useless to it.
    pub profile: String,
    /// The memories.
    pub wanted: Vec<Wanted>,
}

/// The vectors of one memory: its whole text's, then one per passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryVectors {
    /// The memory's id.
    pub id: String,
    /// The content hash they were computed from.
    pub content_hash: String,
    /// Whole text first, then the passages in order.
    pub vectors: Vec<Vec<f32>>,
}

/// The answer to a [`VectorRequest`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum VectorReply {
    /// The vectors held for the wanted memories with the wanted content;
    /// memories it has no complete vectors for are left out.
    Vectors(Vec<MemoryVectors>),
    /// This device runs another model: its profile.
    OtherModel(String),
    /// This device does not share vectors (or the request was malformed:
    /// the reason).
    Refused(String),
}

/// What a node shares: implemented by the node over its index.
pub trait VectorSource: Send + Sync + 'static {
    /// The model the vectors come from; `None` when sharing is off.
    fn profile(&self) -> Option<String>;
    /// The complete vectors held for `wanted` (each with exactly that
    /// content hash). Called on a blocking thread.
    fn vectors(&self, wanted: &[Wanted]) -> Vec<MemoryVectors>;
}

/// Answers requests of `ferrex/vectors/1` (only paired devices reach it).
#[derive(Clone)]
pub(crate) struct VectorProtocol(pub(crate) Option<Arc<dyn VectorSource>>);

impl std::fmt::Debug for VectorProtocol {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_tuple("VectorProtocol").field(&self.0.is_some()).finish()
    }
}

impl VectorProtocol {
    /// The answer to one request.
    async fn answer(&self, request: VectorRequest) -> VectorReply {
        let Some(source) = self.0.clone() else {
            return VectorReply::Refused("this device does not share vectors".into());
        };
        let Some(profile) = source.profile() else {
            return VectorReply::Refused("this device does not share vectors".into());
        };
        if request.profile != profile {
            return VectorReply::OtherModel(profile);
        }
        if request.wanted.len() > MAX_WANTED {
            return VectorReply::Refused(format!(
                "{} memories asked for; at most {MAX_WANTED} per request",
                request.wanted.len()
            ));
        }
        tokio::task::spawn_blocking(move || source.vectors(&request.wanted)).await.map_or_else(
            |_| VectorReply::Refused("reading vectors failed".into()),
            VectorReply::Vectors,
        )
    }
}

impl ProtocolHandler for VectorProtocol {
    async fn accept(&self, connection: Connection) -> Result<(), AcceptError> {
        let Ok(Ok((mut send, mut recv))) = tokio::time::timeout(IDLE, connection.accept_bi()).await
        else {
            return Ok(());
        };
        loop {
            let request = tokio::time::timeout(
                IDLE,
                read_frame::<VectorRequest>(&mut recv, MAX_REQUEST_BYTES),
            )
            .await;
            let request = match request {
                Ok(Ok(Some((request, _)))) => request,
                Ok(Ok(None)) | Err(_) => break,
                Ok(Err(error)) => {
                    tracing::debug!(
                        peer = %connection.remote_id().fmt_short(),
                        "a bad vector request: {error}"
                    );
                    break;
                }
            };
            let reply = self.answer(request).await;
            if write_frame(&mut send, &reply).await.is_err() {
                break;
            }
        }
        let _ = send.finish();
        Ok(())
    }
}

/// An open exchange with one peer.
#[derive(Debug)]
pub struct VectorClient {
    connection: Connection,
    send: SendStream,
    recv: RecvStream,
}

impl VectorClient {
    pub(crate) async fn open(connection: Connection) -> Result<VectorClient, WireError> {
        let (send, recv) = tokio::time::timeout(IDLE, connection.open_bi())
            .await
            .map_err(|_| WireError::Stream("no stream".into()))?
            .map_err(|error| WireError::Stream(error.to_string()))?;
        Ok(VectorClient { connection, send, recv })
    }

    /// Sends `request` and reads its answer.
    pub async fn request(&mut self, request: &VectorRequest) -> Result<VectorReply, WireError> {
        write_frame(&mut self.send, request).await?;
        match tokio::time::timeout(IDLE, read_frame(&mut self.recv, MAX_ANSWER_BYTES)).await {
            Ok(Ok(Some((reply, _)))) => Ok(reply),
            Ok(Ok(None)) => Err(WireError::Stream("the peer closed the stream".into())),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(WireError::Stream(format!("no answer within {} s", IDLE.as_secs()))),
        }
    }

    /// Ends the exchange.
    pub fn close(mut self) {
        let _ = self.send.finish();
        self.connection.close(0u32.into(), b"done");
    }
}
