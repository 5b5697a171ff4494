//! Storage fault injection for tests: every file-system operation of the
//! replica's durable storage (document logs and snapshots, the key file,
//! state files) passes through `check` or `write_all`, which fail once
//! a countdown armed by a test runs out, as a disk does when it fills up
//! or breaks (redb's fuzzer tests its storage the same way).
//!
//! Faults are armed per thread, so tests running in parallel do not see
//! each other's, and stay active once fired until `disarm`: a full disk
//! stays full until someone frees space. Only built for this crate's tests
//! and with the `fault-injection` feature; without them every check is a
//! no-op the compiler removes.

use std::io;

/// What an injected fault does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Operations that need space (create, write, rename) fail with
    /// `ENOSPC`; syncs and truncations (which free space) still succeed.
    NoSpace,
    /// Every operation fails with `EIO`.
    Io,
    /// Every operation fails with `EIO`, and the write that fires the fault
    /// first writes the given share (in 1/256ths, at least one byte and at
    /// most all but one) of its bytes: a write torn by a crash or an error.
    Torn(u8),
}

/// A kind of file-system operation, for the countdown and the fault kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Creating or opening a file or directory for writing.
    Create,
    /// Writing bytes.
    Write,
    /// `fsync`/`fdatasync` of a file or directory.
    Sync,
    /// Renaming a file.
    Rename,
    /// Truncating a file.
    Truncate,
}

#[cfg(any(test, feature = "fault-injection"))]
mod armed {
    use std::cell::Cell;

    use super::Fault;

    /// An armed fault: operations left before it fires, and whether it has.
    #[derive(Clone, Copy)]
    pub(super) struct Plan {
        pub(super) countdown: u64,
        pub(super) fault: Fault,
        pub(super) fired: bool,
        pub(super) operations: u64,
    }

    thread_local! {
        pub(super) static PLAN: Cell<Option<Plan>> = const { Cell::new(None) };
    }
}

/// Arms `fault` on this thread: the `after`-th operation from now (0: the
/// next one) fails, and so does every operation after it until `disarm`.
#[cfg(any(test, feature = "fault-injection"))]
pub fn arm(after: u64, fault: Fault) {
    armed::PLAN.with(|plan| {
        plan.set(Some(armed::Plan { countdown: after, fault, fired: false, operations: 0 }));
    });
}

/// Disarms this thread's fault; returns (whether it fired, operations seen
/// since it was armed).
#[cfg(any(test, feature = "fault-injection"))]
pub fn disarm() -> (bool, u64) {
    armed::PLAN.with(|plan| plan.take()).map_or((false, 0), |plan| (plan.fired, plan.operations))
}

/// The error an operation of kind `op` meets now, if a fault is armed and
/// due; counts the operation. `Some(share)` as the second value when the
/// fault is a torn write firing on this very operation.
#[cfg(any(test, feature = "fault-injection"))]
fn due(op: Op) -> Option<(io::Error, Option<u8>)> {
    armed::PLAN.with(|cell| {
        let mut plan = cell.get()?;
        plan.operations += 1;
        let affected = match plan.fault {
            Fault::NoSpace => !matches!(op, Op::Sync | Op::Truncate),
            Fault::Io | Fault::Torn(_) => true,
        };
        let firing = !plan.fired && affected && plan.countdown == 0;
        if !plan.fired && affected && plan.countdown > 0 {
            plan.countdown -= 1;
        }
        plan.fired |= firing;
        let active = plan.fired && affected;
        cell.set(Some(plan));
        if !active {
            return None;
        }
        let (code, torn) = match plan.fault {
            Fault::NoSpace => (28, None),
            Fault::Io => (5, None),
            Fault::Torn(share) => (5, (firing && op == Op::Write).then_some(share)),
        };
        Some((io::Error::from_raw_os_error(code), torn))
    })
}

#[cfg(not(any(test, feature = "fault-injection")))]
#[inline(always)]
fn due(_op: Op) -> Option<(io::Error, Option<u8>)> {
    None
}

/// Fails when an armed fault is due for an operation of kind `op`.
#[inline]
pub(crate) fn check(op: Op) -> io::Result<()> {
    match due(op) {
        Some((error, _)) => Err(error),
        None => Ok(()),
    }
}

/// `writer.write_all(bytes)`, failing (after writing part of `bytes` for a
/// torn write) when an armed fault is due.
#[inline]
pub(crate) fn write_all(writer: &mut impl io::Write, bytes: &[u8]) -> io::Result<()> {
    match due(Op::Write) {
        None => writer.write_all(bytes),
        Some((error, torn)) => {
            if let Some(part) = torn.and_then(|share| torn_part(bytes, share)) {
                writer.write_all(part)?;
            }
            Err(error)
        }
    }
}

/// `file.write_all_at(bytes, offset)`, failing like [`write_all`].
#[inline]
pub(crate) fn write_all_at(file: &std::fs::File, bytes: &[u8], offset: u64) -> io::Result<()> {
    use crate::platform;
    match due(Op::Write) {
        None => platform::write_all_at(file, bytes, offset),
        Some((error, torn)) => {
            if let Some(part) = torn.and_then(|share| torn_part(bytes, share)) {
                platform::write_all_at(file, part, offset)?;
            }
            Err(error)
        }
    }
}

/// What a write torn at `share` (in 1/256ths) leaves of `bytes`: at least
/// one byte, at most all but one; `None` when there is nothing to tear.
fn torn_part(bytes: &[u8], share: u8) -> Option<&[u8]> {
    (bytes.len() > 1)
        .then(|| &bytes[..(bytes.len() * usize::from(share) / 256).clamp(1, bytes.len() - 1)])
}
