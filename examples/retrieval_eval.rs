//! Retrieval evaluation through a real ferrex node and MCP, on two sets:
//! LoCoMo (dialogue turns, public) and `paraphrase_cases` (coding-agent
//! notes, queries paraphrased away from their words; written before any
//! tuning and frozen). Each set has a development split, the only one
//! choices were made on, and a held-out split reported beside it.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example retrieval_eval [-- --ways dated,agent --model NAME --config TOML --home DIR --sets locomo,notes,graph --locomo PATH]`
//!
//! - `--ways` says how LoCoMo's turns are stored, each way in a home of
//!   its own, measured side by side (default `dated,agent`):
//!   - `dated`: `[date] Speaker: text`, valid from the session's time, the
//!     turn it answers as its `context` — everything the data set knows;
//!   - `agent`: `[D<session>:<turn>] Speaker: text` and nothing else,
//!     stored now, as an agent storing a conversation as it goes does (and
//!     as a new user reproduces it); questions ask for five results, and
//!     the run checks that the first five of ten are those five;
//!   - `undated` (`--undated` alone): `Speaker: text`, still valid from the
//!     session's time and with its context.
//! - `--model` picks the embedding model (`embed.model`; default: ferrex's).
//! - `--config` adds lines to every node's `ferrex.toml`, for example
//!   `--config $'[memory]\ntext_weight = 2'`.
//! - `--home DIR` keeps the nodes' homes in DIR (`DIR/locomo-dated`,
//!   `DIR/locomo-agent`, `DIR/notes`): a second run with the same DIR
//!   stores nothing and only recalls (a different `--model` re-embeds what
//!   is stored, as a node whose model changed does), so ranking settings
//!   can be compared quickly. Without it temporary homes are used.
//!
//! LoCoMo: every dialogue turn of the 10 conversations is stored as a
//! memory, one namespace per conversation; each non-adversarial question
//! with evidence is recalled in its conversation's namespace and hits at k
//! when an evidence turn is in the top k. Conversations 3, 6 and 9
//! (index % 3 == 2) are held out.
//!
//! Notes: every note is stored in namespace `notes`; a query hits at k when
//! one of its targets is in the top k. Every third query is held out.
//!
//! Graph: `graph_cases`' two worlds (a shop's backend team, a home lab),
//! stored as an agent using the graph does: notes naming their entities,
//! facts, `link`s between entities and between memories. A question hits
//! at k when the memory that answers it (the last it needs; the first is
//! the one its words name) is in the top k, by kind of hop; every second
//! question of each kind is held out.
//!
//! Prints R@1, R@5, R@10 and MRR (over the top 10) per set, way and split,
//! and per LoCoMo category; store latency (p50/p95/max) when it stored.

use std::{
    collections::HashMap,
    path::PathBuf,
    time::{Duration, Instant},
};

use anyhow::Context;
use ferrex_examples::{
    Conversation, DEFAULT_LOCOMO, load_locomo, millis, paraphrase_cases, percentile,
};
use ferrex_tests::{Client, TestHome};
use serde_json::{Value, json};

const CATEGORIES: [(u64, &str); 4] =
    [(1, "multi-hop"), (2, "temporal"), (3, "open-domain"), (4, "single-hop")];

/// Where a kept home records which memory holds which turn or note.
const MAP_FILE: &str = "eval-map.json";

/// Ranks (0-based, within the top 10) of the first relevant result, or
/// `None` when none is in the top 10, grouped by a label.
#[derive(Default)]
struct Tally {
    ranks: Vec<Option<usize>>,
}

impl Tally {
    fn add(&mut self, rank: Option<usize>) {
        self.ranks.push(rank);
    }

    fn recall_at(&self, k: usize) -> f64 {
        let hits = self.ranks.iter().filter(|rank| rank.is_some_and(|rank| rank < k)).count();
        hits as f64 / self.ranks.len().max(1) as f64
    }

    fn mrr(&self) -> f64 {
        let sum: f64 = self.ranks.iter().flatten().map(|rank| 1.0 / (rank + 1) as f64).sum();
        sum / self.ranks.len().max(1) as f64
    }

