//! What a share's membership statements cost: signing one, checking one
//! (its signature and body), and resolving the members of a share from all
//! of its statements.
//!
//! Usage: `cargo run --release -p ferrex-examples --example membership_bench [-- --members 10,100,1000]`
//!
//! For each size: a share created by one device, which grants `admin` to a
//! tenth of the members; each of those grants `write` to nine more; then a
//! tenth of the admins' grants are revoked (taking what they granted with
//! them). Every figure is also on the last line as `key=value` pairs.

use std::time::Instant;

use anyhow::Context;
use ferrex_core::Timestamp;
use ferrex_examples::{millis, percentile};
use ferrex_sync::{
    Identity,
    membership::{Action, Membership, Role, Statement},
};

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
fn main() -> anyhow::Result<()> {
    let mut sizes = vec![10usize, 100, 1000];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--members" => {
                let value = args.next().context("--members needs a value")?;
                sizes = value
                    .split(',')
                    .map(|count| count.trim().parse().context("a count"))
                    .collect::<anyhow::Result<_>>()?;
            }
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    let now = Timestamp(1_800_000_000_000);
    let mut figures: Vec<(String, f64)> = Vec::new();
    for members in sizes {
        let creator = Identity::ephemeral();
        let create = Statement::create(creator.secret(), [1; 16], now);
        let share = create.body.share;
        let mut statements = vec![create.clone()];
        let mut sign_times = Vec::new();
        let admins = (members / 10).max(1);
        let mut admin_grants = Vec::new();
        for _ in 0..admins {
            let admin = Identity::ephemeral();
            let started = Instant::now();
            let grant = Statement::sign(
                creator.secret(),
                share,
                Some(create.id),
                Action::Grant { device: *admin.id().as_bytes(), role: Role::Admin },
                now,
            );
            sign_times.push(started.elapsed());
            for _ in 0..9 {
                let writer = Identity::ephemeral();
                statements.push(Statement::sign(
                    admin.secret(),
                    share,
                    Some(grant.id),
                    Action::Grant { device: *writer.id().as_bytes(), role: Role::Write },
                    now,
                ));
            }
            admin_grants.push(grant.clone());
            statements.push(grant);
        }
        for grant in admin_grants.iter().step_by(10) {
            statements.push(Statement::sign(
                creator.secret(),
                share,
                Some(create.id),
                Action::Revoke { grant: grant.id },
                now,
            ));
        }
        let mut verify_times = Vec::new();
        for statement in &statements {
            let started = Instant::now();
            Statement::verify(&statement.bytes, share).context("a statement did not verify")?;
            verify_times.push(started.elapsed());
        }
        let mut resolve_times = Vec::new();
        let mut resolved = 0;
        for _ in 0..5 {
            let started = Instant::now();
            let membership =
                Membership::resolve(share, statements.iter().map(|s| s.bytes.as_slice()));
            resolve_times.push(started.elapsed());
            resolved = membership.members().len();
        }
        let bytes = statements.iter().map(|s| s.bytes.len()).sum::<usize>() as f64
            / statements.len() as f64;
        let (sign, verify, resolve) = (
            millis(percentile(&mut sign_times, 50)) * 1000.0,
            millis(percentile(&mut verify_times, 50)) * 1000.0,
            millis(percentile(&mut resolve_times, 50)),
        );
        println!(
            "{} statements ({resolved} members after the revocations): sign p50 {sign:.1} µs, \
             check p50 {verify:.1} µs, resolve all p50 {resolve:.2} ms ({:.1} µs a statement), \
             {bytes:.0} bytes a statement",
            statements.len(),
            resolve * 1000.0 / statements.len() as f64,
        );
        for (key, value) in [
            ("sign_us", sign),
            ("check_us", verify),
            ("resolve_ms", resolve),
            ("statement_bytes", bytes),
        ] {
            figures.push((format!("{key}_{}", statements.len()), value));
        }
    }
    let line: Vec<String> =
        figures.iter().map(|(key, value)| format!("{key}={value:.2}")).collect();
    println!("figures {}", line.join(" "));
    Ok(())
}
