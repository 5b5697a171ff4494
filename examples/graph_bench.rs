//! Knowledge-graph benchmark: walks and entity stories at 10k entities and
//! 50k relations, through a real node and MCP.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example graph_bench [-- --entities N --relations M --queries Q --home DIR --graph-weight W]`
//!
//! 1. Writes N entities and M relations between them into a fresh home's
//!    documents, as `link` records them (a fact per relation, source
//!    `ferrex:link`, its subject and object the two entities), with eight
//!    relation types and ends drawn so that a few entities are hubs (a
//!    power law, as real graphs have), then rebuilds the index with `ferrex
//!    reindex`. `--home DIR` keeps that home in DIR, and starts from a
//!    copy of it when DIR holds one.
//! 2. Times through an MCP client, from Q entities drawn the same way:
//!    `graph` at depth 2 and at depth 5, each with the default node limit
//!    (25) and the largest (200), and `entity` (the story, its recall of
//!    memories included).
//! 3. Times `recall` of a question naming each of those entities with the
//!    graph not weighed (`memory.graph_weight = 0`) and weighed
//!    (`--graph-weight W`, default 1), the node restarted between them,
//!    two rounds of each, taken in turn: what walking the graph from recall's
//!    best candidates costs where every memory is a relation.
//!
//! Medians and 95th percentiles are printed; the last line holds every
//! figure as `key=value` pairs.

use std::{path::PathBuf, process::Stdio, time::Instant};

use anyhow::Context;
use ferrex_core::{
    Content, Entity, MemoryKind, Namespace, Timestamp, Triple, predicate::Cardinality,
    walk::LINK_SOURCE,
};
use ferrex_examples::{Draw, copy_home, millis, percentile};
use ferrex_sync::{NewMemory, NewRecords, Replica, ReplicaOptions};
use ferrex_tests::TestHome;
use serde_json::{Value, json};

const NAMESPACE: &str = "bench";

const RELATIONS: [&str; 8] = [
    "depends_on",
    "part_of",
    "owned_by",
    "caused_by",
    "built_with",
    "relates_to",
    "deployed_to",
    "replaces",
];

fn entity_name(index: usize) -> String {
    const KINDS: [&str; 6] = ["service", "library", "team", "host", "dataset", "incident"];
    format!("{}-{index:05}", KINDS[index % KINDS.len()])
}