    #[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
    fn print(&self, label: &str) {
        println!(
            "{label:<26} {:>5} {:>6.3} {:>6.3} {:>6.3} {:>6.3}",
            self.ranks.len(),
            self.recall_at(1),
            self.recall_at(5),
            self.recall_at(10),
            self.mrr()
        );
    }
}

/// How LoCoMo's turns are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// `[date] Speaker: text`, valid from the session's time, the turn it
    /// answers as its context: everything the data set knows.
    Dated,
    /// `Speaker: text`, still valid from the session's time and with its
    /// context: the date only in the memory's time.
    Undated,
    /// `[D<session>:<turn>] Speaker: text` and nothing else, stored now:
    /// what an agent storing a conversation as it goes does.
    Agent,
}

impl Way {
    fn parse(name: &str) -> anyhow::Result<Way> {
        Ok(match name {
            "dated" => Way::Dated,
            "undated" => Way::Undated,
            "agent" => Way::Agent,
            other => anyhow::bail!("unknown way {other:?}: dated, undated or agent"),
        })
    }

    fn name(self) -> &'static str {
        match self {
            Way::Dated => "dated",
            Way::Undated => "undated",
            Way::Agent => "agent",
        }
    }

    /// The `store` arguments of turn `index` of `conversation`.
    fn arguments(self, conversation: &Conversation, index: usize) -> Value {
        let turn = &conversation.turns[index];
        let content = match self {
            Way::Dated => format!("[{}] {}: {}", turn.date, turn.speaker, turn.text),
            Way::Undated => format!("{}: {}", turn.speaker, turn.text),
            Way::Agent => format!("[{}] {}: {}", turn.dia_id, turn.speaker, turn.text),
        };
        let mut arguments = json!({"namespace": conversation.id, "content": content});
        if self == Way::Agent {
            return arguments;
        }
        // When it was said: what a query's dates are matched against.
        if let Some(time) = turn.iso_time() {
            arguments["valid_from"] = json!(time);
        }
        // The turn this one answers, when in the same session: what an
        // agent would attach as the memory's context.
        if let Some(previous) = index.checked_sub(1).map(|previous| &conversation.turns[previous])
            && previous.date == turn.date
        {
            arguments["context"] = json!(format!("{}: {}", previous.speaker, previous.text));
        }
        arguments
    }
}

/// Command-line options.
struct Options {
    locomo: PathBuf,
    config: String,
    home: Option<PathBuf>,
    sets: Vec<String>,
    ways: Vec<Way>,
}

impl Options {
    fn parse() -> anyhow::Result<Options> {
        let mut options = Options {
            locomo: PathBuf::from(DEFAULT_LOCOMO),
            config: String::new(),
            home: None,
            sets: vec!["locomo".to_owned(), "notes".to_owned(), "graph".to_owned()],
            ways: vec![Way::Dated, Way::Agent],
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = || args.next().context("a flag needs a value");
            match arg.as_str() {
                "--locomo" => options.locomo = value()?.into(),
                "--model" => {
                    options.config.push_str(&format!("[embed]\nmodel = \"{}\"\n", value()?));
                }
                "--config" => {
                    options.config.push_str(&value()?);
                    options.config.push('\n');
                }
                "--home" => options.home = Some(value()?.into()),
                "--sets" => options.sets = value()?.split(',').map(str::to_owned).collect(),
                "--ways" => {
                    options.ways = value()?.split(',').map(Way::parse).collect::<Result<_, _>>()?;
                }
                "--undated" => options.ways = vec![Way::Undated],
                other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
            }
        }
        Ok(options)
    }

    /// A home for one set or way: `--home DIR/NAME` when kept, else a
    /// temporary one.
    fn home(&self, name: &str) -> TestHome {
        match &self.home {
            Some(dir) => TestHome::kept_at(&dir.join(name), &self.config),
            None => TestHome::with_config(&self.config),
        }
    }
}

/// Memory id → the LoCoMo turns or note keys it holds (a text refused as a
/// duplicate is held by the memory it duplicates), kept in the home so a
/// second run only recalls.
struct Held {
    path: PathBuf,
    map: HashMap<String, Vec<String>>,
}

