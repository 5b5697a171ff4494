//! The engine at its middle boundary: an engine over a temporary home (real
//! documents, a real SQLite index), in this process, with a clock set by
//! hand and the deterministic word-hashing test embedder (what is checked
//! here does not depend on the model; the end-to-end suites run the real
//! one through real processes).

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{collections::BTreeSet, time::Duration};

use ferrex_core::{
    MemoryKind, Namespace, StoreInput,
    walk::{Direction, Walk},
    working::TaskStatus,
};
use ferrex_engine::{
    engine::{
        RecallRequest, Sources,
        graph::{GraphRequest, LinkRequest},
    },
    testing::TestEngine,
};

const DAY: Duration = Duration::from_secs(86_400);

fn text(content: &str, namespace: &str) -> StoreInput {
    StoreInput {
        content: Some(content.to_owned()),
        kind: Some(MemoryKind::Episodic),
        namespace: Some(namespace.to_owned()),
        ..StoreInput::default()
    }
}

fn recall(query: &str, namespace: &str, limit: usize) -> RecallRequest {
    RecallRequest {
        query: query.to_owned(),
        namespace: Namespace::parse(namespace).unwrap(),
        limit,
        sources: Sources::Both,
        ..RecallRequest::default()
    }
}

fn ids(results: &[ferrex_engine::engine::Recalled]) -> Vec<String> {
    results.iter().map(|result| result.row.id.clone()).collect()
}

#[test]
fn a_stored_memory_is_recalled_at_once_and_a_duplicate_is_the_same_memory() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let stored = engine
        .store(text("The deploy token rotates every Tuesday at noon.", "ops"), false)
        .unwrap();
    assert!(!stored.duplicate);
    let other = engine.store(text("Lunch is served in the atrium.", "ops"), false).unwrap();
    // Found before the worker has embedded its passages, by its own vector
    // and its words.
    let (results, _, _) =
        engine.recall(&recall("when does the deploy token rotate", "ops", 5)).unwrap();
    assert_eq!(results.first().map(|result| result.row.id.as_str()), Some(stored.id.as_str()));
    assert!(!ids(&results[..1]).contains(&other.id));
    // The same text again is the same memory, with more evidence.
    let again = engine
        .store(text("The deploy token rotates every Tuesday at noon.", "ops"), false)
        .unwrap();
    assert!(again.duplicate);
    assert_eq!(again.id, stored.id);
    assert_eq!(again.evidence, Some(2));
    // Nothing of another namespace answers.
    let (elsewhere, _, _) = engine.recall(&recall("deploy token", "default", 5)).unwrap();
    assert!(elsewhere.is_empty(), "{:?}", ids(&elsewhere));
    // The worker's share (the passages) is done when asked, and the
    // memory is still found.
    test.embed_queued().unwrap();
    let (results, _, backlog) = engine.recall(&recall("deploy token Tuesday", "ops", 5)).unwrap();
    assert_eq!(results[0].row.id, stored.id);
    assert!(backlog.is_empty(), "{backlog:?}");
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    assert!(engine.store(text("   ", "ops"), false).is_err());
    assert!(engine.store(text("A note.", "not a namespace!"), false).is_err());
    let (results, _, _) = engine.recall(&recall("note", "ops", 5)).unwrap();
    assert!(results.is_empty());
}

#[test]
fn a_project_recall_reads_the_default_namespace_too_and_uses_only_what_it_returns() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let project = Namespace::parse("github.com.acme.api").unwrap();
    let in_project = engine
        .store(
            text("The api server listens on port 8080 behind the proxy.", project.as_str()),
            false,
        )
        .unwrap();
    let in_default = engine
        .store(text("The proxy in front of every server is nginx on port 443.", "default"), false)
        .unwrap();
    let request = recall("which port does the proxy server use", project.as_str(), 1);

    // Both namespaces are searched; the limit holds over both.
    let (both, _, _) = engine
        .recall_across(&RecallRequest { limit: 5, ..request.clone() }, &[Namespace::default()])
        .unwrap();
    let found: BTreeSet<String> = ids(&both).into_iter().collect();
    assert_eq!(found, BTreeSet::from([in_project.id.clone(), in_default.id.clone()]));
    for result in &both {
        let expected = if result.row.id == in_project.id { project.as_str() } else { "default" };
        assert_eq!(result.row.namespace, expected);
    }

    // With room for one, only the one returned counts as used (counts
    // are buffered in the index and folded into the documents now and
    // then: folded here before each reading).
    engine.fold_access().unwrap();
    let before: Vec<i64> = [&in_project.id, &in_default.id]
        .iter()
        .map(|id| engine.memory(id).unwrap().unwrap().access_count)
        .collect();
    let (one, _, _) = engine.recall_across(&request, &[Namespace::default()]).unwrap();
    assert_eq!(one.len(), 1);
    let returned = &one[0].row.id;
    engine.fold_access().unwrap();
    for (id, before) in [&in_project.id, &in_default.id].into_iter().zip(before) {
        let after = engine.memory(id).unwrap().unwrap().access_count;
        let expected = if id == returned { before + 1 } else { before };
        assert_eq!(after, expected, "access of {id} (returned: {returned})");
    }
}

