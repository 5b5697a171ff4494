//! The node's local socket, on every platform: a Unix domain socket at the
//! home's socket path on Unix, a named pipe on Windows
//! (`\\.\pipe\ferrex-<hash of that path>`), both through tokio. Only the
//! user who owns the home can reach it: the socket is mode 0600 inside a
//! 0700 home; the pipe refuses remote clients and keeps Windows' default
//! access list (its creator, SYSTEM and Administrators may write to it).

use std::{io, path::Path};

#[cfg(unix)]
mod imp {
    use std::{io, path::Path};

    use tokio::net::{UnixListener, UnixStream};

    /// A connection to or from the node.
    pub type Stream = UnixStream;

    /// The node's end: accepts connections.
    #[derive(Debug)]
    pub struct Listener(UnixListener);

    pub async fn connect(path: &Path) -> io::Result<Stream> {
        UnixStream::connect(path).await
    }

    pub fn listen(path: &Path) -> io::Result<Listener> {
        let listener = UnixListener::bind(path)?;
        ferrex_sync::platform::restrict_to_owner(path)?;
        Ok(Listener(listener))
    }

    impl Listener {
        pub async fn accept(&mut self) -> io::Result<Stream> {
            Ok(self.0.accept().await?.0)
        }
    }

    /// A socket file left by a node that is gone; the pipe of one that
    /// is gone is gone with it.
    pub fn remove_stale(path: &Path) -> io::Result<bool> {
        match std::fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(error) => Err(error),
        }
    }
}

#[cfg(windows)]
mod imp {
    use std::{
        io,
        path::Path,
        pin::Pin,
        task::{Context, Poll},
        time::Duration,
    };

    use tokio::{
        io::{AsyncRead, AsyncWrite, ReadBuf},
        net::windows::named_pipe::{
            ClientOptions, NamedPipeClient, NamedPipeServer, ServerOptions,
        },
    };

    /// `ERROR_PIPE_BUSY`: every instance of the pipe is taken for now.
    const ERROR_PIPE_BUSY: i32 = 231;

    /// The pipe of the node whose socket path is `path`.
    fn pipe_name(path: &Path) -> String {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(path.as_os_str().as_encoded_bytes());
        format!(r"\\.\pipe\ferrex-{}", hex::encode(&digest[..16]))
    }

    /// A connection to the node (a client) or from an agent (the node's
    /// server instance).
    #[derive(Debug)]
    pub enum Stream {
        Client(NamedPipeClient),
        Server(NamedPipeServer),
    }

    /// The node's end: one server instance waiting for the next client.
    #[derive(Debug)]
    pub struct Listener {
        name: String,
        next: NamedPipeServer,
    }

    pub async fn connect(path: &Path) -> io::Result<Stream> {
        let name = pipe_name(path);
        // Every instance busy: another client is connecting right now, and
        // the node opens the next instance as soon as it accepts it.
        for _ in 0..200 {
            match ClientOptions::new().open(&name) {
                Ok(client) => return Ok(Stream::Client(client)),
                Err(error) if error.raw_os_error() == Some(ERROR_PIPE_BUSY) => {
                    tokio::time::sleep(Duration::from_millis(25)).await;
                }
                Err(error) => return Err(error),
            }
        }
        Err(io::Error::new(io::ErrorKind::TimedOut, "the node's pipe stayed busy for 5 s"))
    }

    pub fn listen(path: &Path) -> io::Result<Listener> {
        let name = pipe_name(path);
        // The first instance: creating it fails if anyone else holds the
        // name, so no other process can stand in for the node.
        let next = ServerOptions::new()
            .first_pipe_instance(true)
            .reject_remote_clients(true)
            .create(&name)?;
        Ok(Listener { name, next })
    }

    impl Listener {
        pub async fn accept(&mut self) -> io::Result<Stream> {
            self.next.connect().await?;
            let fresh = ServerOptions::new().reject_remote_clients(true).create(&self.name)?;
            Ok(Stream::Server(std::mem::replace(&mut self.next, fresh)))
        }
    }

    pub fn remove_stale(_path: &Path) -> io::Result<bool> {
        Ok(false)
    }

    macro_rules! both {
        ($self:ident, $stream:ident => $call:expr) => {
            match $self.get_mut() {
                Stream::Client($stream) => $call,
                Stream::Server($stream) => $call,
            }
        };
    }

    impl AsyncRead for Stream {
        fn poll_read(
            self: Pin<&mut Self>,
            context: &mut Context<'_>,
            buffer: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            both!(self, stream => Pin::new(stream).poll_read(context, buffer))
        }
    }

    impl AsyncWrite for Stream {
        fn poll_write(
            self: Pin<&mut Self>,
            context: &mut Context<'_>,
            bytes: &[u8],
        ) -> Poll<io::Result<usize>> {
            both!(self, stream => Pin::new(stream).poll_write(context, bytes))
        }

        fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
            both!(self, stream => Pin::new(stream).poll_flush(context))
        }

        fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
            both!(self, stream => Pin::new(stream).poll_shutdown(context))
        }
    }
}

pub use imp::{Listener, Stream};

/// Whether a pipe can tell its other end "no more from me" while still
/// reading (a Unix socket's half-close). A named pipe cannot: a client that
/// is done closes it whole once the answers have come.
pub const HALF_CLOSE: bool = cfg!(unix);

/// Connects to the node listening at `path`.
pub async fn connect(path: &Path) -> io::Result<Stream> {
    imp::connect(path).await
}

/// Listens at `path`, reachable by this user only.
pub fn listen(path: &Path) -> io::Result<Listener> {
    imp::listen(path)
}

/// Removes what a stopped node left at `path` (called with the home's lock
/// held, so no node is listening there); whether there was anything.
pub fn remove_stale(path: &Path) -> io::Result<bool> {
    imp::remove_stale(path)
}

/// Whether `error`, from [`connect`], means no node is listening.
pub fn is_not_running(error: &io::Error) -> bool {
    matches!(error.kind(), io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn a_client_reaches_the_listener_and_a_half_close_ends_its_input() {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join("test.sock");
        assert!(is_not_running(&connect(&path).await.unwrap_err()));
        let mut listener = listen(&path).unwrap();
        assert!(ferrex_sync::platform::is_owner_only(&path).unwrap());
        let server = tokio::spawn(async move {
            let mut stream = listener.accept().await.unwrap();
            let mut heard = Vec::new();
            stream.read_to_end(&mut heard).await.unwrap();
            stream.write_all(&heard).await.unwrap();
        });
        let mut client = connect(&path).await.unwrap();
        client.write_all(b"hello").await.unwrap();
        client.shutdown().await.unwrap();
        let mut echoed = Vec::new();
        client.read_to_end(&mut echoed).await.unwrap();
        assert_eq!(echoed, b"hello");
        server.await.unwrap();
        assert!(remove_stale(&path).unwrap());
        assert!(!remove_stale(&path).unwrap());
    }
}
