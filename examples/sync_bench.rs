//! Sync benchmark with real `ferrex` processes: propagation from a laptop to
//! a desktop through a home server, a fresh device catching up on a large
//! store, and the bytes on the wire per stored memory.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example sync_bench [-- --trials 50 --memories 10000 --loopback]`
//!
//! `--catch-up-only` runs only the catch-up (4); `--from-home DIR` runs it
//! from a copy of a home that has documents and a complete index (as
//! `node_bench --home` keeps), `--embed-limit SECS` bounds the wait for the
//! fresh node to embed everything (default 600), and `--no-peer-vectors`
//! makes the fresh node embed everything itself instead of taking vectors
//! from its peer.
//!
//! 1. **Propagation.** As root, the three devices run in network namespaces
//!    this benchmark creates (and removes): the laptop and the desktop each
//!    share a veth link with the server and have no route to each other, so
//!    every memory travels laptop → server → desktop. (With `--loopback`, or
//!    without root, all three share 127.0.0.1 and the laptop reaches the
//!    desktop directly.) Each trial stores a memory with a unique word on
//!    the laptop through MCP and polls `recall` on the desktop every 5 ms
//!    until it is returned.
//! 2. **Bytes per memory**: the UDP bytes (QUIC included) and the sync frame
//!    bytes between laptop and server, both ways, over those trials.
//! 3. **Forget propagation**: each trial's memory is forgotten on the laptop
//!    and the desktop is polled until its recall no longer returns it (its
//!    key is deleted before its index rows). Then **purge on return**: the
//!    laptop stores 1,000 memories, the desktop gets them and stops, the
//!    laptop forgets all 1,000, and the desktop is timed from its restart
//!    until none of them is left in its index.
//! 4. **Catch-up.** A node holds N memories (one document change each, as
//!    N stores would make, its index complete); a fresh node joins it. Times
//!    from `ferrex join` until the fresh node's full-text search finds them
//!    all, and until all are embedded; the embedding rate is compared with
//!    ferrex-embed and a bare fastembed call doing the same work (each
//!    memory's text and its passages) in this run.

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, bail, ensure};
use ferrex_examples::{
    DEFAULT_LOCOMO, bench_texts, embedding_rates, load_locomo, millis, percentile, prefill,
};
use ferrex_tests::{Client, TestHome, ferrex_bin};
use serde_json::{Value, json};

/// Network namespaces and links for the propagation trials; removed on drop.
struct Namespaces {
    names: Vec<String>,
}

impl Namespaces {
    /// server (10.77.1.1 and 10.77.2.1) — laptop (10.77.1.2), server — desktop (10.77.2.2).
    fn create() -> anyhow::Result<Namespaces> {
        let tag = std::process::id() % 10_000;
        let names: Vec<String> = ["s", "a", "b"].iter().map(|n| format!("fxb{tag}{n}")).collect();
        let namespaces = Namespaces { names: names.clone() };
        let (server, laptop, desktop) = (&names[0], &names[1], &names[2]);
        let ip = |args: &[&str]| -> anyhow::Result<()> {
            let status = Command::new("ip").args(args).status().context("running ip")?;
            ensure!(status.success(), "ip {} failed", args.join(" "));
            Ok(())
        };
        for name in &names {
            ip(&["netns", "add", name])?;
            ip(&["-n", name, "link", "set", "lo", "up"])?;
        }
        for (peer, subnet, link) in [(laptop, 1, "a"), (desktop, 2, "b")] {
            let (outer, inner) = (format!("fxb{tag}{link}0"), format!("fxb{tag}s{link}"));
            ip(&["link", "add", &outer, "type", "veth", "peer", "name", &inner])?;
            ip(&["link", "set", &outer, "netns", peer])?;
            ip(&["link", "set", &inner, "netns", server])?;
            ip(&["-n", peer, "addr", "add", &format!("10.77.{subnet}.2/24"), "dev", &outer])?;
            ip(&["-n", server, "addr", "add", &format!("10.77.{subnet}.1/24"), "dev", &inner])?;
            ip(&["-n", peer, "link", "set", &outer, "up"])?;
            ip(&["-n", server, "link", "set", &inner, "up"])?;
        }
        Ok(namespaces)
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in &self.names {
            let _ = Command::new("ip").args(["netns", "del", name]).status();
        }
    }
}