#[test]
fn memories_grow_stale_as_the_clock_moves_and_a_validation_freshens_them() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let stored =
        engine.store(text("The coffee machine on floor 3 was fixed.", "default"), false).unwrap();
    let query = recall("coffee machine floor 3", "default", 5);
    let (fresh, _, _) = engine.recall(&query).unwrap();
    assert_eq!(ids(&fresh), vec![stored.id.clone()]);

    // Years later, with no use in between, it is stale: left out unless
    // asked for.
    test.clock.advance(DAY * 3 * 365);
    let (left_out, _, _) = engine.recall(&query).unwrap();
    assert!(left_out.is_empty(), "{:?}", ids(&left_out));
    let (asked, _, _) =
        engine.recall(&RecallRequest { include_stale: true, ..query.clone() }).unwrap();
    assert_eq!(ids(&asked), vec![stored.id.clone()]);
    assert_eq!(asked[0].staleness, ferrex_core::Staleness::Stale);
    let reflection = engine.reflect(&Namespace::default(), 10, true, false).unwrap();
    assert_eq!(ids(&reflection.stale), vec![stored.id.clone()]);
    let stats = engine.detailed_stats().unwrap();
    assert_eq!(stats.staleness.get("episodic"), Some(&[0, 0, 1]), "{:?}", stats.staleness);

    // Validated now, it is back.
    assert_eq!(engine.validate(std::slice::from_ref(&stored.id)).unwrap(), vec![stored.id.clone()]);
    let (back, _, _) = engine.recall(&query).unwrap();
    assert_eq!(ids(&back), vec![stored.id.clone()]);
}

#[test]
fn a_task_left_untouched_expires_and_a_note_brings_it_back() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let namespace = Namespace::parse("work").unwrap();
    let (task, existed) = engine
        .start_task(&namespace, "Migrate the users table to Postgres 16", None, None, None)
        .unwrap();
    assert!(!existed);
    // Starting it again points at it.
    let (same, existed) = engine
        .start_task(&namespace, "Migrate the users table to Postgres 16", None, None, None)
        .unwrap();
    assert_eq!((same.as_str(), existed), (task.as_str(), true));
    let status = |engine: &ferrex_engine::Engine| {
        engine.task(&namespace, &task, engine.now()).unwrap().unwrap().state.status
    };
    assert_eq!(status(engine), TaskStatus::Active);

    // A week and a day untouched: expired (the default expiry is a week).
    test.clock.advance(DAY * 8);
    assert_eq!(status(engine), TaskStatus::Expired);
    // A note is activity: it is active again, as of now.
    let (_, noted) = engine
        .note_task(
            &namespace,
            &task,
            ferrex_core::working::WorkingKind::TaskUpdate,
            "Copied the schema.",
        )
        .unwrap();
    assert_eq!(noted.state.status, TaskStatus::Active);
    assert_eq!(noted.state.last_activity, engine.now());
}

#[test]
fn a_link_between_names_makes_entities_the_graph_walks() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let namespace = Namespace::parse("team").unwrap();
    let reviews = |from: &str| LinkRequest {
        from: from.into(),
        to: "the token refresh code".into(),
        relation: "reviews".into(),
        note: None,
        confidence: None,
        namespace: namespace.clone(),
    };
    let linked = engine.link(reviews("Alice")).unwrap();
    assert!(!linked.reinforced);
    // The same link again reinforces it rather than adding another.
    let again = engine.link(reviews("alice")).unwrap();
    assert!(again.reinforced, "{again:?}");
    let graph = engine
        .graph(&GraphRequest {
            from: "Alice".into(),
            walk: Walk {
                depth: 1,
                relations: BTreeSet::new(),
                direction: Direction::Both,
                limit: 20,
                budget: 10_000,
            },
            namespace,
        })
        .unwrap();
    let labels: BTreeSet<&str> = graph.nodes.iter().map(|(node, _)| node.label()).collect();
    assert!(labels.contains("the token refresh code"), "{labels:?}");
    assert_eq!(graph.edges.len(), 1, "{:?}", graph.edges);
}

