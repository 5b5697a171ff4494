//! The ferrex demo: a node in a temporary home, driven through MCP.
//!
//! Usage: `scripts/demo` (or `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example demo`)
//!
//! Starts `ferrex` as an MCP client would, stores a few memories, recalls
//! them with paraphrased questions, forgets one, and prints `stats`.

use ferrex_tests::{TestHome, ferrex_bin};
use serde_json::{Value, json};

#[allow(clippy::print_stdout, reason = "the demo shows what happens")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let home = TestHome::new();
    println!("ferrex demo: {} with home {}\n", ferrex_bin().display(), home.path().display());
    let client = home.client().await;
    println!("MCP tools: {}\n", client.tool_names().await?.join(", "));

    let memories = [
        json!({"content": "Deploys to production happen every Wednesday after the team sync.", "tags": ["process"]}),
        json!({"subject": "api-server", "predicate": "port", "object": "8080"}),
        json!({"content": "To rotate the TLS certificate, run certbot renew and restart nginx.", "memory_type": "procedural"}),
        json!({"content": "Bob is allergic to peanuts, so team lunches avoid Thai food.", "entities": ["Bob"]}),
    ];
    let mut ids = Vec::new();
    for memory in memories {
        let answer = client.ok("store", memory.clone()).await;
        println!("store  {memory}\n    -> {answer}");
        ids.push(answer["id"].as_str().unwrap_or_default().to_owned());
    }
    println!();
    for query in [
        "when do we ship to prod?",
        "which port does the api server listen on",
        "how do I renew the https certificate",
    ] {
        let answer = client.ok("recall", json!({"query": query, "limit": 2})).await;
        println!("recall {query:?}");
        for result in answer["results"].as_array().into_iter().flatten() {
            println!("    {:.4}  {}", result["score"].as_f64().unwrap_or(0.0), describe(result));
        }
    }
    println!();
    let answer = client.ok("forget", json!({"ids": [ids[3]]})).await;
    println!("forget {} -> {answer}", ids[3]);
    let answer = client.ok("recall", json!({"query": "who has a food allergy", "limit": 1})).await;
    println!("recall \"who has a food allergy\" -> {} results after forgetting", answer["count"]);
    println!("\nstats -> {}", client.ok("stats", json!({})).await);
    client.close().await;
    home.stop();
    println!("\nnode stopped; the temporary home is removed.");
    Ok(())
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
