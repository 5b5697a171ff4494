//! `ferrex ui`: a web page on the person's memory, served on 127.0.0.1 only
//! by the same HTTP stack as MCP over HTTP (axum), from assets built into
//! the binary. It runs in the foreground and talks to the home's node
//! (started if needed) through the control socket, as the terminal
//! commands do.
//!
//! Only the URL it prints opens the page: it carries a random token (new
//! each run), which the page sends back with every call as
//! `X-Ferrex-Token`. A request without it, with another, from another
//! `Origin`, or for another `Host` (DNS rebinding) gets 403 and nothing
//! else. The page's content security policy allows only its own script,
//! style and calls, and no referrer leaves it.

use std::{net::SocketAddr, path::PathBuf, sync::Arc};

use anyhow::Context;
use axum::{
    Json,
    extract::{Path as UrlPath, Query, Request, State},
    http::{HeaderMap, HeaderValue, StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::{
    base::console::{output, report},
    base::home::Home,
    surfaces::bridge,
    surfaces::control::{self, Request as Control},
};

/// The page, its script and its style.
const PAGE: &str = include_str!("ui/index.html");
const SCRIPT: &str = include_str!("ui/app.js");
const STYLE: &str = include_str!("ui/app.css");

/// The operations the page may call (all of the views and tools but
/// `store` and `ingest`: the page reads and forgets).
const CALLS: &[&str] =
    &["recall", "list", "show", "entity", "topics", "history", "forget", "stats", "told"];

/// What every request is checked against.
struct Gate {
    /// The token's digest.
    digest: Vec<u8>,
    /// `Host` values that name this server.
    hosts: Vec<String>,
    /// `Origin` values of this page.
    origins: Vec<String>,
    /// The node's control socket.
    socket: PathBuf,
}

impl Gate {
    fn token_ok(&self, presented: Option<&str>) -> bool {
        presented.is_some_and(|token| {
            Sha256::digest(token.as_bytes()).as_slice() == self.digest.as_slice()
        })
    }
}

/// Serves the page until Ctrl-C; prints its URL on stdout.
pub async fn run(home: &Home, port: u16) -> anyhow::Result<()> {
    drop(bridge::connect_or_start(home, &[]).await?);
    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
        Ok(listener) => listener,
        Err(error) if error.kind() == std::io::ErrorKind::AddrInUse => anyhow::bail!(
            "127.0.0.1:{port} is busy (another ferrex ui, or another program): choose another port \
             with --port, or --port 0 for any free one"
        ),
        Err(error) => return Err(error).context(format!("binding 127.0.0.1:{port}")),
    };
    let address: SocketAddr = listener.local_addr()?;
    let token = hex::encode(rand::random::<[u8; 24]>());
    let port = address.port();
    let gate = Arc::new(Gate {
        digest: Sha256::digest(token.as_bytes()).to_vec(),
        hosts: vec![format!("127.0.0.1:{port}"), format!("localhost:{port}")],
        origins: vec![format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}")],
        socket: home.socket_file(),
    });
    let api = axum::Router::new()
        .route("/api/call/{name}", post(call))
        .route("/api/devices", get(devices))
        .layer(middleware::from_fn_with_state(gate.clone(), token_header));
    let app = axum::Router::new()
        .route("/", get(page))
        .route("/app.js", get(|| async { asset(SCRIPT, "text/javascript; charset=utf-8") }))
        .route("/app.css", get(|| async { asset(STYLE, "text/css; charset=utf-8") }))
        .merge(api)
        .layer(middleware::from_fn_with_state(gate.clone(), same_site))
        .with_state(gate);
    output(&format!("http://127.0.0.1:{port}/?token={token}"));
    report("open the URL above in a browser on this machine; Ctrl-C stops the page");
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("serving the page")
}

/// 403 and nothing else.
fn forbidden() -> Response {
    StatusCode::FORBIDDEN.into_response()
}

/// Headers every answer carries: no framing, no sniffing, no referrer, and
/// only this page's own script, style and calls.
fn harden(response: &mut Response) {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
             img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        ),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// 403 for a `Host` that does not name this server, or an `Origin` that
/// is not this page.
async fn same_site(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|value| value.to_str().ok());
    if !host.is_some_and(|host| gate.hosts.iter().any(|known| known == host)) {
        return forbidden();
    }
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !gate.origins.iter().any(|known| known == origin) {
            return forbidden();
        }
    }
    let mut response = next.run(request).await;
    harden(&mut response);
    response
}

/// 403 unless the call carries the token as `X-Ferrex-Token`.
async fn token_header(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let presented = request.headers().get("x-ferrex-token").and_then(|value| value.to_str().ok());
    if !gate.token_ok(presented) {
        return forbidden();
    }
    next.run(request).await
}

fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// The page, for the URL with the token only.
async fn page(
    State(gate): State<Arc<Gate>>,
    Query(query): Query<std::collections::HashMap<String, String>>,
) -> Response {
    if !gate.token_ok(query.get("token").map(String::as_str)) {
        return forbidden();
    }
    asset(PAGE, "text/html; charset=utf-8")
}

/// An answer of the node, or its error as `{"error": …}` with 400 (a
/// request the node refused) or 502 (the node could not be reached).
fn answered(outcome: anyhow::Result<Value>) -> Response {
    match outcome {
        Ok(answer) => Json(answer).into_response(),
        Err(error) => {
            let message = format!("{error:#}");
            let status = if error.downcast_ref::<std::io::Error>().is_some() {
                StatusCode::BAD_GATEWAY
            } else {
                StatusCode::BAD_REQUEST
            };
            (status, Json(json!({"error": message}))).into_response()
        }
    }
}

/// `POST /api/call/{name}` with the arguments as a JSON object.
async fn call(
    State(gate): State<Arc<Gate>>,
    UrlPath(name): UrlPath<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if !CALLS.contains(&name.as_str()) {
        return (StatusCode::NOT_FOUND, Json(json!({"error": format!("no call {name:?}")})))
            .into_response();
    }
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|kind| kind.starts_with("application/json"));
    if !json_body {
        return (StatusCode::UNSUPPORTED_MEDIA_TYPE, Json(json!({"error": "send JSON"})))
            .into_response();
    }
    let arguments = match serde_json::from_slice(&body) {
        Ok(arguments @ Value::Object(_)) => arguments,
        _ => {
            return (
                StatusCode::BAD_REQUEST,
                Json(json!({"error": "the arguments are a JSON object"})),
            )
                .into_response();
        }
    };
    answered(control::call(&gate.socket, &name, arguments).await)
}

/// `GET /api/devices`: this device, its peers and the documents' sync state.
async fn devices(State(gate): State<Arc<Gate>>) -> Response {
    answered(control::send(&gate.socket, &Control::Peers, |_| {}).await)
}