#[test]
fn a_watched_folder_is_read_into_chunks_that_follow_its_files() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let folder = test.home().join("notes");
    std::fs::create_dir_all(folder.join("target")).unwrap();
    let runbook = folder.join("runbook.md");
    std::fs::write(
        &runbook,
        "# Backups\n\nThe backup job runs at midnight from the NAS.\n\n# Deploys\n\nDeploys go out on Thursdays after the review.\n",
    )
    .unwrap();
    // Never read: a build folder, and a file no include matches.
    std::fs::write(folder.join("target/skip.md"), "# Skip\n\nBuild output about backups.\n")
        .unwrap();
    std::fs::write(folder.join("image.png"), [0u8, 1, 2]).unwrap();
    let watch = ferrex_engine::base::config::Watch {
        namespace: "docs".into(),
        path: folder.clone(),
        share: false,
        include: Vec::new(),
        exclude: Vec::new(),
    };
    engine.files().configure(&[watch], test.home().join("watched.json")).unwrap();
    let first = engine.reconcile_all().unwrap();
    assert_eq!((first.read, first.chunks_written), (1, 2), "{first:?}");
    let files_only = RecallRequest { sources: Sources::Files, ..recall("backup job", "docs", 5) };
    let (found, _, _) = engine.recall(&files_only).unwrap();
    assert_eq!(found.len(), 1, "{:?}", ids(&found));
    assert!(found[0].row.text.contains("midnight"), "{}", found[0].row.text);

    // Unchanged: nothing is read again.
    let again = engine.reconcile_all().unwrap();
    assert_eq!((again.read, again.chunks_written), (0, 0), "{again:?}");

    // Changed: the file's chunks are written again, and the old text is
    // gone.
    std::fs::write(
        &runbook,
        "# Backups\n\nThe backup job runs at two in the morning from the NAS.\n\n# Deploys\n\nDeploys go out on Thursdays after the review.\n",
    )
    .unwrap();
    let changed = engine.reconcile_all().unwrap();
    assert_eq!((changed.read, changed.chunks_written), (1, 2), "{changed:?}");
    let (found, _, _) = engine.recall(&files_only).unwrap();
    assert_eq!(found.len(), 1);
    assert!(found[0].row.text.contains("two in the morning"), "{}", found[0].row.text);

    // Deleted: its chunks go.
    std::fs::remove_file(&runbook).unwrap();
    let gone = engine.reconcile_all().unwrap();
    assert_eq!(gone.dropped, 1, "{gone:?}");
    let (found, _, _) = engine.recall(&files_only).unwrap();
    assert!(found.is_empty(), "{:?}", ids(&found));
}

#[test]
fn a_list_pages_a_namespace_and_show_tells_a_memory_whole() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let mut stored = Vec::new();
    for index in 0..5 {
        let note = format!("Release {index} shipped with {index} known issues.");
        stored.push(engine.store(text(&note, "releases"), false).unwrap().id);
        test.clock.advance(Duration::from_secs(60));
    }
    let namespace = Namespace::parse("releases").unwrap();
    let page = |offset: usize| {
        engine
            .list(&ferrex_engine::engine::ListRequest {
                reach: ferrex_engine::engine::Reach::Of(vec![namespace.clone()]),
                limit: 2,
                offset,
                ..ferrex_engine::engine::ListRequest::default()
            })
            .unwrap()
    };
    let (first, second, last) = (page(0), page(2), page(4));
    assert_eq!(first.total, 5);
    let listed: Vec<String> = [first, second, last]
        .iter()
        .flat_map(|page| page.memories.iter().map(|memory| memory.row.id.clone()))
        .collect();
    // Newest first, each once.
    let mut newest_first = stored.clone();
    newest_first.reverse();
    assert_eq!(listed, newest_first);
    let shown = engine.show(&stored[2]).unwrap().unwrap();
    assert_eq!(shown.memory.row.text, "Release 2 shipped with 2 known issues.");
    assert!(engine.show("no-such-memory").unwrap().is_none());
}

#[test]
fn an_archive_restores_into_another_home_as_it_was() {
    let source = TestEngine::new().unwrap();
    let namespace = Namespace::parse("handover").unwrap();
    let note = source
        .engine
        .store(text("The staging database is rebuilt every Sunday night.", "handover"), false)
        .unwrap();
    let archive = source.engine.archive(&namespace).unwrap();

    let target = TestEngine::new().unwrap();
    let restored = target.engine.restore(&namespace, &archive).unwrap();
    assert_eq!(restored.memories, 1);
    let row = target.engine.memory(&note.id).unwrap().unwrap();
    assert_eq!(row.text, "The staging database is rebuilt every Sunday night.");
    // Found by its words at once; by meaning once the worker embedded it.
    target.embed_queued().unwrap();
    let (found, _, _) =
        target.engine.recall(&recall("when is staging database rebuilt", "handover", 3)).unwrap();
    assert_eq!(found.first().map(|result| result.row.id.clone()), Some(note.id.clone()));
    // Restoring again adds nothing.
    assert_eq!(target.engine.restore(&namespace, &archive).unwrap().memories, 0);
}

