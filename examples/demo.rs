//! The ferrex demo: three devices (a laptop, a home server and a desktop),
//! each a real `ferrex` node in its own temporary home on 127.0.0.1, paired
//! with tickets and driven through MCP as an agent would.
//!
//! Usage: `scripts/demo` (or `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example demo`)
//!
//! The laptop and the desktop each join the server with a ticket; memories
//! an agent stores on the laptop are recalled on the desktop; a memory
//! forgotten on the desktop disappears on the laptop; and `ferrex peers` and
//! `ferrex sync status` show how the devices stand.

use std::time::Duration;

use ferrex_tests::{Client, TestHome, eventually, ferrex_bin};
use serde_json::{Value, json};

#[allow(clippy::print_stdout, reason = "the demo shows what happens")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    println!("ferrex demo with {}\n", ferrex_bin().display());
    let server = TestHome::named("home-server");
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");

    println!("server$  ferrex invite");
    let ticket = server.invite();
    println!("         {}...", &ticket[..48]);
    println!("laptop$  ferrex join <ticket>");
    let (ok, stderr) = laptop.join(&ticket);
    anyhow::ensure!(ok, "laptop join failed: {stderr}");
    println!("         {}", stderr.lines().next().unwrap_or_default());
    println!("desktop$ ferrex join <another ticket>");
    let (ok, stderr) = desktop.join(&server.invite());
    anyhow::ensure!(ok, "desktop join failed: {stderr}");
    println!("         {}\n", stderr.lines().next().unwrap_or_default());

    let on_laptop = laptop.client().await;
    let on_desktop = desktop.client().await;
    println!("MCP tools: {}\n", on_laptop.tool_names().await?.join(", "));

    println!("An agent on the laptop stores:");
    let memories = [
        json!({"content": "Deploys to production happen every Wednesday after the team sync.", "tags": ["process"]}),
        json!({"subject": "api-server", "predicate": "port", "object": "3211"}),
        json!({"content": "To rotate the TLS certificate, run certbot renew and restart nginx.", "memory_type": "procedural"}),
        json!({"content": "Bob is allergic to peanuts, so team lunches avoid Thai food.", "entities": ["Bob"]}),
    ];
    let mut ids = Vec::new();
    for memory in memories {
        let answer = on_laptop.ok("store", memory.clone()).await;
        println!("  store {memory}\n     -> {} {}", answer["status"], answer["id"]);
        ids.push(answer["id"].as_str().unwrap_or_default().to_owned());
    }

    println!("\nAn agent on the desktop recalls:");
    let arrived = eventually(Duration::from_secs(30), || async {
        let found = on_desktop.recall_ids("who has a food allergy", "default", 1).await;
        (found.first() == ids.get(3)).then_some(())
    })
    .await;
    anyhow::ensure!(arrived.is_some(), "the laptop's memories never reached the desktop");
    for query in [
        "when do we ship to prod?",
        "which port does the api server listen on",
        "how do I renew the https certificate",
        "who has a food allergy",
    ] {
        show_recall(&on_desktop, query).await;
    }

    println!(
        "\nOn the desktop the api-server moves to port 8080; the laptop sees the new value and the history:"
    );
    let moved = on_desktop
        .ok("store", json!({"subject": "API server", "predicate": "Port", "object": "8080"}))
        .await;
    println!(
        "  store api-server / port / 8080 -> {} {}, supersedes {}",
        moved["status"], moved["id"], moved["supersedes"]
    );
    let arrived = eventually(Duration::from_secs(30), || async {
        let found =
            on_laptop.recall_ids("which port does the api server listen on", "default", 1).await;
        (found.first() == moved["id"].as_str().map(str::to_owned).as_ref()).then_some(())
    })
    .await;
    anyhow::ensure!(arrived.is_some(), "the new port never reached the laptop");
    show_recall(&on_laptop, "which port does the api server listen on").await;
    let history =
        on_laptop.ok("history", json!({"subject": "api-server", "predicate": "port"})).await;
    for entry in history["history"].as_array().into_iter().flatten() {
        println!(
            "  history: port {} stored on {} ({})",
            entry["object"].as_str().unwrap_or(""),
            entry["device"]["name"].as_str().unwrap_or("?"),
            entry["status"].as_str().unwrap_or("")
        );
    }

    println!("\nThe desktop forgets Bob's allergy; the laptop no longer recalls it:");
    let answer = on_desktop.ok("forget", json!({"ids": [ids[3]]})).await;
    println!("  forget {} -> {answer}", ids[3]);
    let gone = eventually(Duration::from_secs(30), || async {
        let found = on_laptop.recall_ids("who has a food allergy", "default", 5).await;
        (!found.contains(&ids[3])).then_some(())
    })
    .await;
    anyhow::ensure!(gone.is_some(), "the forget never reached the laptop");
    show_recall(&on_laptop, "who has a food allergy").await;

    // Let every pair settle so the status shows the steady state.
    let desktop_id = desktop.device_id();
    let _ = eventually(Duration::from_secs(30), || async {
        let status = laptop.peers_json();
        let peers = status["peers"].as_array()?;
        let settled = peers.len() == 2
            && peers.iter().all(|peer| peer["online"] == true && peer["in_sync"] == true)
            && peers.iter().any(|peer| peer["id"] == desktop_id);
        settled.then_some(())
    })
    .await;
    println!("\nlaptop$ ferrex peers");
    println!("{}", indent(&laptop.run(&["peers"]).1));
    println!("laptop$ ferrex sync status");
    println!("{}", indent(&laptop.run(&["sync", "status"]).1));

    on_laptop.close().await;
    on_desktop.close().await;
    for home in [&laptop, &desktop, &server] {
        home.stop();
    }
    println!("All three nodes stopped; their temporary homes are removed.");
    Ok(())
}

#[allow(clippy::print_stdout, reason = "the demo shows what happens")]
async fn show_recall(client: &Client, query: &str) {
    let answer = client.ok("recall", json!({"query": query, "limit": 1})).await;
    match answer["results"].as_array().and_then(|results| results.first()) {
        Some(result) => {
            println!(
                "  recall {query:?}\n     -> {:.4}  {}",
                result["score"].as_f64().unwrap_or(0.0),
                describe(result)
            )
        }
        None => println!("  recall {query:?}\n     -> nothing"),
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("  {line}\n")).collect()
}

fn describe(result: &Value) -> String {
    match result["content"].as_str() {
        Some(content) => format!("[{}] {content}", result["type"].as_str().unwrap_or("")),
        None => format!(
            "[{}] {} / {} / {}",
            result["type"].as_str().unwrap_or(""),
            result["subject"].as_str().unwrap_or(""),
            result["predicate"].as_str().unwrap_or(""),
            result["object"].as_str().unwrap_or("")
        ),
    }
}
