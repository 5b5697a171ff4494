//! `ferrex ui` as a real process, over raw HTTP on loopback: only the URL it
//! prints opens the page; a missing or wrong token, a foreign `Origin` or
//! `Host` get 403 and nothing else; calls with the token reach the node;
//! a second page on a busy port is refused. (The page itself is driven in
//! a real headless Chromium by `scripts/ui-browser`.)

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    process::{Child, Stdio},
    time::Duration,
};

use ferrex_tests::TestHome;
use serde_json::Value;

/// `ferrex ui` for `home`: the process and the URL it printed.
fn start_ui(home: &TestHome, port: u16) -> (Child, String) {
    let mut child = home
        .command(&["ui", "--port", &port.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.starts_with("http://127.0.0.1:"), "ferrex ui printed {line:?}");
    (child, line.trim().to_owned())
}

/// Sends a raw HTTP/1.1 request; the status and the body.
fn http(port: u16, request: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map(|(_, body)| body.to_owned()).unwrap_or_default();
    (status, body)
}

fn get(port: u16, path: &str, headers: &str) -> (u16, String) {
    http(
        port,
        &format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}Connection: close\r\n\r\n"
        ),
    )
}

fn post(port: u16, path: &str, headers: &str, body: &str) -> (u16, String) {
    http(
        port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

#[test]
fn only_the_printed_url_opens_the_page_and_its_calls() {
    let home = TestHome::new();
    let (ok, _, stderr) = home.run(&["store", "the backup runs at 02:00", "--tag", "ops"]);
    assert!(ok, "{stderr}");
    let (mut ui, url) = start_ui(&home, 0);
    let port: u16 = url["http://127.0.0.1:".len()..].split('/').next().unwrap().parse().unwrap();
    let token = url.split("token=").nth(1).unwrap().to_owned();
    let header = format!("X-Ferrex-Token: {token}\r\n");

    // The page, with the token only.
    let (status, body) = get(port, &format!("/?token={token}"), "");
    assert_eq!(status, 200);
    assert!(body.contains("<title>ferrex"), "{body}");
    for path in ["/", "/?token=wrong", &format!("/?token={token}x")] {
        assert_eq!(get(port, path, ""), (403, String::new()), "{path}");
    }
    // Calls: the token as a header, from this page's origin only.
    let query = r#"{"query": "when is the backup", "namespace": "default"}"#;
    let (status, body) = post(port, "/api/call/recall", &header, query);
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["count"], 1, "{answer}");
    assert_eq!(post(port, "/api/call/recall", "", query), (403, String::new()));
    assert_eq!(
        post(port, "/api/call/recall", "X-Ferrex-Token: nope\r\n", query),
        (403, String::new())
    );
    let foreign = format!("{header}Origin: http://evil.example\r\n");
    assert_eq!(post(port, "/api/call/recall", &foreign, query), (403, String::new()));
    let own = format!("{header}Origin: http://127.0.0.1:{port}\r\n");
    assert_eq!(post(port, "/api/call/recall", &own, query).0, 200);
    let rebound = http(
        port,
        &format!(
            "GET /?token={token} HTTP/1.1\r\nHost: attacker.example:{port}\r\nConnection: close\r\n\r\n"
        ),
    );
    assert_eq!(rebound, (403, String::new()));
    // What the page may not do, and bad input.
    assert_eq!(post(port, "/api/call/store", &header, r#"{"content": "x"}"#).0, 404);
    let (status, body) = post(port, "/api/call/recall", &header, "[1, 2]");
    assert_eq!(status, 400, "{body}");
    let (status, body) = post(port, "/api/call/show", &header, r#"{"id": "no-such-memory"}"#);
    assert_eq!(status, 400);
    assert!(body.contains("names no memory"), "{body}");
    let (status, body) = get(port, "/api/devices", &header);
    assert_eq!(status, 200, "{body}");
    let devices: Value = serde_json::from_str(&body).unwrap();
    assert!(devices["device"]["id"].is_string(), "{devices}");
    // Forgetting through the page reaches the node.
    let id = answer["results"][0]["id"].as_str().unwrap();
    let (status, body) =
        post(port, "/api/call/forget", &header, &format!(r#"{{"ids": ["{id}"]}}"#));
    assert_eq!(status, 200, "{body}");
    let (_, body) = post(port, "/api/call/recall", &header, query);
    assert!(!body.contains(id), "{body}");

    // A second page on the same port is refused, clearly.
    let (ok, stdout, stderr) = home.run(&["ui", "--port", &port.to_string()]);
    assert!(!ok && stdout.is_empty(), "{stdout}");
    assert!(stderr.contains(&format!("127.0.0.1:{port} is busy")), "{stderr}");

    ui.kill().unwrap();
    ui.wait().unwrap();
    home.stop();
}