#[test]
fn a_new_value_of_a_fact_supersedes_the_old_whatever_the_subject_s_spelling() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let fact = |subject: &str, predicate: &str, object: &str| StoreInput {
        subject: Some(subject.into()),
        predicate: Some(predicate.into()),
        object: Some(object.into()),
        namespace: Some("infra".into()),
        ..StoreInput::default()
    };
    let old = engine.store(fact("api-server", "port", "8080"), false).unwrap();
    assert_eq!(old.kind, MemoryKind::Semantic);
    test.clock.advance(Duration::from_secs(60));
    let new = engine.store(fact("API server", "port", "9090"), false).unwrap();
    assert_eq!(new.supersedes, vec![old.id.clone()], "{new:?}");
    let row = engine.memory(&old.id).unwrap().unwrap();
    assert_eq!(row.derived.status, "superseded");
    // The same value again is a duplicate of the current fact.
    let again = engine.store(fact("api-server", "port", "9090"), false).unwrap();
    assert!(again.duplicate);
    assert_eq!(again.id, new.id);
}

#[test]
fn text_from_a_peer_that_corrects_text_here_is_judged_once_embedded() {
    let desktop = TestEngine::on("desktop").unwrap();
    let laptop = TestEngine::on("laptop").unwrap();
    let older = desktop
        .engine
        .store(text("The analytics warehouse runs in us-central1.", "team"), false)
        .unwrap();
    laptop.clock.advance(Duration::from_secs(3_600));
    let newer = laptop
        .engine
        .store(text("The analytics warehouse migrated to europe-west4.", "team"), false)
        .unwrap();
    assert!(laptop.send_to(&desktop).unwrap() > 0);
    // Judged only once the arrival has its vector: the worker's turn.
    desktop.embed_queued().unwrap();
    assert!(desktop.engine.judge_arrivals().unwrap() > 0);
    let corrected = desktop.engine.memory(&older.id).unwrap().unwrap();
    assert_eq!(corrected.derived.corrected_by, vec![newer.id.clone()], "{:?}", corrected.derived);
    // Judged once: nothing is left to judge.
    assert_eq!(desktop.engine.judge_arrivals().unwrap(), 0);
}

#[test]
fn two_spellings_of_an_attribute_are_one_fact() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let fact = |predicate: &str, object: &str| StoreInput {
        subject: Some("alice".into()),
        predicate: Some(predicate.into()),
        object: Some(object.into()),
        namespace: Some("people".into()),
        ..StoreInput::default()
    };
    let colour = engine.store(fact("favourite colour", "blue"), false).unwrap();
    test.clock.advance(Duration::from_secs(60));
    let color = engine.store(fact("favorite color", "light blue"), false).unwrap();
    assert_eq!(color.predicate, colour.predicate, "{color:?}");
    assert_eq!(color.supersedes, vec![colour.id.clone()], "{color:?}");
}

/// Bytes of everything under `dir`.
fn bytes_under(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => bytes_under(&entry.path()),
            _ => entry.metadata().map(|meta| meta.len()).unwrap_or(0),
        })
        .sum()
}

/// Whether any file under `dir` holds `needle`.
fn any_file_holds(dir: &std::path::Path, needle: &[u8]) -> bool {
    std::fs::read_dir(dir).into_iter().flatten().flatten().any(|entry| {
        let path = entry.path();
        if path.is_dir() {
            any_file_holds(&path, needle)
        } else {
            std::fs::read(&path)
                .is_ok_and(|bytes| bytes.windows(needle.len()).any(|window| window == needle))
        }
    })
}