impl Held {
    fn of(home: &TestHome) -> anyhow::Result<Held> {
        let path = home.path().join(MAP_FILE);
        let map = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).context("reading the eval map")?,
            Err(_) => HashMap::new(),
        };
        Ok(Held { path, map })
    }

    fn save(&self) -> anyhow::Result<()> {
        Ok(std::fs::write(&self.path, serde_json::to_vec(&self.map)?)?)
    }

    /// Where the first memory holding one of `wanted` is in `ids`.
    fn rank(&self, ids: &[String], wanted: &[String]) -> Option<usize> {
        ids.iter().position(|id| {
            self.map.get(id).is_some_and(|keys| keys.iter().any(|key| wanted.contains(key)))
        })
    }
}

/// Recall latencies over every set.
type Latencies = Vec<Duration>;

#[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let options = Options::parse()?;
    let mut recalls: Latencies = Vec::new();
    let started = Instant::now();
    if options.sets.iter().any(|set| set == "locomo") {
        let conversations = load_locomo(&options.locomo)?;
        for &way in &options.ways {
            locomo(&options, &conversations, way, &mut recalls).await?;
        }
    }
    if options.sets.iter().any(|set| set == "notes") {
        notes(&options, &mut recalls).await?;
    }
    if options.sets.iter().any(|set| set == "graph") {
        graph(&options, &mut recalls).await?;
    }
    println!(
        "{} recalls in {:.0} s; recall p50 {:.1} ms, p95 {:.1} ms",
        recalls.len(),
        started.elapsed().as_secs_f64(),
        millis(percentile(&mut recalls, 50)),
        millis(percentile(&mut recalls, 95)),
    );
    Ok(())
}

/// Prints the header of a table of figures.
#[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
fn header(title: &str) {
    println!("\n{title}");
    println!(
        "{:<26} {:>5} {:>6} {:>6} {:>6} {:>6}",
        "set / split", "n", "R@1", "R@5", "R@10", "MRR"
    );
}

/// Stores LoCoMo one way (unless its kept home has it) and prints its
/// figures by split and category.
#[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
async fn locomo(
    options: &Options,
    conversations: &[Conversation],
    way: Way,
    recalls: &mut Latencies,
) -> anyhow::Result<()> {
    let home = options.home(&format!("locomo-{}", way.name()));
    let mut held = Held::of(&home)?;
    let client = home.client().await;
    if held.map.is_empty() {
        let mut stores = Vec::new();
        for conversation in conversations {
            for (index, turn) in conversation.turns.iter().enumerate() {
                let id = store(&client, way.arguments(conversation, index), &mut stores).await;
                held.map.entry(id).or_default().push(turn.dia_id.clone());
            }
        }
        print_stores(&format!("LoCoMo, {}", way.name()), &mut stores);
        held.save()?;
    }
    wait_until_embedded(&client).await?;
    header(&format!("LoCoMo stored the {} way", way.name()));
    let mut splits: [Tally; 2] = Default::default();
    let mut categories: HashMap<(u64, bool), Tally> = HashMap::new();
    for (number, conversation) in conversations.iter().enumerate() {
        let held_out = number % 3 == 2;
        for question in &conversation.questions {
            if question.category == 5 || question.evidence.is_empty() {
                continue;
            }
            let asked = Instant::now();
            let ids = client.recall_ids(&question.question, &conversation.id, 10).await;
            recalls.push(asked.elapsed());
            if way == Way::Agent {
                // An agent asks for five; the first five of ten are the same
                // five (the limit does not change the ranking), checked.
                let five = client.recall_ids(&question.question, &conversation.id, 5).await;
                anyhow::ensure!(
                    ids.len() < 5 || five[..] == ids[..5],
                    "recall with limit 5 ranked otherwise than with limit 10: {:?}",
                    question.question
                );
            }
            let rank = held.rank(&ids, &question.evidence);
            splits[usize::from(held_out)].add(rank);
            categories.entry((question.category, held_out)).or_default().add(rank);
        }
    }
    splits[0].print("locomo dev");
    splits[1].print("locomo held-out");
    for (category, name) in CATEGORIES {
        for (held_out, split) in [(false, "dev"), (true, "held-out")] {
            if let Some(tally) = categories.get(&(category, held_out)) {
                tally.print(&format!("  {name} {split}"));
            }
        }
    }
    client.close().await;
    Ok(())
}