/// Starts `ferrex node` for `home`, inside network namespace `netns` if given.
fn start_node(home: &TestHome, netns: Option<&str>) -> anyhow::Result<Child> {
    let mut command = match netns {
        Some(netns) => {
            let mut command = Command::new("ip");
            command.args(["netns", "exec", netns]).arg(ferrex_bin());
            command
        }
        None => Command::new(ferrex_bin()),
    };
    let child = command
        .arg("--home")
        .arg(home.path())
        .arg("node")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let started = Instant::now();
    while std::os::unix::net::UnixStream::connect(home.path().join("ferrex.sock")).is_err() {
        ensure!(started.elapsed() < Duration::from_secs(60), "the node did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(child)
}

/// A home for a device called `name` whose network binds `bind`, with
/// `extra` lines in its `[network]` section.
fn home_config(name: &str, bind: &str, extra: &str) -> TestHome {
    TestHome::with_raw_config(&format!(
        "[node]\nname = \"{name}\"\n[network]\nmode = \"local\"\nbind = \"{bind}\"\n{extra}"
    ))
}

fn peer<'a>(status: &'a Value, name: &str) -> Option<&'a Value> {
    status["peers"].as_array()?.iter().find(|peer| peer["name"] == name)
}

/// Waits (bounded) until `home` reports the named peers online and in sync.
fn wait_in_sync(home: &TestHome, names: &[&str], limit: Duration) -> anyhow::Result<()> {
    let started = Instant::now();
    loop {
        let status = home.peers_json();
        if names.iter().all(|name| {
            peer(&status, name)
                .is_some_and(|peer| peer["online"] == true && peer["in_sync"] == true)
        }) {
            return Ok(());
        }
        ensure!(started.elapsed() < limit, "not in sync within {limit:?}: {status}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn link_bytes(home: &TestHome, name: &str) -> (u64, u64) {
    let status = home.peers_json();
    let peer = peer(&status, name).cloned().unwrap_or_default();
    let number = |key: &str| peer[key].as_u64().unwrap_or(0);
    (
        number("udp_bytes_sent") + number("udp_bytes_received"),
        number("bytes_sent") + number("bytes_received"),
    )
}

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut trials = 50usize;
    let mut memories = 10_000usize;
    let mut loopback = false;
    let mut catch_up_only = false;
    let mut from_home = None;
    let mut embed_limit = Duration::from_secs(600);
    let mut peer_vectors = true;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--trials" => trials = value()?.parse()?,
            "--memories" => memories = value()?.parse()?,
            "--loopback" => loopback = true,
            "--catch-up-only" => catch_up_only = true,
            "--from-home" => from_home = Some(PathBuf::from(value()?)),
            "--embed-limit" => embed_limit = Duration::from_secs(value()?.parse()?),
            "--no-peer-vectors" => peer_vectors = false,
            other => bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    if catch_up_only || from_home.is_some() {
        return catch_up(&CatchUp { memories, from_home, embed_limit, peer_vectors }).await;
    }
    let root =
        Command::new("id").arg("-u").output().map(|out| out.stdout == b"0\n").unwrap_or(false);
    let namespaces = if loopback || !root { None } else { Some(Namespaces::create()?) };
    println!(
        "ferrex sync benchmark, binary {}; topology: {}",
        ferrex_bin().display(),
        if namespaces.is_some() {
            "laptop and desktop in separate network namespaces, reachable only through the server"
        } else {
            "all devices on 127.0.0.1 (the laptop may reach the desktop directly)"
        }
    );

    // 1 and 2: propagation and bytes.
    let config = |name: &str, bind: &str| home_config(name, bind, "");
    let (server, laptop, desktop) = match &namespaces {
        Some(_) => (
            config("server", "0.0.0.0:0"),
            config("laptop", "10.77.1.2:0"),
            config("desktop", "10.77.2.2:0"),
        ),
        None => (
            config("server", "127.0.0.1:0"),
            config("laptop", "127.0.0.1:0"),
            config("desktop", "127.0.0.1:0"),
        ),
    };
    let netns =
        |index: usize| namespaces.as_ref().map(|namespaces| namespaces.names[index].clone());
    let mut nodes = vec![
        start_node(&server, netns(0).as_deref())?,
        start_node(&laptop, netns(1).as_deref())?,
        start_node(&desktop, netns(2).as_deref())?,
    ];
    for home in [&laptop, &desktop] {
        let (ok, stderr) = home.join(&server.invite());
        ensure!(ok, "join failed: {stderr}");
    }
    wait_in_sync(&laptop, &["server"], Duration::from_secs(30))?;
    wait_in_sync(&desktop, &["server"], Duration::from_secs(30))?;
    let on_laptop = Client::connect(&laptop).await?;
    let on_desktop = Client::connect(&desktop).await?;
    // Warm both sides (model sessions, caches) with one memory.
    let warm =
        on_laptop.store_text("Warming up: the first memory of the benchmark.", "bench").await;
    let found = ferrex_tests::eventually(Duration::from_secs(30), || async {
        on_desktop
            .recall_ids("first memory of the benchmark", "bench", 5)
            .await
            .contains(&warm)
            .then_some(())
    })
    .await;
    ensure!(found.is_some(), "the warm-up memory never reached the desktop");
    wait_in_sync(&laptop, &["server"], Duration::from_secs(30))?;
    let (udp_before, frames_before) = link_bytes(&laptop, "server");

    let mut propagation = Vec::new();
    let mut stores = Vec::new();
    let mut trial_ids = Vec::new();
    for trial in 0..trials {
        let word = format!("zebrafinch{trial}x");
        let content = format!(
            "Trial {trial}: the deploy of build {word} finished after the team reviewed the changelog."
        );
        let started = Instant::now();
        let id = on_laptop.store_text(&content, "bench").await;
        stores.push(started.elapsed());
        trial_ids.push(id.clone());
        loop {
            if on_desktop.recall_ids(&word, "bench", 3).await.contains(&id) {
                propagation.push(started.elapsed());
                break;
            }
            ensure!(started.elapsed() < Duration::from_secs(20), "trial {trial} never arrived");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    wait_in_sync(&laptop, &["server"], Duration::from_secs(30))?;
    let (udp_after, frames_after) = link_bytes(&laptop, "server");

    // 2b: forget propagation, then the purge of 1,000 forgets on return.
    let mut forgets = Vec::new();
    for (trial, id) in trial_ids.iter().enumerate() {
        let word = format!("zebrafinch{trial}x");
        let started = Instant::now();
        on_laptop.ok("forget", json!({"ids": [id]})).await;
        loop {
            if !on_desktop.recall_ids(&word, "bench", 3).await.contains(id) {
                forgets.push(started.elapsed());
                break;
            }
            ensure!(started.elapsed() < Duration::from_secs(20), "forget {trial} never arrived");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    const RETURNING: usize = 1000;
    let mut purge_ids = Vec::new();
    for index in 0..RETURNING {
        let content = format!(
            "Purge note {index}: the courier {index}q left parcel {} at dock {}.",
            index * 7,
            index % 13
        );
        purge_ids.push(on_laptop.store_text(&content, "purge").await);
    }
    let held = |stats: &Value| stats["by_namespace"]["purge"].as_u64().unwrap_or(0);
    let arrived = ferrex_tests::eventually(Duration::from_secs(300), || async {
        let stats = on_desktop.ok("stats", json!({})).await;
        (held(&stats) == RETURNING as u64 && stats["index_lag"]["waiting_for_keys"] == 0)
            .then_some(())
    })
    .await;
    ensure!(arrived.is_some(), "the desktop never got the {RETURNING} memories");
    on_desktop.close().await;
    desktop.stop();
    let _ = nodes[2].wait();
    for chunk in purge_ids.chunks(100) {
        on_laptop.ok("forget", json!({"ids": chunk})).await;
    }
    wait_in_sync(&laptop, &["server"], Duration::from_secs(60))?;
    let restarted = Instant::now();
    nodes[2] = start_node(&desktop, netns(2).as_deref())?;
    let on_desktop = Client::connect(&desktop).await?;
    let purged = ferrex_tests::eventually(Duration::from_secs(300), || async {
        let stats = on_desktop.ok("stats", json!({})).await;
        (held(&stats) == 0).then_some(restarted.elapsed())
    })
    .await
    .context("the returning desktop never purged the forgotten memories")?;
    on_laptop.close().await;
    on_desktop.close().await;
    for home in [&server, &laptop, &desktop] {
        home.stop();
    }
    for node in &mut nodes {
        let _ = node.wait();
    }
    drop(namespaces);
    println!(
        "forget propagation laptop -> desktop, {trials} trials: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        millis(percentile(&mut forgets.clone(), 50)),
        millis(percentile(&mut forgets.clone(), 95)),
        millis(percentile(&mut forgets, 100)),
    );
    println!(
        "purge on return: a desktop that was off while {RETURNING} memories were forgotten had none left {:.2} s after its start (including the node's start)",
        purged.as_secs_f64()
    );

    println!(
        "propagation laptop -> desktop, {trials} trials: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms (store itself p50 {:.1} ms)",
        millis(percentile(&mut propagation.clone(), 50)),
        millis(percentile(&mut propagation.clone(), 95)),
        millis(percentile(&mut propagation, 100)),
        millis(percentile(&mut stores, 50)),
    );
    println!(
        "bytes per stored memory, laptop <-> server, both ways: {:.0} UDP bytes (QUIC included), {:.0} sync frame bytes",
        (udp_after - udp_before) as f64 / trials as f64,
        (frames_after - frames_before) as f64 / trials as f64,
    );

    // 3: catch-up of a fresh device.
    catch_up(&CatchUp { memories, from_home: None, embed_limit, peer_vectors }).await
}

/// What the catch-up measurement runs on.
struct CatchUp {
    /// Memories to write when no home is given.
    memories: usize,
    /// A home with documents and a complete index to copy as the full node.
    from_home: Option<PathBuf>,
    /// How long to wait for the fresh node to embed everything.
    embed_limit: Duration,
    /// Whether the fresh node takes vectors from its peer.
    peer_vectors: bool,
}

/// 4: a fresh device joins a node holding many memories. Prints when its
/// full-text search finds the newest one, and when everything is embedded
/// (or how far it got within the limit).
#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
async fn catch_up(run: &CatchUp) -> anyhow::Result<()> {
    let full = home_config("full", "127.0.0.1:0", "");
    let (probe, namespace, rates) = match &run.from_home {
        Some(source) => {
            for name in ["docs", "index.sqlite", "device.key"] {
                let status = Command::new("cp")
                    .arg("-a")
                    .arg(source.join(name))
                    .arg(full.path())
                    .status()
                    .context("running cp")?;
                ensure!(status.success(), "copying {name} from {} failed", source.display());
            }
            let index = rusqlite::Connection::open(full.path().join("index.sqlite"))?;
            let (text, namespace): (String, String) = index.query_row(
                "SELECT text, namespace FROM memories ORDER BY rowid DESC LIMIT 1",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            (text, namespace, None)
        }
        None => {
            let conversations = load_locomo(Path::new(DEFAULT_LOCOMO))?;
            let texts = bench_texts(&conversations, run.memories);
            let rates = embedding_rates(&texts)?;
            let started = Instant::now();
            prefill(&full.path().join("docs"), "bench", &texts, 1)?;
            println!(
                "catch-up: wrote {} memories, one change each, in {:.1} s",
                run.memories,
                started.elapsed().as_secs_f64()
            );
            let (ok, _, stderr) = full.run(&["reindex"]);
            ensure!(ok, "reindex failed: {stderr}");
            (texts.last().context("no texts")?.clone(), "bench".to_owned(), Some(rates))
        }
    };
    let mut full_node = start_node(&full, None)?;
    let on_full = Client::connect(&full).await?;
    let memories = on_full.ok("stats", json!({})).await["memories"].as_u64().unwrap_or(0);
    on_full.close().await;
    let fresh = home_config(
        "fresh",
        "127.0.0.1:0",
        if run.peer_vectors { "" } else { "share_vectors = false\n" },
    );
    let mut fresh_node = start_node(&fresh, None)?;
    let on_fresh = Client::connect(&fresh).await?;
    let ticket = full.invite();
    let joined = Instant::now();
    let (ok, stderr) = fresh.join(&ticket);
    ensure!(ok, "join failed: {stderr}");
    let mut searchable = None;
    let outcome = loop {
        let stats = on_fresh.ok("stats", json!({})).await;
        if searchable.is_none() && stats["memories"].as_u64() == Some(memories) {
            // The newest memory's own words find it by keywords alone
            // while vectors are still missing.
            let found = on_fresh
                .ok("recall", json!({"query": probe, "namespace": namespace, "limit": 10}))
                .await;
            let hit = found["results"].as_array().is_some_and(|results| {
                results.iter().any(|result| result["content"] == probe.as_str())
            });
            if hit {
                searchable = Some(joined.elapsed());
            }
        }
        if searchable.is_some() && stats["index_lag"]["embeddings_queued"] == 0 {
            break Ok(joined.elapsed());
        }
        if joined.elapsed() > run.embed_limit {
            break Err(stats);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let from_peers = match &outcome {
        Ok(_) => on_fresh.ok("stats", json!({})).await,
        Err(stats) => stats.clone(),
    }["index_lag"]["vectors_from_peers"]
        .as_u64()
        .unwrap_or(0);
    on_fresh.close().await;
    full.stop();
    fresh.stop();
    let _ = full_node.wait();
    let _ = fresh_node.wait();
    // The fresh node's log outlives its home, for a look at where the time went.
    let kept_log = std::env::temp_dir().join("sync_bench_fresh.log");
    if std::fs::copy(fresh.path().join("logs").join("node.log"), &kept_log).is_ok() {
        println!("  the fresh node's log: {}", kept_log.display());
    }
    let searchable = searchable.context("never searchable")?;
    println!(
        "catch-up of a fresh device from {memories} memories ({} vectors from the peer): \
         full-text searchable after {:.2} s",
        if run.peer_vectors { "with" } else { "without" },
        searchable.as_secs_f64()
    );
    match outcome {
        Ok(embedded) => {
            println!(
                "  all embedded after {:.1} s ({from_peers} memories' vectors from the peer)",
                embedded.as_secs_f64()
            );
            let embed_rate = memories as f64 / (embedded - searchable).as_secs_f64();
            if let Some((bare_rate, ferrex_rate)) = rates {
                println!(
                    "  embedding during catch-up {embed_rate:.0} memories/s; ferrex-embed alone \
                     {ferrex_rate:.0}/s (ratio {:.2}); bare fastembed {bare_rate:.0}/s (ratio {:.2})",
                    embed_rate / ferrex_rate,
                    embed_rate / bare_rate
                );
            }
        }
        Err(stats) => {
            let queued = stats["index_lag"]["embeddings_queued"].as_u64().unwrap_or(0);
            let done = memories.saturating_sub(queued);
            let rate = done as f64 / (run.embed_limit - searchable).as_secs_f64();
            println!(
                "  not all embedded within {} s: {done} of {memories} ({from_peers} from the \
                 peer; {rate:.0} memories/s; all would take about {:.0} s at that rate)",
                run.embed_limit.as_secs(),
                memories as f64 / rate.max(f64::MIN_POSITIVE)
            );
        }
    }
    Ok(())
}