#[test]
#[allow(clippy::print_stderr, reason = "the figures of record, shown with --nocapture")]
fn ten_thousand_pushes_keep_a_session_at_its_bound() {
    const PUSHES: usize = 10_000;
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let namespace = Namespace::default();
    let mut sizes = Vec::new();
    for index in 0..PUSHES {
        let content = format!("Bash ran cargo test --workspace (step {index}) → exit 0");
        engine
            .push_event(&namespace, "long", ferrex_core::working::EventType::Action, &content)
            .unwrap();
        test.clock.advance(Duration::from_millis(10));
        if (index + 1) % 2_000 == 0 {
            sizes.push(bytes_under(&test.home().join("docs")));
        }
    }
    // The live state: the bound (25 by default), whatever was pushed.
    // Evicted events leave no tombstone (nothing can bring them back; see
    // Replica::evict).
    let stats = engine.stats().unwrap();
    let memories: i64 = stats.by_namespace_kind.iter().map(|(_, _, count)| count).sum();
    assert_eq!((memories, stats.forgotten), (25, 0), "{stats:?}");
    let events = engine.events(&namespace, Some("long"), 200).unwrap();
    assert_eq!(events.len(), 25);
    assert!(events[0].text.contains(&format!("step {}", PUSHES - 1)), "{}", events[0].text);
    // The live records (what an export holds) are the 25 events.
    let archive = engine.archive(&namespace).unwrap();
    assert_eq!(archive.memories.len(), 25);
    // The documents grow with Automerge's history (each event's sealed
    // bytes and its tombstone), linearly: no 2,000 pushes cost more than
    // 1 MB (about 500 bytes an event).
    let growth: Vec<u64> = sizes.windows(2).map(|pair| pair[1].saturating_sub(pair[0])).collect();
    eprintln!(
        "{PUSHES} pushes: documents {} bytes on disk; growth per 2,000 pushes {growth:?}",
        sizes.last().unwrap()
    );
    assert!(growth.iter().all(|bytes| *bytes < 1_000_000), "{growth:?}");
    assert!(!any_file_holds(test.home(), b"(step 17)"), "evicted events leave every file");
}

#[test]
fn a_forgotten_memory_leaves_every_answer_and_every_file_of_the_home() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let secret = "The vault recovery phrase is kept in the blue binder.";
    let doomed = engine.store(text(secret, "ops"), false).unwrap();
    let kept = engine.store(text("The blue binder sits on shelf two.", "ops"), false).unwrap();
    test.embed_queued().unwrap();
    engine.recall(&recall("blue binder", "ops", 5)).unwrap();
    engine.fold_access().unwrap();

    let outcome = engine.forget(&[doomed.id.clone(), "no-such-id".into()]).unwrap();
    assert_eq!(outcome.forgotten, vec![doomed.id.clone()]);
    assert_eq!(outcome.unknown, vec!["no-such-id".to_owned()]);
    assert!(engine.memory(&doomed.id).unwrap().is_none());
    let (found, _, _) =
        engine.recall(&recall("vault recovery phrase blue binder", "ops", 5)).unwrap();
    assert_eq!(ids(&found), vec![kept.id.clone()]);
    assert!(!any_file_holds(test.home(), b"vault recovery phrase"), "its text is in a file");
    // Forgetting again: unknown, nothing changes.
    let again = engine.forget(std::slice::from_ref(&doomed.id)).unwrap();
    assert_eq!(again.unknown, vec![doomed.id.clone()]);
}

#[test]
fn sharing_a_project_moves_its_memories_into_the_share_and_its_recall_finds_each_once() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let acme = Namespace::parse("acme").unwrap();
    let retries = engine
        .store(text("The billing service retries webhooks three times.", "acme"), false)
        .unwrap();
    engine.store(text("The billing dashboard is on the ops Grafana.", "acme"), false).unwrap();
    let private =
        engine.store(text("My dentist appointment is on Friday.", "default"), false).unwrap();
    engine
        .push_event(&acme, "s1", ferrex_core::working::EventType::Action, "ran the billing tests")
        .unwrap();
    let key = ferrex_sync::SecretKey::from_bytes(&[7; 32]);
    let desktop = *ferrex_sync::SecretKey::from_bytes(&[8; 32]).public().as_bytes();

    // `default` and a share's own namespace are refused, changing nothing.
    for refused in ["default", "share.0123456789abcdef0123456789abcdef"] {
        let error =
            engine.share_project(&Namespace::parse(refused).unwrap(), &key, &[]).unwrap_err();
        assert!(matches!(error, ferrex_engine::engine::ToolError::Invalid(_)), "{error}");
    }
    assert!(engine.shares_of(&Namespace::default()).is_empty());

    let dashboard =
        engine.recall(&recall("billing dashboard Grafana", "acme", 1)).unwrap().0.remove(0).row.id;
    engine
        .link(LinkRequest {
            from: retries.id.clone(),
            to: dashboard.clone(),
            relation: "relates_to".into(),
            note: None,
            confidence: None,
            namespace: acme.clone(),
        })
        .unwrap();
    test.embed_queued().unwrap();

    let shared = engine.share_project(&acme, &key, &[desktop]).unwrap();
    // The two memories and the link between them; the event stays.
    assert_eq!((shared.memories, shared.kept), (3, 1), "{shared:?}");
    // Found by meaning at once: the copies took their originals' vectors.
    let stats = engine.stats().unwrap();
    assert_eq!(stats.embeddings_queued, 0, "the share's copies wait to be embedded again");
    let shares = engine.shares_of(&acme);
    assert_eq!(shares, std::slice::from_ref(&shared.namespace));
    // The project's recall reads the share: each memory once, from the
    // share, saying so.
    let (results, _, _) =
        engine.recall_across(&recall("billing webhooks retries", "acme", 5), &shares).unwrap();
    let texts: Vec<&str> = results.iter().map(|result| result.row.text.as_str()).collect();
    assert_eq!(texts.first(), Some(&"The billing service retries webhooks three times."));
    assert_eq!(texts.iter().collect::<BTreeSet<_>>().len(), texts.len(), "{texts:?}");
    assert!(
        results.iter().all(|result| result.row.namespace == shared.namespace.as_str()),
        "{:?}",
        results.iter().map(|result| &result.row.namespace).collect::<Vec<_>>()
    );
    // The person's copies are forgotten (the share's have new ids); what
    // stays personal stays, and `default` is untouched.
    assert!(engine.memory(&retries.id).unwrap().is_none());
    assert!(results.iter().all(|result| result.row.id != retries.id));
    assert_eq!(engine.events(&acme, Some("s1"), 10).unwrap().len(), 1);
    assert!(engine.memory(&private.id).unwrap().is_some());
    // The link moved with its ends, naming them by their new ids.
    let moved_retries = &results[0].row.id;
    let links = engine
        .graph(&GraphRequest {
            from: moved_retries.clone(),
            walk: Walk {
                depth: 1,
                relations: BTreeSet::new(),
                direction: Direction::Both,
                limit: 20,
                budget: 10_000,
            },
            namespace: shared.namespace.clone(),
        })
        .unwrap();
    assert_eq!(links.edges.len(), 1, "the link did not move with its ends: {links:?}");
    assert!(format!("{:?}", links.edges).contains("relates_to"), "{links:?}");
}

