//! Document partitioning benchmark: the cost of one write, of loading, and
//! the size on disk, at a given number of memories, for several shard sizes.
//!
//! Usage: `cargo run --release -p ferrex-examples --example doc_bench [-- --memories N --dir DIR]`
//!
//! Memories are written through `ferrex_sync::Replica` (bulk in changes of
//! 100, then 200 timed single-memory writes, each one change made durable).
//! Use a tmpfs `--dir` (the default is /dev/shm) to measure Automerge rather
//! than the disk.

use std::time::{Duration, Instant};

use anyhow::Context;
use ferrex_core::{Namespace, Timestamp};
use ferrex_sync::{DocId, NewMemory, NewRecords, Replica, ReplicaOptions};

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
fn main() -> anyhow::Result<()> {
    let mut total = 100_000usize;
    let mut dir = std::path::PathBuf::from("/dev/shm");
    let mut capacities = vec![total, 20_000, 10_000, 5_000];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--memories" => {
                total = value()?.parse()?;
                capacities[0] = total;
            }
            "--dir" => dir = value()?.into(),
            "--capacities" => {
                capacities = value()?.split(',').map(str::parse).collect::<Result<_, _>>()?
            }
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    let namespace = Namespace::default();
    println!("{total} memories of ~200 bytes; one write = one memory, committed and logged");
    println!("shard capacity   shards   write p50   write p95   load all   bytes on disk");
    for capacity in capacities {
        let scratch = tempfile::tempdir_in(&dir)?;
        let options = ReplicaOptions { shard_capacity: capacity, ..ReplicaOptions::default() };
        let replica = Replica::open(scratch.path(), "bench-device", options)?;
        let mut next = 0usize;
        while next + 200 < total {
            let batch = (next..(next + 100).min(total - 200)).map(memory).collect();
            replica.write_new(
                &namespace,
                Timestamp(next as i64),
                &NewRecords { memories: batch, ..Default::default() },
            )?;
            next = (next + 100).min(total - 200);
        }
        let mut writes = Vec::new();
        for index in next..total {
            let started = Instant::now();
            replica.write_new(
                &namespace,
                Timestamp(index as i64),
                &NewRecords { memories: vec![memory(index)], ..Default::default() },
            )?;
            writes.push(started.elapsed());
        }
        let shards = replica.shards(&namespace).len();
        let bytes: u64 = replica.stats().iter().map(|stat| stat.disk_bytes).sum();
        drop(replica);
        let started = Instant::now();
        let reopened = Replica::open(scratch.path(), "bench-device", options)?;
        let load = started.elapsed();
        let live: usize = reopened
            .doc_ids()
            .iter()
            .filter(|id| matches!(id, DocId::Shard { .. }))
            .map(|id| reopened.read(id, |reader| reader.keys("memories").len()))
            .sum::<Result<usize, _>>()?;
        anyhow::ensure!(live == total, "reloaded {live} memories, wrote {total}");
        writes.sort_unstable();
        println!(
            "{capacity:>14}   {shards:>6}   {:>7.2} ms  {:>7.2} ms  {:>6.0} ms   {:>10.1} MB",
            millis(writes[writes.len() / 2]),
            millis(writes[writes.len() * 95 / 100]),
            millis(load),
            bytes as f64 / 1e6
        );
    }
    Ok(())
}

fn memory(index: usize) -> NewMemory {
    let text = format!(
        "Memory number {index}: the deploy of service {} moved to host {} after the incident review, \
             and the on-call rota changed so that team {} covers weekends until further notice.",
        index % 97,
        index % 13,
        index % 7
    );
    NewMemory {
        source: Some("bench".into()),
        tags: vec!["bench".into()],
        ..NewMemory::episode(
            format!("{index:08}-0000-7000-8000-{:012x}", index * 7919),
            text,
            "bench-device",
            Timestamp(index as i64),
        )
    }
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
