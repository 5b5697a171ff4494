//! MCP over Streamable HTTP, against a real node: the tools through rmcp's
//! HTTP client with the bearer token; no token, a wrong token, a foreign
//! Origin, an oversized body and too many requests each get their status
//! and change nothing; and a stdio session and an HTTP session on the same
//! node see each other's writes.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::time::Duration;

use ferrex_tests::{Client, TestHome, eventually};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Sends one HTTP/1.1 POST to `/mcp` with `headers` and `body`; the status
/// and the body of the answer.
async fn post(port: u16, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    // A server may answer (413) before reading all of a large body.
    let _ = stream.write_all(body.as_bytes()).await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map(|(_, body)| body.to_owned()).unwrap_or_default();
    (status, body)
}

fn call(id: u64, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

const PROTOCOL: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

/// A request that must be refused: what it is, its headers, its body and
/// the status it must get.
type Refusal<'a> = (&'a str, Vec<(&'a str, &'a str)>, String, u16);

#[tokio::test(flavor = "multi_thread")]
async fn http_serves_the_tools_behind_a_token_and_refuses_what_it_must() {
    let (home, port) = TestHome::with_http("max_body_bytes = 65536\nrequests_per_second = 20");
    // A stdio session starts the node.
    let stdio = home.client().await;
    let token = home.http_token();
    assert_eq!(token.len(), 64, "{token}");
    let url = ferrex_tests::mcp_url(port);

    // The tools over HTTP, through rmcp's client with the token.
    let http = Client::connect_http(&url, Some(&token)).await.unwrap();
    let mut names = http.tool_names().await.unwrap();
    names.sort();
    let mut over_stdio = stdio.tool_names().await.unwrap();
    over_stdio.sort();
    assert_eq!(names, over_stdio);
    let stored_over_http =
        http.store_text("the staging database listens on port 6543", "http").await;
    // Each sees the other's writes.
    assert!(stdio.recall_ids("staging database port", "http", 5).await.contains(&stored_over_http));
    let stored_over_stdio =
        stdio.store_text("alice reviews every release on tuesday", "http").await;
    assert!(http.recall_ids("who reviews releases", "http", 5).await.contains(&stored_over_stdio));
    let stats = http.ok("stats", json!({})).await;
    let memories_before = stats["memories"].clone();

    let bearer = format!("Bearer {token}");
    let store =
        call(1, "store", json!({"content": "a write that must not land", "namespace": "http"}));
    let refusals: Vec<Refusal<'_>> = vec![
        ("no token", vec![PROTOCOL], store.clone(), 401),
        ("a wrong token", vec![PROTOCOL, ("Authorization", "Bearer 0000")], store.clone(), 401),
        (
            "a token of another scheme",
            vec![PROTOCOL, ("Authorization", &token)],
            store.clone(),
            401,
        ),
        (
            "a foreign Origin",
            vec![PROTOCOL, ("Authorization", &bearer), ("Origin", "http://evil.example")],
            store.clone(),
            403,
        ),
        (
            "an oversized body",
            vec![PROTOCOL, ("Authorization", &bearer)],
            call(2, "store", json!({"content": "x".repeat(70_000), "namespace": "http"})),
            413,
        ),
    ];
    for (what, headers, body, expected) in &refusals {
        let (status, answer) = post(port, headers, body).await;
        assert_eq!(status, *expected, "{what}: {answer}");
    }
    // A request with the token and an allowed Origin is served.
    let (status, answer) = post(
        port,
        &[PROTOCOL, ("Authorization", &bearer), ("Origin", "http://localhost:3000")],
        &call(3, "stats", json!({})),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("memories"), "{answer}");

    // Protocol revision 2026-07-28: no handshake, each request carries its
    // version and capabilities in _meta, and its method and tool as headers.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let discover =
        json!({"jsonrpc": "2.0", "id": 6, "method": "server/discover", "params": {"_meta": meta}});
    let new_protocol = ("MCP-Protocol-Version", "2026-07-28");
    let (status, answer) = post(
        port,
        &[new_protocol, ("Authorization", &bearer), ("Mcp-Method", "server/discover")],
        &discover.to_string(),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    for version in ["2026-07-28", "2025-11-25"] {
        assert!(answer.contains(version), "{version} not offered: {answer}");
    }
    let stats = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": {"name": "stats", "arguments": {}, "_meta": meta}});
    let (status, answer) = post(
        port,
        &[
            new_protocol,
            ("Authorization", &bearer),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "stats"),
        ],
        &stats.to_string(),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("memories") && !answer.contains("\"isError\":true"), "{answer}");

    // Faster than the rate allows (20/s, bursts of 40): 80 pings sent at
    // once, so they land before the bucket refills; some are refused with
    // 429 and Retry-After, none with anything else.
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string();
    let mut pings = tokio::task::JoinSet::new();
    for _ in 0..80 {
        let (bearer, ping) = (bearer.clone(), ping.clone());
        pings.spawn(
            async move { post(port, &[PROTOCOL, ("Authorization", &bearer)], &ping).await.0 },
        );
    }
    let statuses: Vec<u16> = pings.join_all().await;
    assert!(statuses.contains(&429), "{statuses:?}");
    assert!(statuses.iter().all(|status| [200, 429].contains(status)), "{statuses:?}");
    // The bucket refills: wait until a burst of five is served whole, room
    // for the requests below.
    let refilled = eventually(Duration::from_secs(10), || async {
        let mut burst = tokio::task::JoinSet::new();
        for _ in 0..5 {
            let (bearer, ping) = (bearer.clone(), ping.clone());
            burst.spawn(async move {
                post(port, &[PROTOCOL, ("Authorization", &bearer)], &ping).await.0
            });
        }
        if burst.join_all().await.iter().all(|status| *status == 200) {
            return Some(());
        }
        // A refused burst spent what had refilled: give it time to refill.
        tokio::time::sleep(Duration::from_millis(500)).await;
        None
    })
    .await;
    assert!(refilled.is_some(), "the rate limit never let a burst of five through again");

    // Nothing the refused requests carried was stored.
    let stats = stdio.ok("stats", json!({})).await;
    assert_eq!(stats["memories"], memories_before, "{stats}");
    let found = stdio.recall_ids("a write that must not land", "http", 5).await;
    assert!(
        found.iter().all(|id| *id == stored_over_http || *id == stored_over_stdio),
        "{found:?}"
    );

    // A rotated token refuses the old one from the next request.
    let (ok, rotated, _) = home.run(&["http", "token", "--rotate"]);
    assert!(ok);
    assert_ne!(rotated.trim(), token);
    let (status, _) =
        post(port, &[PROTOCOL, ("Authorization", &bearer)], &call(4, "stats", json!({}))).await;
    assert_eq!(status, 401);
    let (status, _) = post(
        port,
        &[PROTOCOL, ("Authorization", &format!("Bearer {}", rotated.trim()))],
        &call(5, "stats", json!({})),
    )
    .await;
    assert_eq!(status, 200);
    http.close().await;
    stdio.close().await;
    home.stop();
}

#[test]
fn serving_without_a_token_is_refused_off_loopback() {
    let home =
        TestHome::with_config("[http]\nbind = \"0.0.0.0:7878\"\nloopback_without_token = true\n");
    let (ok, _, stderr) = home.run(&["doctor"]);
    assert!(!ok, "doctor accepted it");
    assert!(stderr.contains("loopback_without_token"), "{stderr}");
}