#[test]
fn a_move_into_a_share_interrupted_is_finished_at_the_next_start_with_one_copy_of_each() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let beta = Namespace::parse("beta").unwrap();
    let train =
        engine.store(text("The release train leaves on Thursdays.", "beta"), false).unwrap();
    let flags = StoreInput {
        entities: vec!["LaunchDarkly".to_owned(), "feature flags".to_owned()],
        ..text("Feature flags live in LaunchDarkly.", "beta")
    };
    engine.store(flags, false).unwrap();
    let key = ferrex_sync::SecretKey::from_bytes(&[7; 32]);
    // Interrupted after the share's copies, before the person's are
    // forgotten: both are there.
    assert!(engine.share_project_interrupted(&beta, &key).is_err());
    let shares = engine.shares_of(&beta);
    assert_eq!(shares.len(), 1);
    assert!(engine.memory(&train.id).unwrap().is_some());
    let counts = |archive: ferrex_sync::Archive| {
        (archive.memories.len(), archive.entities.len(), archive.aliases.len(), archive.edges.len())
    };
    let copied = counts(engine.archive(&shares[0]).unwrap());
    assert_eq!((copied.0, copied.1), (2, 2), "{copied:?}");
    // The next start finishes it: the person's copies forgotten, the
    // share's not copied again.
    assert_eq!(engine.finish_moves().unwrap(), 1);
    assert!(engine.memory(&train.id).unwrap().is_none());
    let (results, _, _) =
        engine.recall_across(&recall("release train feature flags", "beta", 10), &shares).unwrap();
    assert_eq!(results.len(), 2, "{:?}", ids(&results));
    assert!(results.iter().all(|result| result.row.namespace == shares[0].as_str()));
    // One copy of each record: doing the move again wrote none twice.
    assert_eq!(counts(engine.archive(&shares[0]).unwrap()), copied);
    // Done: nothing left to finish, and the project is not shared twice.
    assert_eq!(engine.finish_moves().unwrap(), 0);
    let again = engine.share_project(&beta, &key, &[]).unwrap_err();
    assert!(matches!(again, ferrex_engine::engine::ToolError::Invalid(_)), "{again}");
}

