//! The terminal commands a person reads and corrects their memory with —
//! `ferrex store`, `recall`, `list`, `show`, `topics`, `edit`, `forget` —
//! run as real processes against a real node (started by the first
//! command), with the real model. Their stable `--json` and their tables
//! are compared with snapshots (`tests/snapshots`), ids, times and scores
//! masked.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod typed;

use ferrex_engine::answers::{
    ForgetAnswer, RecallAnswer, StoreAnswer, TopicsAnswer,
    browse::{Browsed, ListAnswer, ShowAnswer},
    graph::UpdateAnswer,
};
use ferrex_tests::TestHome;
use regex::Regex;
use serde::de::DeserializeOwned;

/// Runs `ferrex <args>`; stdout if it succeeded, else panics with stderr.
fn ok(home: &TestHome, args: &[&str]) -> String {
    let (success, stdout, stderr) = home.run(args);
    assert!(success, "ferrex {args:?} failed: {stderr}");
    stdout
}

/// Runs `ferrex <args> --json` and reads its stdout as the answer's type.
fn json<T: DeserializeOwned>(home: &TestHome, args: &[&str]) -> T {
    let mut args = args.to_vec();
    args.push("--json");
    let stdout = ok(home, &args);
    serde_json::from_str(&stdout).unwrap_or_else(|error| panic!("{args:?}: {error}: {stdout}"))
}

fn list(home: &TestHome, args: &[&str]) -> ListAnswer {
    json(home, &[&["list"], args].concat())
}

fn show(home: &TestHome, id: &str) -> ShowAnswer {
    json(home, &["show", id])
}

/// The ids of memories browsed, in order.
fn browsed_ids(memories: &[Browsed]) -> Vec<&str> {
    memories.iter().map(|browsed| browsed.memory.id.as_str()).collect()
}

/// Runs `ferrex <args>`, which must fail: its stderr (stdout must be empty).
fn fails(home: &TestHome, args: &[&str]) -> String {
    let (success, stdout, stderr) = home.run(args);
    assert!(!success, "ferrex {args:?} succeeded: {stdout}");
    assert!(stdout.is_empty(), "ferrex {args:?} printed on stdout: {stdout}");
    stderr
}