/// Stores the paraphrased notes (unless its kept home has them) and prints
/// their figures by split.
async fn notes(options: &Options, recalls: &mut Latencies) -> anyhow::Result<()> {
    let home = options.home("notes");
    let mut held = Held::of(&home)?;
    let client = home.client().await;
    if held.map.is_empty() {
        let mut stores = Vec::new();
        for note in paraphrase_cases::NOTES {
            let arguments = json!({"namespace": "notes", "content": note.text});
            let id = store(&client, arguments, &mut stores).await;
            held.map.entry(id).or_default().push(note.key.to_owned());
        }
        print_stores("notes", &mut stores);
        held.save()?;
    }
    wait_until_embedded(&client).await?;
    header("Paraphrased notes");
    let mut splits: [Tally; 2] = Default::default();
    for (number, query) in paraphrase_cases::QUERIES.iter().enumerate() {
        let asked = Instant::now();
        let ids = client.recall_ids(query.text, "notes", 10).await;
        recalls.push(asked.elapsed());
        let targets: Vec<String> = query.targets.iter().map(|key| (*key).to_owned()).collect();
        splits[usize::from(paraphrase_cases::held_out(number))].add(held.rank(&ids, &targets));
    }
    splits[0].print("notes dev");
    splits[1].print("notes held-out");
    client.close().await;
    Ok(())
}