#[test]
fn a_shared_projects_tasks_stay_its_own_and_a_new_memory_goes_to_the_share() {
    // The device's key is its id, as a node's is.
    let key = ferrex_sync::SecretKey::from_bytes(&[9; 32]);
    let test = TestEngine::on(&key.public().to_string()).unwrap();
    let engine = &test.engine;
    let acme = Namespace::parse("acme").unwrap();
    let (task, _) =
        engine.start_task(&acme, "Migrate the billing tables", None, None, None).unwrap();
    assert_eq!(engine.store_target(&acme), acme, "no share yet: the project itself");

    let shared = engine.share_project(&acme, &key, &[]).unwrap();
    let now = ferrex_core::Timestamp(i64::MAX / 2);
    // The task moved into the share with a new id; the project still lists it.
    let tasks = engine.tasks(&acme, now).unwrap();
    assert_eq!(tasks.len(), 1, "{tasks:?}");
    let moved = tasks[0].row.id.clone();
    assert_ne!(moved, task);
    assert_eq!(tasks[0].row.namespace, shared.namespace.as_str());
    // A note on it goes with it, into the share.
    let (note, noted) = engine
        .note_task(
            &acme,
            &moved,
            ferrex_core::working::WorkingKind::TaskUpdate,
            "Copied the schema.",
        )
        .unwrap();
    assert_eq!(noted.row.namespace, shared.namespace.as_str());
    assert_eq!(engine.memory(&note).unwrap().unwrap().namespace, shared.namespace.as_str());
    // A memory stored in the project without a namespace goes to the share
    // (this device is its admin); naming the project keeps it personal.
    assert_eq!(engine.store_target(&acme), shared.namespace);
    assert_eq!(engine.store_target(&Namespace::parse("other").unwrap()).as_str(), "other");
    // A task started there without a namespace goes to the share too, and
    // the project lists both.
    let (started, _) = engine
        .start_task_into(&acme, &shared.namespace, "Drop the old tables", None, None, None)
        .unwrap();
    assert_eq!(engine.memory(&started).unwrap().unwrap().namespace, shared.namespace.as_str());
    assert_eq!(engine.tasks(&acme, now).unwrap().len(), 2);
    assert_eq!(engine.share_stats().len(), 1);
    assert_eq!(engine.share_stats()[0].project, "acme");
}

#[test]
fn a_shares_document_naming_the_persons_entity_or_memory_changes_neither() {
    let person = TestEngine::on("person").unwrap();
    let teammate = TestEngine::on("teammate").unwrap();
    let mut input = text("Alice runs the billing service.", "acme");
    input.entities = vec!["Alice".into()];
    let stored = person.engine.store(input, false).unwrap();
    let alice = {
        let index = person.engine.index().lock().unwrap();
        let entities = index.entities("acme").unwrap();
        entities.into_iter().find(|entity| entity.name == "Alice").unwrap().id
    };
    // A writer of a share puts, in the share's document, an entity under the
    // id of the person's and an edge saying a memory of its own supersedes
    // the person's memory.
    let share = Namespace::parse("share.00112233445566778899aabbccddeeff").unwrap();
    let now = ferrex_core::Timestamp(1_800_000_000_000);
    let forged =
        ferrex_sync::NewMemory::episode("forged-1", "Mallory runs billing.", "teammate", now);
    let records = ferrex_sync::NewRecords {
        memories: vec![forged],
        entities: vec![ferrex_core::Entity {
            id: alice.clone(),
            name: "Mallory".into(),
            kind: None,
            created_at: now,
            created_by: "teammate".into(),
        }],
        edges: vec![ferrex_core::Edge {
            kind: ferrex_core::EdgeKind::Supersedes,
            from: "forged-1".into(),
            to: stored.id.clone(),
            created_at: now,
            created_by: "teammate".into(),
        }],
        ..Default::default()
    };
    teammate.engine.replica().write_new(&share, now, &records).unwrap();
    assert!(teammate.send_to(&person).unwrap() > 0);

    // The share's own memory arrived; the person's entity and memory are
    // as they were.
    assert_eq!(person.engine.memory("forged-1").unwrap().unwrap().namespace, share.as_str());
    let index = person.engine.index().lock().unwrap();
    let entities = index.entities("acme").unwrap();
    assert!(entities.iter().any(|entity| entity.id == alice && entity.name == "Alice"));
    assert!(index.entities(share.as_str()).unwrap().iter().all(|entity| entity.id != alice));
    drop(index);
    let row = person.engine.memory(&stored.id).unwrap().unwrap();
    assert!(row.derived.superseded_by.is_empty(), "{:?}", row.derived);
    assert_eq!(row.namespace, "acme");
}

