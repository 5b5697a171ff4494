//! Two architectures, one memory: a home server running another build of
//! ferrex (an aarch64 one under qemu-user, here) paired with an x86_64
//! laptop over loopback, each driven through MCP as an agent would. It
//! checks, and exits non-zero when one fails:
//!
//! - the fresh server takes the laptop's vectors only where its own
//!   embedding of the sampled memories agrees (cosine ≥ 0.99, read from its
//!   log), and embeds the rest itself;
//! - what each stores, the other recalls, with the same ranking (the same
//!   ids in the same order, query by query, once both have caught up);
//! - a fact superseded on the laptop is superseded on the server;
//! - a memory forgotten on the server is gone from the laptop;
//!
//! and prints store and recall p50 on each (the emulated one against the
//! native one, as a ratio) and the time from a store on one to its recall on
//! the other, both ways.
//!
//! Usage: `scripts/cross-test aarch64` (builds the aarch64 binary and the
//! wrapper that runs it), or
//! `cargo run -p ferrex-examples --example cross_device -- [--quick] SERVER_COMMAND`
//! where SERVER_COMMAND runs the other build. `--quick` is the size CI
//! runs: every check, over fewer notes, queries and timed rounds.

use std::{
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, bail, ensure};
use ferrex_engine::answers::{RecallAnswer, StatsAnswer, StoreAnswer};
use ferrex_tests::{Client, TestHome, eventually, ferrex_bin, look_alike_notes};
use serde_json::json;

/// How much the scenario does: every check either way, at two sizes.
struct Size {
    /// How many notes the laptop holds before the server joins: enough
    /// that the fresh server asks it for vectors (it does from 48 up).
    before_joining: usize,
    /// How many stores and recalls each device's p50 is taken over (an
    /// emulated store takes about 40 s here).
    timed: usize,
    /// How many of [`QUERIES`] both devices rank.
    queries: usize,
    /// How long the server may take to hold every vector: emulated, it
    /// embeds one text in about 8 s (a store takes about 40 s against
    /// 33 ms natively, measured here), so it waits for the laptop's
    /// vectors as a slow device is set to (`embed.peer_vectors_wait_ms`)
    /// and checks two samples of them, a few minutes' work.
    catch_up: Duration,
}

/// The figures of record.
const FULL: Size =
    Size { before_joining: 160, timed: 5, queries: 8, catch_up: Duration::from_secs(1_200) };

/// What CI runs (`--quick`): the fewest notes with which a fresh server
/// still takes its peer's vectors, three queries, one timed round.
const QUICK: Size =
    Size { before_joining: 48, timed: 1, queries: 3, catch_up: Duration::from_secs(600) };

/// The queries both devices answer, to compare their rankings.
const QUERIES: [&str; 8] = [
    "billing service outage",
    "search cluster follow-up",
    "mobile app release",
    "what broke in the data pipeline",
    "auth gateway tickets",
    "release train schedule",
    "design system tokens",
    "metrics stack alerts",
];