fn prefill(home: &TestHome, entities: usize, relations: usize) -> anyhow::Result<()> {
    let replica =
        Replica::open(&home.path().join("docs"), "bench-prefill", ReplicaOptions::default())?;
    let namespace = Namespace::parse(NAMESPACE)?;
    let now = Timestamp(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_millis() as i64)
            .unwrap_or(0),
    );
    let ids: Vec<String> = (0..entities).map(|index| format!("bench-entity-{index:05}")).collect();
    for chunk in (0..entities).collect::<Vec<_>>().chunks(1000) {
        let records = NewRecords {
            entities: chunk
                .iter()
                .map(|&index| Entity {
                    id: ids[index].clone(),
                    name: entity_name(index),
                    kind: None,
                    created_at: now,
                    created_by: "bench-prefill".to_owned(),
                })
                .collect(),
            ..NewRecords::default()
        };
        replica.write_new(&namespace, now, &records)?;
    }
    let mut draw = Draw(20_261_126);
    let mut written = 0;
    while written < relations {
        let mut memories = Vec::new();
        while memories.len() < 500 && written < relations {
            let from = draw.skewed(entities);
            let to = draw.uniform(entities);
            if from == to {
                continue;
            }
            let relation = RELATIONS[draw.uniform(RELATIONS.len())];
            memories.push(NewMemory {
                id: format!("bench-link-{written:06}"),
                kind: MemoryKind::Semantic,
                content: Content::Triple(Triple {
                    subject: entity_name(from),
                    predicate: relation.to_owned(),
                    object: entity_name(to),
                }),
                confidence: 1.0,
                source: Some(LINK_SOURCE.to_owned()),
                context: None,
                tags: vec![],
                entity_ids: vec![ids[to].clone()],
                subject_entity: Some(ids[from].clone()),
                predicate_written: None,
                cardinality: Some(Cardinality::Many),
                created_at: now,
                created_by: "bench-prefill".to_owned(),
                t_valid: now,
            });
            written += 1;
        }
        replica.write_new(&namespace, now, &NewRecords { memories, ..NewRecords::default() })?;
    }
    Ok(())
}

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
fn summary(name: &str, times: &mut [std::time::Duration], line: &mut Vec<String>) {
    let p50 = millis(percentile(times, 50));
    let p95 = millis(percentile(times, 95));
    println!("{name:<28} p50 {p50:7.2} ms   p95 {p95:7.2} ms   ({} calls)", times.len());
    line.push(format!("{name}_p50_ms={p50:.2} {name}_p95_ms={p95:.2}"));
}

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut entities = 10_000usize;
    let mut relations = 50_000usize;
    let mut queries = 200usize;
    let mut kept: Option<PathBuf> = None;
    let mut graph_weight = 1.0f64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--entities" => entities = value()?.parse()?,
            "--relations" => relations = value()?.parse()?,
            "--queries" => queries = value()?.parse()?,
            "--home" => kept = Some(value()?.into()),
            "--graph-weight" => graph_weight = value()?.parse()?,
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    anyhow::ensure!(entities >= 2, "--entities must be at least 2");
    println!("ferrex graph benchmark: {entities} entities, {relations} relations");
    let home = TestHome::new();
    match kept.as_ref().filter(|dir| dir.join("index.sqlite").exists()) {
        Some(dir) => {
            println!("starting from a copy of {}", dir.display());
            copy_home(dir, home.path())?;
        }
        None => {
            let started = Instant::now();
            prefill(&home, entities, relations)?;
            println!("documents written in {:.1} s", started.elapsed().as_secs_f64());
            let started = Instant::now();
            let status = home.command(&["reindex"]).stdout(Stdio::null()).status()?;
            anyhow::ensure!(status.success(), "reindex failed");
            println!("index rebuilt in {:.1} s", started.elapsed().as_secs_f64());
            if let Some(dir) = &kept {
                copy_home(home.path(), dir)?;
            }
        }
    }
    let client = ferrex_tests::Client::connect(&home).await?;
    let mut draw = Draw(7);
    let starts: Vec<String> = (0..queries).map(|_| entity_name(draw.skewed(entities))).collect();
    let mut line = Vec::new();
    for depth in [2, 5] {
        for limit in [25, 200] {
            let mut times = Vec::new();
            let mut nodes = 0;
            let mut edges = 0;
            let mut truncated = 0;
            for start in &starts {
                let started = Instant::now();
                let answer: Value = client
                    .ok(
                        "graph",
                        json!({"from": start, "depth": depth, "limit": limit, "namespace": NAMESPACE}),
                    )
                    .await;
                times.push(started.elapsed());
                nodes += answer["nodes"].as_array().map_or(0, Vec::len);
                edges += answer["edges"].as_array().map_or(0, Vec::len);
                truncated += usize::from(answer["truncated"] == true);
            }
            let name = format!("graph_d{depth}_l{limit}");
            summary(&name, &mut times, &mut line);
            println!(
                "    mean {:.1} nodes, {:.1} edges an answer; {truncated} of {queries} truncated",
                nodes as f64 / queries as f64,
                edges as f64 / queries as f64
            );
        }
    }
    let mut times = Vec::new();
    let mut relations_seen = 0;
    for start in &starts {
        let started = Instant::now();
        let answer = client.ok("entity", json!({"name": start, "namespace": NAMESPACE})).await;
        times.push(started.elapsed());
        relations_seen += answer["edges"].as_array().map_or(0, Vec::len);
    }
    summary("entity", &mut times, &mut line);
    println!("    mean {:.1} relations a story", relations_seen as f64 / queries as f64);
    client.close().await;
    // Recall without and with the graph, in turns, restarting the node
    // with the weight in its configuration.
    let config_path = home.path().join("ferrex.toml");
    let config = std::fs::read_to_string(&config_path)?;
    let mut by_weight: [Vec<std::time::Duration>; 2] = Default::default();
    for round in 0..4 {
        let weighed = round % 2 == 1;
        let weight = if weighed { graph_weight } else { 0.0 };
        home.stop();
        std::fs::write(&config_path, format!("{config}\n[memory]\ngraph_weight = {weight}\n"))?;
        let client = ferrex_tests::Client::connect(&home).await?;
        for start in &starts {
            let query = format!("what does {start} depend on and who owns it");
            let started = Instant::now();
            client.ok("recall", json!({"query": query, "namespace": NAMESPACE, "limit": 10})).await;
            by_weight[usize::from(weighed)].push(started.elapsed());
        }
        client.close().await;
    }
    let [mut plain, mut graph] = by_weight;
    let ratio = percentile(&mut graph, 50).as_secs_f64() / percentile(&mut plain, 50).as_secs_f64();
    summary("recall_graph_weight_0", &mut plain, &mut line);
    summary("recall_graph_weighed", &mut graph, &mut line);
    println!("    p50 weighed / not: {ratio:.2}");
    line.push(format!("recall_graph_ratio={ratio:.2}"));
    println!("{}", line.join(" "));
    Ok(())
}