/// The engine's telling (`engine/tell.rs`) with the word-hashing test
/// embedder and a bar set for it: what answers is told once per session,
/// a fact that changed is told again as a change, and what was told counts
/// as used. The bar's calibration with the real model is
/// `examples/tell_eval.rs`.
#[test]
fn a_prompt_is_told_what_answers_it_once_per_session_and_again_when_it_changed() {
    use ferrex_engine::{
        base::config::Config, engine::tell::TellRequest, testing::WordHashTestEmbedder,
    };
    let mut config = Config::default();
    config.memory.tell.bar = Some(0.5);
    let test = TestEngine::with("device-test", &config, Box::new(WordHashTestEmbedder)).unwrap();
    let engine = &test.engine;
    let project = Namespace::parse("github.com.acme.ledger").unwrap();
    let rotates = engine
        .store(text("The deploy token rotates every Tuesday at noon.", project.as_str()), false)
        .unwrap();
    engine
        .store(text("Lunch is served in the atrium on Fridays.", project.as_str()), false)
        .unwrap();
    let fact = |object: &str| StoreInput {
        subject: Some("ledger database".into()),
        predicate: Some("version".into()),
        object: Some(object.into()),
        namespace: Some(project.as_str().to_owned()),
        ..StoreInput::default()
    };
    let old = engine.store(fact("PostgreSQL 14"), false).unwrap();
    let names = |_: &str| -> Option<String> { None };
    let ask = |prompt: &str, session: &str| {
        engine
            .tell(
                &TellRequest {
                    prompt: prompt.to_owned(),
                    namespaces: vec![project.clone(), Namespace::default()],
                    session: Some(session.to_owned()),
                    budget: None,
                    within: None,
                },
                &names,
            )
            .unwrap()
    };
    engine.fold_access().unwrap();
    let used_before = engine.memory(&rotates.id).unwrap().unwrap().access_count;

    let told = ask("when does the deploy token rotate", "s1");
    let ids: Vec<&str> = told.told.iter().map(|told| told.id.as_str()).collect();
    assert_eq!(ids, [rotates.id.as_str()], "{told:?}");
    assert!(told.text.contains("deploy token rotates") && told.text.contains(&rotates.id));
    assert!(told.tokens <= told.budget && told.tokens > 0);
    engine.fold_access().unwrap();
    assert_eq!(engine.memory(&rotates.id).unwrap().unwrap().access_count, used_before + 1);
    // Never twice in a session; again in another.
    let again = ask("the deploy token: when does it rotate?", "s1");
    assert!(again.text.is_empty() && again.told.is_empty(), "{again:?}");
    assert!(again.considered.iter().any(|c| c.id == rotates.id && c.outcome == "told already"));
    assert_eq!(ask("when does the deploy token rotate", "s2").told.len(), 1);
    // Nothing answers: nothing at all.
    let nothing = ask("center the div on the pricing page", "s1");
    assert_eq!(nothing.text, "");
    // A fact told, then superseded: the new value, as a change.
    let first = ask("which ledger database version do we run", "s3");
    assert!(first.told.iter().any(|told| told.id == old.id), "{first:?}");
    let new = engine.store(fact("PostgreSQL 16"), false).unwrap();
    let changed = ask("ledger database version?", "s3");
    let change = changed.told.iter().find(|told| told.id == new.id).expect("the new value told");
    assert_eq!(change.replaces.as_deref(), Some(old.id.as_str()));
    assert!(change.line.starts_with(&format!("changed (replaces {})", old.id)), "{}", change.line);
    // What the session was told that still stands: the new value, not the old.
    let standing = engine.told_standing("s3", &names).unwrap();
    assert!(standing.iter().any(|(_, line)| line.contains("PostgreSQL 16")), "{standing:?}");
    assert!(!standing.iter().any(|(_, line)| line.contains("PostgreSQL 14")), "{standing:?}");
    // A caller that gave up before the answer: nothing recorded as told.
    let late = engine
        .tell(
            &TellRequest {
                prompt: "when does the deploy token rotate".into(),
                namespaces: vec![project.clone()],
                session: Some("s5".into()),
                budget: None,
                within: Some(Duration::ZERO),
            },
            &names,
        )
        .unwrap();
    assert!(late.late && !late.told.is_empty());
    assert_eq!(ask("when does the deploy token rotate", "s5").told.len(), 1);
    // The session-start context's memories count as told; an ended
    // session is forgotten.
    engine.note_shown("s4", std::slice::from_ref(&rotates.id)).unwrap();
    assert!(ask("when does the deploy token rotate", "s4").told.is_empty());
    assert_eq!(engine.end_told("s4"), 1);
    assert_eq!(ask("when does the deploy token rotate", "s4").told.len(), 1);
    // Telling off for the project: nothing, and said why.
    let mut off = Config::default();
    off.namespace_overrides
        .insert(project.as_str().to_owned(), vec![("memory.tell".into(), "false".into())]);
    let quiet = TestEngine::with("device-test", &off, Box::new(WordHashTestEmbedder)).unwrap();
    quiet
        .engine
        .store(text("The deploy token rotates every Tuesday at noon.", project.as_str()), false)
        .unwrap();
    let silent = quiet
        .engine
        .tell(
            &TellRequest {
                prompt: "when does the deploy token rotate".into(),
                namespaces: vec![project.clone()],
                session: None,
                budget: None,
                within: None,
            },
            &names,
        )
        .unwrap();
    assert_eq!((silent.text.as_str(), silent.off), ("", Some("telling is off here")));
}
