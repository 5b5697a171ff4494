//! What a share's statement attacks cost the attacked device, in one run:
//! statements held and CPU time of `StatementLog::take` under each attack
//! (docs/sharing.md). Uses only the public API that every version with
//! shares has, so the same file runs against an older checkout to compare.
//!
//! `cargo run -p ferrex-sync --example statement_attacks` prints, per
//! attack, the log's statements after it and the median of 5 runs' CPU time.

#![allow(clippy::unwrap_used, clippy::print_stdout, reason = "a figures command")]

use std::time::{Duration, Instant};

use ferrex_core::Timestamp;
use ferrex_sync::{
    SecretKey,
    membership::{Action, Role, Statement, StatementId},
    statement_log::StatementLog,
};

const NOW: Timestamp = Timestamp(1_800_000_000_000);

fn key(n: u32) -> SecretKey {
    let mut bytes = [7u8; 32];
    bytes[..4].copy_from_slice(&n.to_le_bytes());
    SecretKey::from_bytes(&bytes)
}

fn sign(by: &SecretKey, share: &Statement, proof: &Statement, action: Action) -> Statement {
    Statement::sign(by, share.body.share, Some(proof.id), action, NOW)
}

fn grant(to: &SecretKey, role: Role) -> Action {
    Action::Grant { device: *to.public().as_bytes(), role }
}

/// A log holding a share created by the laptop, a writer and a reader it
/// granted, and the writer's removal; the statements.
fn scene(dir: &std::path::Path) -> (StatementLog, [Statement; 4]) {
    let (laptop, writer, reader) = (key(1), key(2), key(3));
    let create = Statement::create(&laptop, [1; 16], NOW);
    let writer_grant = sign(&laptop, &create, &create, grant(&writer, Role::Write));
    let reader_grant = sign(&laptop, &create, &create, grant(&reader, Role::Read));
    let removal = sign(&laptop, &create, &create, Action::Revoke { grant: writer_grant.id });
    let mut log = StatementLog::open(dir, create.body.share).unwrap();
    log.take([&create, &writer_grant, &reader_grant].map(|s| s.bytes.as_slice())).unwrap();
    log.take([removal.bytes.as_slice()]).unwrap();
    (log, [create, writer_grant, reader_grant, removal])
}

/// Runs `attack` on a fresh scene five times: statements held after it,
/// and the median CPU (wall) time of the `take`s it makes.
fn measure(name: &str, attack: impl Fn(&mut StatementLog, &[Statement; 4]) -> Duration) {
    let mut times = Vec::new();
    let mut held = 0;
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let (mut log, statements) = scene(dir.path());
        times.push(attack(&mut log, &statements));
        held = log.len();
    }
    times.sort();
    println!("{name:<58} {held:>6} statements held  {:>9.1} ms", times[2].as_secs_f64() * 1e3);
}

fn timed(run: impl FnOnce()) -> Duration {
    let started = Instant::now();
    run();
    started.elapsed()
}

fn main() {
    println!("{:<58} {:>6}                   median of 5", "attack", "after");
    measure("a held statement offered 1,000 times", |log, statements| {
        let repeated = vec![statements[2].bytes.as_slice(); 1_000];
        timed(|| {
            log.take(repeated).unwrap();
        })
    });
    measure("the removed writer signs 1,000 grants through its grant", |log, statements| {
        let grants: Vec<Vec<u8>> = (0..1_000)
            .map(|n| {
                sign(&key(2), &statements[0], &statements[1], grant(&key(100 + n), Role::Read))
                    .bytes
            })
            .collect();
        timed(|| {
            log.take(grants.iter().map(Vec::as_slice)).unwrap();
        })
    });
    measure("the reader grants read to 1,000 fresh keys", |log, statements| {
        let grants: Vec<Vec<u8>> = (0..1_000)
            .map(|n| {
                sign(&key(3), &statements[0], &statements[2], grant(&key(2_000 + n), Role::Read))
                    .bytes
            })
            .collect();
        timed(|| {
            log.take(grants.iter().map(Vec::as_slice)).unwrap();
        })
    });
    measure("4,000 statements naming proofs that do not exist", |log, statements| {
        let flood: Vec<Vec<u8>> = (0..4_000u32)
            .map(|n| {
                let mut proof = [0u8; 32];
                proof[..4].copy_from_slice(&n.to_le_bytes());
                Statement::sign(
                    &key(5_000 + n % 100),
                    statements[0].body.share,
                    Some(StatementId(proof)),
                    grant(&key(n), Role::Admin),
                    NOW,
                )
                .bytes
            })
            .collect();
        timed(|| {
            log.take(flood.iter().map(Vec::as_slice)).unwrap();
        })
    });
}