#[allow(clippy::print_stdout, reason = "the scenario reports what it saw")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut arguments: Vec<_> = std::env::args_os().skip(1).collect();
    let size = match arguments.first() {
        Some(first) if first == "--quick" => {
            arguments.remove(0);
            QUICK
        }
        _ => FULL,
    };
    let Size { before_joining, timed, queries, catch_up } = size;
    let server_binary: PathBuf = arguments
        .pop()
        .filter(|_| arguments.is_empty())
        .context("usage: cross_device [--quick] SERVER_COMMAND")?
        .into();
    let queries = &QUERIES[..queries];
    let whole = Instant::now();
    println!("laptop:      {}", ferrex_bin().display());
    println!("home server: {}\n", server_binary.display());

    let laptop = TestHome::named("laptop");
    // A slow device waits for its peers' vectors before embedding its
    // backlog itself (docs/configuration.md, `embed.peer_vectors_wait_ms`).
    let server = TestHome::with_config(
        "[node]\nname = \"home-server\"\n[embed]\npeer_vectors_wait_ms = 1200000\n",
    )
    .using(&server_binary);
    let on_laptop = laptop.client().await;
    let notes = look_alike_notes(before_joining);
    for note in &notes {
        on_laptop.store_text(note, "default").await;
    }
    on_laptop.caught_up().await;

    // The home server runs in the foreground, as under systemd: an emulated
    // binary cannot start itself in the background (its own executable is
    // not runnable on this machine without qemu in front of it).
    let started = Instant::now();
    let mut node = start_node(&server)?;
    let on_server = connect(&server, &mut node).await?;
    println!("server node up in {:.1} s", started.elapsed().as_secs_f64());

    let joining = Instant::now();
    let ticket = server.invite();
    let (ok, stderr) = laptop.join(&ticket);
    ensure!(ok, "the laptop could not join the server: {stderr}");
    let all = eventually(Duration::from_secs(600), || async {
        let stats: StatsAnswer = on_server.answer("stats", json!({})).await;
        (stats.memories == before_joining as i64).then_some(())
    })
    .await;
    ensure!(all.is_some(), "the server did not receive the laptop's {before_joining} notes");
    println!(
        "the server holds the laptop's {before_joining} notes {:.1} s after the join",
        joining.elapsed().as_secs_f64()
    );
    on_server.caught_up_within(catch_up).await;
    let stats: StatsAnswer = on_server.answer("stats", json!({})).await;
    let from_peers = stats.index_lag.vectors_from_peers;
    println!(
        "every vector in place {:.1} s after the join: {from_peers} of {before_joining} memories' \
         vectors taken from the laptop",
        joining.elapsed().as_secs_f64()
    );
    // The count is kept as each page is stored; the log's line, with the
    // check's lowest cosine, once the round with this peer is over.
    let agreement = if from_peers > 0 {
        eventually(Duration::from_secs(120), || async {
            let lines = log_lines(&server, "took vectors from a peer");
            (!lines.is_empty()).then_some(lines)
        })
        .await
        .unwrap_or_default()
    } else {
        Vec::new()
    };
    match agreement.first() {
        Some(line) => println!("server log: {line}"),
        None if from_peers == 0 => println!(
            "the server took no vectors from the laptop (every one embedded here): see its log"
        ),
        None => bail!("vectors were taken from the laptop but the log says nothing of the check"),
    }
    for line in log_lines(&server, "failed a check") {
        println!("server log: {line}");
    }

    // The same ranking, query by query.
    let mut same = 0;
    for &query in queries {
        let ours = on_laptop.recall_ids(query, "default", 5).await;
        let theirs = on_server.recall_ids(query, "default", 5).await;
        if ours == theirs {
            same += 1;
        } else {
            println!(
                "  {query:?}: laptop {ours:?}\n  {:width$}  server {theirs:?}",
                "",
                width = query.len() + 2
            );
        }
    }
    println!("the same five ids in the same order for {same} of {} queries", queries.len());
    ensure!(same == queries.len(), "the two architectures ranked differently");

    // Store here, recall there; and the reverse.
    let mut to_server = Vec::new();
    let mut to_laptop = Vec::new();
    let mut store_laptop = Vec::new();
    let mut store_server = Vec::new();
    for round in 0..timed {
        let text = format!(
            "Crossing note {round}: the laptop saw port {} open on the staging box.",
            7000 + round
        );
        let (id, took) = timed_store(&on_laptop, &text).await;
        store_laptop.push(took);
        to_server.push(arrival(&on_server, &text, &id).await?);
        let text = format!(
            "Crossing note {round}: the home server rotated backup volume {}.",
            300 + round
        );
        let (id, took) = timed_store(&on_server, &text).await;
        store_server.push(took);
        to_laptop.push(arrival(&on_laptop, &text, &id).await?);
    }
    let mut recall_laptop = Vec::new();
    let mut recall_server = Vec::new();
    // Queries neither device has seen: no vector of them is cached.
    for round in 0..timed {
        let query = format!("{} round {round}", queries[round % queries.len()]);
        recall_laptop.push(timed_recall(&on_laptop, &query).await);
        recall_server.push(timed_recall(&on_server, &query).await);
    }
    let (store_native, store_emulated) = (median(&mut store_laptop), median(&mut store_server));
    let (recall_native, recall_emulated) = (median(&mut recall_laptop), median(&mut recall_server));
    println!(
        "store p50:  laptop {store_native:.1} ms, server {store_emulated:.1} ms (x{:.1})",
        store_emulated / store_native
    );
    println!(
        "recall p50: laptop {recall_native:.1} ms, server {recall_emulated:.1} ms (x{:.1})",
        recall_emulated / recall_native
    );
    println!(
        "a store on one recalled on the other, p50: laptop → server {:.0} ms, server → laptop {:.0} ms",
        median(&mut to_server),
        median(&mut to_laptop)
    );

    // A fact superseded on the laptop is superseded on the server.
    let old = fact(&on_laptop, "8080").await;
    let new = fact(&on_laptop, "9090").await;
    let superseded = eventually(Duration::from_secs(120), || async {
        let answer: RecallAnswer = on_server
            .answer("recall", json!({"query": "staging gateway port", "include_invalidated": true}))
            .await;
        let result = answer.results.iter().find(|result| result.memory.id == old)?;
        let standing = &result.memory.standing;
        (standing.status.as_deref() == Some("superseded")
            && standing.superseded_by.first() == Some(&new))
        .then_some(())
    })
    .await;
    if superseded.is_none() {
        let answer = on_server
            .ok("recall", json!({"query": "staging gateway port", "include_invalidated": true}))
            .await;
        bail!("the server does not hold {old} as superseded by {new}: {answer:#}");
    }
    println!("a fact superseded on the laptop is superseded on the server");

    // A memory forgotten on the server is gone from the laptop.
    let victim = on_laptop
        .store_text("The laptop's scratch note about a disposable VM 4411.", "default")
        .await;
    arrival(&on_server, "disposable VM 4411", &victim).await?;
    on_server.ok("forget", json!({"ids": [victim]})).await;
    let gone = eventually(Duration::from_secs(120), || async {
        let ids = on_laptop.recall_ids("disposable VM 4411", "default", 10).await;
        (!ids.contains(&victim)).then_some(())
    })
    .await;
    ensure!(gone.is_some(), "{victim}, forgotten on the server, is still recalled on the laptop");
    ensure!(
        laptop.files_containing("disposable VM 4411").is_empty(),
        "the laptop's files still hold the forgotten text"
    );
    println!("a memory forgotten on the server is gone from the laptop, files and all");

    on_laptop.close().await;
    on_server.close().await;
    let (ok, _, stderr) = server.run(&["stop"]);
    ensure!(ok, "the server's node would not stop: {stderr}");
    let _ = node.wait();
    println!("\nall checks passed in {:.0} s", whole.elapsed().as_secs_f64());
    Ok(())
}