/// Stores the graph worlds (unless the kept home has them: notes with
/// their entities, facts, and links between entities and between memories,
/// each world in a namespace of its own) and prints, per kind of hop and
/// split, where the memory that answers is (the last of a question's
/// `needs`), and how often all of its `needs` are in the top five.
#[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
async fn graph(options: &Options, recalls: &mut Latencies) -> anyhow::Result<()> {
    use ferrex_examples::graph_cases::{End, Hop, WORLDS};
    let home = options.home("graph");
    let mut held = Held::of(&home)?;
    let client = home.client().await;
    if held.map.is_empty() {
        let mut stores = Vec::new();
        for world in WORLDS {
            let mut ids: HashMap<&str, String> = HashMap::new();
            for note in world.notes {
                let arguments = json!({
                    "namespace": world.name, "content": note.text, "entities": note.entities,
                });
                ids.insert(note.key, store(&client, arguments, &mut stores).await);
            }
            for fact in world.facts {
                let arguments = json!({
                    "namespace": world.name, "subject": fact.subject,
                    "predicate": fact.predicate, "object": fact.object,
                });
                ids.insert(fact.key, store(&client, arguments, &mut stores).await);
            }
            for link in world.links {
                let end = |end: &End| -> anyhow::Result<String> {
                    Ok(match end {
                        End::Entity(name) => (*name).to_owned(),
                        End::Memory(key) => ids.get(key).context("a link to no memory")?.clone(),
                    })
                };
                let arguments = json!({
                    "namespace": world.name, "from": end(&link.from)?, "to": end(&link.to)?,
                    "relation": link.relation,
                });
                // A link the node refuses (two names it takes for one
                // entity) is what an agent would see: reported, not fatal.
                if let Err(refused) = client.call("link", arguments.clone()).await? {
                    println!("link refused: {arguments}: {refused}");
                }
            }
            for (key, id) in ids {
                held.map.entry(id).or_default().push(format!("{}/{key}", world.name));
            }
        }
        print_stores("graph worlds", &mut stores);
        held.save()?;
    }
    wait_until_embedded(&client).await?;
    header("Graph worlds: where the answer is (the last of a question's needs)");
    let hops = [Hop::Entity, Hop::Relation, Hop::MemoryLink, Hop::Single];
    let mut answers: HashMap<(usize, bool), Tally> = HashMap::new();
    let mut multi: [Tally; 2] = Default::default();
    // Questions with every need in the top five, of those asked.
    let mut complete: HashMap<(bool, bool), (usize, usize)> = HashMap::new();
    // Multi-hop questions whose bridge (the first need) is in the top five.
    let mut bridged: [(usize, usize); 2] = Default::default();
    for world in WORLDS {
        for question in world.questions {
            let asked = Instant::now();
            let ids = client.recall_ids(question.query, world.name, 10).await;
            recalls.push(asked.elapsed());
            let key = |key: &str| vec![format!("{}/{key}", world.name)];
            let answer = question.needs.last().context("a question needs a memory")?;
            let rank = held.rank(&ids, &key(answer));
            let hop = hops.iter().position(|hop| *hop == question.hop).unwrap_or_default();
            answers.entry((hop, question.held_out)).or_default().add(rank);
            let single = question.hop == Hop::Single;
            if !single {
                multi[usize::from(question.held_out)].add(rank);
                let bridge = held.rank(&ids, &key(question.needs[0])).is_some_and(|rank| rank < 5);
                let tally = &mut bridged[usize::from(question.held_out)];
                tally.0 += usize::from(bridge);
                tally.1 += 1;
            }
            let all = question
                .needs
                .iter()
                .all(|need| held.rank(&ids, &key(need)).is_some_and(|rank| rank < 5));
            let tally = complete.entry((single, question.held_out)).or_default();
            tally.0 += usize::from(all);
            tally.1 += 1;
        }
    }
    multi[0].print("multi-hop dev");
    multi[1].print("multi-hop held-out");
    for (position, hop) in hops.iter().enumerate() {
        for (held_out, split) in [(false, "dev"), (true, "held-out")] {
            if let Some(tally) = answers.get(&(position, held_out)) {
                tally.print(&format!("  {hop:?} {split}"));
            }
        }
    }
    for ((single, held_out), (all, asked)) in {
        let mut sorted: Vec<_> = complete.into_iter().collect();
        sorted.sort();
        sorted
    } {
        let (kind, split) = (if single { "single" } else { "multi-hop" }, split_name(held_out));
        println!("every need in the top 5, {kind} {split}: {all} of {asked}");
    }
    for (held_out, (found, asked)) in bridged.into_iter().enumerate() {
        let split = split_name(held_out == 1);
        println!("the bridge in the top 5, multi-hop {split}: {found} of {asked}");
    }
    client.close().await;
    Ok(())
}

fn split_name(held_out: bool) -> &'static str {
    if held_out { "held-out" } else { "dev" }
}

/// Prints how long storing a set took.
#[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
fn print_stores(what: &str, stores: &mut Latencies) {
    println!(
        "stored {what}: {} texts; store p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        stores.len(),
        millis(percentile(stores, 50)),
        millis(percentile(stores, 95)),
        millis(percentile(stores, 100)),
    );
}

/// Stores one text, timing the call; returns the id that holds it.
async fn store(client: &Client, arguments: Value, latencies: &mut Vec<Duration>) -> String {
    let started = Instant::now();
    let answer = client.ok("store", arguments).await;
    latencies.push(started.elapsed());
    answer["id"].as_str().unwrap_or_default().to_owned()
}

/// Waits (bounded, an hour) until the node has embedded everything, passages
/// included, as it does after its model changed; prints progress to stderr.
#[allow(clippy::print_stderr, reason = "progress of a long wait")]
async fn wait_until_embedded(client: &Client) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut reported = Instant::now();
    while started.elapsed() < Duration::from_secs(3600) {
        let stats = client.ok("stats", json!({})).await;
        let lag = &stats["index_lag"];
        // Passages too: a memory without them is found less well.
        let queued = lag["embeddings_queued"].as_i64().unwrap_or(0)
            + lag["passages_queued"].as_i64().unwrap_or(0);
        if queued == 0 {
            return Ok(());
        }
        if reported.elapsed() > Duration::from_secs(20) {
            eprintln!("waiting for {queued} memories to be embedded");
            reported = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    anyhow::bail!("the node was still embedding after an hour")
}
