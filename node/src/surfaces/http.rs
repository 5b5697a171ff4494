//! MCP over Streamable HTTP: the node's tools at `/mcp`, for agents on
//! machines without a node and clients that prefer HTTP servers.
//!
//! rmcp's `StreamableHttpService` speaks the protocol (stateless: every
//! POST is answered on its own, in JSON) and checks `Host` and `Origin`
//! (403: a web page elsewhere cannot reach a local server through DNS
//! rebinding) and the body's size (413). In front of it, in this order:
//! the bearer token (401), the request rate (429) and the requests served
//! at once (429). The token is 32 random bytes in hex, kept in the home's
//! `http.token` (mode 0600); `ferrex http token` shows it and `--rotate`
//! replaces it, taking effect on the next request. It is read for each
//! request and compared by digest, so neither its length nor its bytes
//! show in the time an answer takes.

use std::{
    io::Write,
    path::PathBuf,
    sync::{Arc, Mutex, PoisonError},
    time::Instant,
};

use anyhow::Context;
use axum::{
    extract::{Request, State},
    http::{HeaderValue, StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use ferrex_sync::platform;
use rmcp::transport::{
    StreamableHttpServerConfig, StreamableHttpService,
    streamable_http_server::session::never::NeverSessionManager,
};
use sha2::{Digest, Sha256};
use tokio::sync::{Semaphore, oneshot};

use crate::{base::config::HttpSettings, base::home::Home, surfaces::mcp::FerrexServer};
use ferrex_engine::engine::Engine;

/// The file holding the bearer token, in the home.
pub fn token_file(home: &Home) -> PathBuf {
    home.root().join("http.token")
}

/// The bearer token, created (and written with mode 0600) if there is none.
pub fn token(home: &Home) -> anyhow::Result<String> {
    let path = token_file(home);
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => Ok(text.trim().to_owned()),
        Ok(_) => rotate_token(home),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => rotate_token(home),
        Err(error) => Err(error).with_context(|| format!("reading {}", path.display())),
    }
}

/// Replaces the bearer token with a new random one and returns it.
pub fn rotate_token(home: &Home) -> anyhow::Result<String> {
    let path = token_file(home);
    let token = hex::encode(rand::random::<[u8; 32]>());
    // A name of its own (two writers never share it), created new its
    // owner's alone and restricted again (a umask or a leftover cannot
    // widen it).
    let temporary =
        path.with_extension(format!("token.{}", hex::encode(rand::random::<[u8; 8]>())));
    {
        let mut file =
            platform::owner_only(std::fs::OpenOptions::new().write(true).create_new(true), true)
                .open(&temporary)
                .with_context(|| format!("writing {}", temporary.display()))?;
        platform::restrict_to_owner(&temporary)?;
        file.write_all(format!("{token}\n").as_bytes())?;
        file.sync_all()?;
    }
    std::fs::rename(&temporary, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(token)
}

/// What the middleware checks requests against.
struct Gate {
    /// The token file; `None` when serving without a token (loopback only).
    token_file: Option<PathBuf>,
    rate: Mutex<Bucket>,
    requests_per_second: f64,
    serving: Arc<Semaphore>,
}

/// A token bucket: `tokens` left as of `at`.
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// A running HTTP server.
pub struct Serving {
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Serving {
    /// Stops taking requests and waits (up to `limit`) for those being
    /// served to be answered: a tool call under way finishes and its
    /// client gets the answer.
    pub async fn stop(self, limit: std::time::Duration) {
        let _ = self.stop.send(());
        if tokio::time::timeout(limit, self.task).await.is_err() {
            tracing::warn!("requests over HTTP still running after {limit:?}; stopping anyway");
        }
    }
}

/// Serves MCP over HTTP at `settings.bind` (`None` when unset), on a task
/// of its own, once the listener is bound.
pub async fn serve(
    home: &Home,
    settings: &HttpSettings,
    engine: Arc<Engine>,
) -> anyhow::Result<Option<Serving>> {
    let Some(bind) = settings.bind else { return Ok(None) };
    let token_file = if settings.loopback_without_token {
        tracing::warn!(%bind, "serving MCP over HTTP without a token (http.loopback_without_token)");
        None
    } else {
        token(home)?;
        Some(self::token_file(home))
    };
    if !bind.ip().is_loopback() {
        tracing::warn!(
            %bind,
            "serving MCP over HTTP on a non-loopback address: the token and every memory travel \
             in the clear; put a TLS-terminating proxy in front of it (or bind 127.0.0.1)"
        );
    }
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .with_context(|| format!("binding {bind} for MCP over HTTP (http.bind)"))?;
    let local = listener.local_addr()?;

    let mut hosts = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
    if !bind.ip().is_unspecified() {
        hosts.push(bind.ip().to_string());
    }
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_max_request_body_bytes(settings.max_body_bytes)
        .with_allowed_origins([
            "http://localhost:*",
            "http://127.0.0.1:*",
            "http://[::1]:*",
            "https://localhost:*",
        ]);
    // On every interface, the Host a client uses is whatever name reaches
    // this machine: the token guards it, Origin still guards browsers.
    config = if bind.ip().is_unspecified() {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(hosts)
    };
    let server = FerrexServer::new(engine, crate::surfaces::mcp::working::Origin::default());
    let mcp = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let gate = Arc::new(Gate {
        token_file,
        rate: Mutex::new(Bucket {
            tokens: 2.0 * f64::from(settings.requests_per_second),
            at: Instant::now(),
        }),
        requests_per_second: f64::from(settings.requests_per_second),
        serving: Arc::new(Semaphore::new(settings.max_concurrent)),
    });
    let app = axum::Router::new()
        .route_service("/mcp", mcp)
        .layer(middleware::from_fn_with_state(gate.clone(), limit))
        .layer(middleware::from_fn_with_state(gate, authenticate));
    let (stop, stopping) = oneshot::channel();
    let task = tokio::spawn(async move {
        let stopped = async {
            let _ = stopping.await;
        };
        let served = axum::serve(listener, app).with_graceful_shutdown(stopped);
        if let Err(error) = served.await {
            tracing::error!("serving MCP over HTTP: {error}");
        }
    });
    tracing::info!(address = %local, "serving MCP over HTTP at /mcp");
    Ok(Some(Serving { stop, task }))
}

/// An error answer: `status`, and why in a line of plain text.
fn refuse(status: StatusCode, why: &str) -> Response {
    (status, format!("{why}\n")).into_response()
}

/// 401 unless the request carries the token as `Authorization: Bearer`.
async fn authenticate(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let Some(path) = &gate.token_file else { return next.run(request).await };
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    let expected = std::fs::read_to_string(path).ok();
    let accepted = match (presented, expected.as_deref().map(str::trim)) {
        (Some(presented), Some(expected)) if !expected.is_empty() => {
            Sha256::digest(presented.as_bytes()) == Sha256::digest(expected.as_bytes())
        }
        _ => false,
    };
    if accepted {
        return next.run(request).await;
    }
    let mut answer = refuse(
        StatusCode::UNAUTHORIZED,
        "a bearer token is required (Authorization: Bearer <token>; `ferrex http token` shows it)",
    );
    answer.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    answer
}

/// 429 when requests come faster than the rate allows or too many are
/// being served at once.
async fn limit(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let allowed = {
        let mut bucket = gate.rate.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        let refill = now.duration_since(bucket.at).as_secs_f64() * gate.requests_per_second;
        bucket.tokens = (bucket.tokens + refill).min(2.0 * gate.requests_per_second);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            true
        } else {
            false
        }
    };
    if !allowed {
        return retry_later("too many requests: over http.requests_per_second");
    }
    let Ok(_permit) = gate.serving.clone().try_acquire_owned() else {
        return retry_later("too many requests at once: over http.max_concurrent");
    };
    next.run(request).await
}

fn retry_later(why: &str) -> Response {
    let mut answer = refuse(StatusCode::TOO_MANY_REQUESTS, why);
    answer.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    answer
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::path::Path;

    use super::*;

    /// Whether only the owner may read `path`.
    fn private(path: &Path) -> bool {
        platform::is_owner_only(path).unwrap_or(false)
    }

    #[test]
    fn the_token_is_created_private_kept_and_rotated() {
        let temp = tempfile::tempdir().unwrap();
        let home = Home::resolve(Some(temp.path().join("home"))).unwrap();
        home.create().unwrap();
        let first = token(&home).unwrap();
        assert_eq!(first.len(), 64);
        assert!(first.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(private(&token_file(&home)));
        assert_eq!(token(&home).unwrap(), first, "kept");
        let second = rotate_token(&home).unwrap();
        assert_ne!(second, first);
        assert_eq!(token(&home).unwrap(), second);
        assert!(private(&token_file(&home)));
    }
}