/// `ferrex node` for `home`, in the foreground of a child process.
fn start_node(home: &TestHome) -> anyhow::Result<Child> {
    Command::new(home.binary())
        .arg("--home")
        .arg(home.path())
        .arg("node")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting the server's node")
}

/// An MCP client of the node `node` runs, once it serves (an emulated node
/// loads its model slowly): its log says so, whatever its socket is (a
/// named pipe on Windows).
async fn connect(home: &TestHome, node: &mut Child) -> anyhow::Result<Client> {
    let up = eventually(Duration::from_secs(300), || async {
        log_lines(home, "serving socket=").first().map(drop)
    })
    .await;
    if let Some(status) = node.try_wait()? {
        bail!("the server's node exited ({status}); see {}", home.path().join("logs").display());
    }
    ensure!(up.is_some(), "the server's node did not open its socket within 300 s");
    Ok(home.client().await)
}

/// The lines of `home`'s node log that contain `needle`.
fn log_lines(home: &TestHome, needle: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(home.path().join("logs")).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        lines.extend(text.lines().filter(|line| line.contains(needle)).map(str::to_owned));
    }
    lines
}

/// Stores `text`; its id and how long the store took, in ms.
async fn timed_store(client: &Client, text: &str) -> (String, f64) {
    let started = Instant::now();
    let id = client.store_text(text, "default").await;
    (id, started.elapsed().as_secs_f64() * 1000.0)
}

/// How long a recall of `query` takes, in ms.
async fn timed_recall(client: &Client, query: &str) -> f64 {
    let started = Instant::now();
    client.recall_ids(query, "default", 5).await;
    started.elapsed().as_secs_f64() * 1000.0
}

/// Waits until `client` recalls `id` for `query`; how long that took, in ms.
async fn arrival(client: &Client, query: &str, id: &str) -> anyhow::Result<f64> {
    let started = Instant::now();
    let found = eventually(Duration::from_secs(120), || async {
        client.recall_ids(query, "default", 10).await.iter().any(|found| found == id).then_some(())
    })
    .await;
    ensure!(found.is_some(), "{id} was not recalled on the other device within 120 s");
    Ok(started.elapsed().as_secs_f64() * 1000.0)
}

/// Stores the staging gateway's port as a fact; its id.
async fn fact(client: &Client, port: &str) -> String {
    let answer: StoreAnswer = client
        .answer("store", json!({"subject": "staging gateway", "predicate": "port", "object": port}))
        .await;
    answer.id
}

/// The median of `values`.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}