/// `text` with each memory and entity id replaced by `<id N>` (numbered by
/// first appearance), device ids by `<device id>`, times and dates by
/// `<time>` and `<date>`, scores and trust by `<score>`, so a snapshot says
/// what does not vary.
fn masked(text: &str) -> String {
    let id = Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    let mut seen: Vec<String> = Vec::new();
    let text = id.replace_all(text, |found: &regex::Captures<'_>| {
        let found = found[0].to_owned();
        let number = match seen.iter().position(|known| *known == found) {
            Some(number) => number,
            None => {
                seen.push(found);
                seen.len() - 1
            }
        };
        format!("<id {number}>")
    });
    let time = Regex::new(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z").unwrap();
    let text = time.replace_all(&text, "<time>");
    let date = Regex::new(r"\d{4}-\d{2}-\d{2}").unwrap();
    let text = date.replace_all(&text, "<date>");
    let score = Regex::new(r#"("(score|trust)": )-?[0-9.e-]+"#).unwrap();
    let text = score.replace_all(&text, "$1<score>");
    let column = Regex::new(r"(?m)^\d\.\d{3}  ").unwrap();
    let text = column.replace_all(&text, "<score>  ");
    let trust = Regex::new(r"trust       \d\.\d\d").unwrap();
    let text = trust.replace_all(&text, "trust       <score>");
    let device = Regex::new(r"[0-9a-f]{64}").unwrap();
    device.replace_all(&text, "<device id>").into_owned()
}

#[test]
fn a_person_reads_and_corrects_their_memory_in_a_terminal() {
    let home = TestHome::named("laptop");
    // The first command starts the node.
    let backup: StoreAnswer = json(
        &home,
        &[
            "store",
            "the backup job runs nightly at 02:00 on the home server",
            "--tag",
            "ops",
            "--entity",
            "home server",
        ],
    );
    assert_eq!(backup.status, "stored", "{backup:?}");
    let backup = backup.id;
    let old_port = json::<StoreAnswer>(
        &home,
        &[
            "store",
            "--subject",
            "api-server",
            "--predicate",
            "port",
            "--object",
            "8080",
            "--tag",
            "ops",
        ],
    )
    .id;
    let port =
        ok(&home, &["store", "--subject", "api-server", "--predicate", "port", "--object", "9090"]);
    let port = port.trim().strip_prefix("stored ").unwrap().to_owned();
    let howto = json::<StoreAnswer>(
        &home,
        &[
            "store",
            "to rotate the logs run logrotate -f /etc/logrotate.conf",
            "--type",
            "procedural",
        ],
    )
    .id;
    let again = ok(&home, &["store", "the backup job runs nightly at 02:00 on the home server"]);
    assert!(again.starts_with(&format!("already stored as {backup}")), "{again}");

    // Recall: the same pipeline as the tool, best first.
    let recalled: RecallAnswer =
        json(&home, &["recall", "when does the backup run", "--limit", "3"]);
    assert_eq!(recalled.results[0].memory.id, backup, "{recalled:?}");
    let confirmed: RecallAnswer =
        json(&home, &["recall", "when does the backup run", "--limit", "3", "--validate", &backup]);
    assert_eq!(confirmed.validated, Some(vec![backup.clone()]), "{confirmed:?}");
    let table = ok(&home, &["recall", "when does the backup run", "--limit", "3"]);
    assert!(table.starts_with("SCORE  ID"), "{table}");
    assert!(table.contains(&backup), "{table}");
    let facts: RecallAnswer = json(&home, &["recall", "api-server port", "--type", "semantic"]);
    assert_eq!(ids(&facts), [port.as_str()], "superseded facts are left out");

    // List: filters and pages.
    let listed = list(&home, &[]);
    assert_eq!(listed.total, 3, "{listed:?}");
    assert_eq!(list(&home, &["--status", "any"]).total, 4);
    let superseded = list(&home, &["--status", "superseded"]);
    assert_eq!(browsed_ids(&superseded.memories)[..1], [old_port.as_str()]);
    let tagged = list(&home, &["--tag", "ops"]);
    assert_eq!(browsed_ids(&tagged.memories), [backup.as_str()], "{tagged:?}");
    let procedural = list(&home, &["--type", "procedural"]);
    assert_eq!(browsed_ids(&procedural.memories)[..1], [howto.as_str()]);
    let about = list(&home, &["--entity", "home server"]);
    assert_eq!(browsed_ids(&about.memories)[..1], [backup.as_str()]);
    assert_eq!(list(&home, &["--since", "2999-01-01"]).total, 0);
    let page: Vec<String> = [0, 1, 2]
        .iter()
        .map(|offset| {
            let page = list(&home, &["--limit", "1", "--offset", &offset.to_string()]);
            assert_eq!(page.count, 1, "{page:?}");
            page.memories[0].memory.id.clone()
        })
        .collect();
    assert_eq!(page, browsed_ids(&listed.memories), "pages of one walk the list in order");

    // Show: standing, entities, edges, history.
    let shown = show(&home, &port);
    assert_eq!(shown.memory.memory.standing.status.as_deref(), Some("current"), "{shown:?}");
    assert_eq!(shown.entities[0].name, "api-server", "{shown:?}");
    let edge = &shown.edges[0];
    assert_eq!((edge.kind.as_str(), edge.to.as_str()), ("supersedes", old_port.as_str()));
    let history: Vec<Option<&str>> =
        shown.history.iter().map(|step| step.content.object.as_deref()).collect();
    assert_eq!(history, [Some("8080"), Some("9090")], "{shown:?}");

    // Topics: tags and entities with counts (superseded memories aside).
    let topics: TopicsAnswer = json(&home, &["topics"]);
    assert_eq!((topics.tags[0].tag.as_str(), topics.tags[0].count), ("ops", 1), "{topics:?}");
    let names: Vec<&str> = topics.entities.iter().map(|entity| entity.name.as_str()).collect();
    assert!(names.contains(&"home server") && names.contains(&"api-server"), "{topics:?}");

    // Snapshots of the stable JSON and the tables.
    insta::assert_snapshot!(
        "list_json",
        masked(&ok(&home, &["list", "--status", "any", "--json"]))
    );
    insta::assert_snapshot!("list_table", masked(&ok(&home, &["list", "--status", "any"])));
    insta::assert_snapshot!("show_json", masked(&ok(&home, &["show", &port, "--json"])));
    insta::assert_snapshot!("show_table", masked(&ok(&home, &["show", &port])));
    insta::assert_snapshot!(
        "recall_json",
        masked(&ok(&home, &["recall", "api-server port", "--type", "semantic", "--json"]))
    );
    insta::assert_snapshot!(
        "recall_table",
        masked(&ok(&home, &["recall", "api-server port", "--type", "semantic"]))
    );

    // Edit: the correction supersedes the old text and keeps its tags and
    // entities; a fact is corrected by its value.
    let edited: UpdateAnswer = json(
        &home,
        &["edit", &backup, "--content", "the backup job runs nightly at 03:00 on the home server"],
    );
    let new = show(&home, &edited.id);
    assert_eq!(new.memory.memory.tags, ["ops"], "{new:?}");
    assert_eq!(new.entities[0].name, "home server", "{new:?}");
    let old = show(&home, &backup);
    assert_eq!(old.memory.memory.standing.status.as_deref(), Some("superseded"));
    let corrected: UpdateAnswer = json(&home, &["edit", &port, "--object", "9443"]);
    let value = show(&home, &corrected.id).memory.memory.content.object;
    assert_eq!(value.as_deref(), Some("9443"));
    assert!(
        fails(&home, &["edit", &port, "--content", "x"])
            .contains("is a fact: give its new value with --object")
    );

    // Forget: asks first (and without a terminal to ask in, refuses).
    let refused = fails(&home, &["forget", &howto]);
    assert!(refused.contains("logrotate") && refused.contains("--yes"), "{refused}");
    assert_eq!(show(&home, &howto).memory.memory.id, howto);
    let forgotten: ForgetAnswer = json(&home, &["forget", &howto, "no-such-memory", "--yes"]);
    assert_eq!(forgotten.forgotten, [howto.as_str()], "{forgotten:?}");
    assert_eq!(forgotten.unknown, ["no-such-memory"], "{forgotten:?}");
    assert!(fails(&home, &["show", &howto]).contains("names no memory"));

    // Bad input: a clear error on stderr, nothing on stdout, nothing changed.
    let before = list(&home, &["--status", "any"]).total;
    assert!(
        fails(&home, &["list", "--status", "bogus"])
            .contains("status must be active, current, contested, superseded or any")
    );
    assert!(fails(&home, &["list", "--since", "someday"]).contains("since"));
    assert!(
        fails(&home, &["recall", "x", "--namespace", "bad ns"]).contains("namespace contains ' '")
    );
    assert!(fails(&home, &["recall", "x", "--type", "fact"]).contains("types[0] must be episodic"));
    assert!(fails(&home, &["store"]).contains("content is missing"));
    assert!(
        fails(&home, &["store", "x", "--supersedes", "no-such-memory"]).contains("names no memory")
    );
    assert_eq!(list(&home, &["--status", "any"]).total, before);
    home.stop();
}

/// Runs `ferrex <args> --json` in `dir` (whose repository is its project)
/// and reads its stdout as the answer's type.
fn json_in<T: DeserializeOwned>(home: &TestHome, dir: &std::path::Path, args: &[&str]) -> T {
    let mut args = args.to_vec();
    args.push("--json");
    let output = home.command(&args).current_dir(dir).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_str(&stdout).unwrap_or_else(|error| panic!("{args:?}: {error}: {stdout}"))
}

/// Runs `ferrex <args>` in `dir`; its stdout.
fn text_in(home: &TestHome, dir: &std::path::Path, args: &[&str]) -> String {
    let output = home.command(args).current_dir(dir).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

use typed::ids;

/// Tried as a new user would (issue 41): an agent in a repository whose
/// remote is git@github.com:acme/api.git stores into github.com.acme.api,
/// and `ferrex recall` in the same folder answered "No memories in default
/// match"; `list` and `topics` showed nothing.
#[tokio::test]
async fn the_terminal_sees_what_the_agent_stored_in_the_project_of_its_folder() {
    let home = TestHome::new();
    let dirs = tempfile::tempdir().unwrap();
    let repo = ferrex_tests::checkout(&dirs.path().join("api"), "git@github.com:acme/api.git");
    let agent = ferrex_tests::Client::connect_in(&home, &repo).await.unwrap();
    let project: StoreAnswer = agent
        .answer("store", serde_json::json!({"content": "Dana reviews every change to the token service", "tags": ["review"]}))
        .await;
    assert_eq!(project.namespace, "github.com.acme.api");
    let universal: StoreAnswer = agent
        .answer("store", serde_json::json!({"content": "Token changes need two approvals on every repository", "universal": true}))
        .await;
    let elsewhere: StoreAnswer = agent
        .answer("store", serde_json::json!({"content": "The web app's token refresh is reviewed by Sam", "namespace": "github.com.acme.web"}))
        .await;
    agent.caught_up().await;
    let (project, universal, elsewhere) = (project.id, universal.id, elsewhere.id);

    // In the repository: the project and default, as the agent's recall.
    let recalled: RecallAnswer = json_in(&home, &repo, &["recall", "who reviews token changes"]);
    let found = ids(&recalled);
    assert!(found.contains(&project) && found.contains(&universal), "{found:?}");
    assert!(!found.contains(&elsewhere), "{found:?}");
    assert_eq!(recalled.namespaces, ["github.com.acme.api", "default"]);
    let table = text_in(&home, &repo, &["recall", "who reviews token changes"]);
    assert!(table.contains("searched github.com.acme.api and default"), "{table}");
    assert!(table.contains("NAMESPACE") && table.contains("Dana"), "{table}");
    let listed: ListAnswer = json_in(&home, &repo, &["list"]);
    assert_eq!(listed.namespaces, ["github.com.acme.api", "default"]);
    let mut listed_ids = browsed_ids(&listed.memories);
    listed_ids.sort_unstable();
    let mut expected = [project.as_str(), universal.as_str()];
    expected.sort_unstable();
    assert_eq!(listed_ids, expected);
    let topics = text_in(&home, &repo, &["topics"]);
    assert!(
        topics.starts_with("in github.com.acme.api and default") && topics.contains("review"),
        "{topics}"
    );

    // --namespace wins; --all spans every namespace.
    let named: RecallAnswer = json_in(
        &home,
        &repo,
        &["recall", "who reviews token changes", "-n", "github.com.acme.web"],
    );
    assert_eq!(ids(&named), [elsewhere]);
    let all: RecallAnswer =
        json_in(&home, &repo, &["recall", "who reviews token changes", "--all"]);
    assert_eq!(all.namespaces, ["default", "github.com.acme.api", "github.com.acme.web"]);
    assert_eq!(all.results.len(), 3, "{all:?}");
    let every: ListAnswer = json_in(&home, &repo, &["list", "--all"]);
    assert_eq!(every.total, 3);
    let both = home.command(&["list", "--all", "-n", "default"]).output().unwrap();
    assert!(!both.status.success(), "--all and --namespace together are refused");

    // Outside any repository: default alone, and the answer says so.
    let outside: RecallAnswer =
        json_in(&home, home.path(), &["recall", "who reviews token changes"]);
    assert_eq!(ids(&outside), [universal]);
    assert_eq!(outside.namespaces, ["default"]);
    agent.close().await;
}
