//! The rules of the link to one paired device: when to dial it (and how
//! long to wait after a dial fails), which of two connections to keep when
//! both devices dial each other at once, and what a registry change does to
//! it (a revoked device's connection is closed).
//!
//! Nothing here reads a clock, draws a random number or touches the network:
//! the time (`now`) and the randomness of the jitter are arguments, and the
//! answers are decisions that `network.rs` applies with its endpoint and its
//! tasks. So every rule is tested here with made-up instants.

use std::time::{Duration, Instant};

/// The first wait after a failed dial; it doubles up to [`MAX_BACKOFF`].
pub(crate) const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait between dials of an unreachable device.
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Two connections between the same devices admitted this close together
/// were dialed at once; otherwise the newer one replaces the older.
pub(crate) const SIMULTANEOUS: Duration = Duration::from_secs(3);
/// How long the inviting device waits before it dials a device that has
/// just paired with it: the joiner records the pairing when it reads the
/// reply and then dials at once, and a dial before that would be refused.
pub(crate) const AFTER_PAIRING: Duration = Duration::from_secs(2);

/// Which end of a connection dialed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialer {
    /// This device dialed the peer.
    ThisDevice,
    /// The peer dialed this device.
    Peer,
}

impl Dialer {
    /// Whose connection both devices keep when they dial each other at
    /// once: the one dialed by the device with the smaller id (`me` and
    /// `peer` are the ids' bytes). Both devices compare the same two ids,
    /// so they keep the same connection.
    pub(crate) fn preferred(me: &[u8], peer: &[u8]) -> Dialer {
        if me < peer { Dialer::ThisDevice } else { Dialer::Peer }
    }
}

/// An open connection to a peer, as far as the rules need to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Held {
    /// Who dialed it.
    pub(crate) dialer: Dialer,
    /// When it was admitted.
    pub(crate) admitted_at: Instant,
}

/// What to do with a new connection to a peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// There is no open connection to the peer: take the new one.
    Take,
    /// Close the open connection and take the new one.
    Replace,
    /// Keep the open connection and close the new one.
    Refuse,
}

/// Decides about a new connection to a peer, dialed by `dialer`, when `held`
/// is the open connection to it (if any) and `preferred` is the dialer whose
/// connection wins a tie ([`Dialer::preferred`]).
///
/// A connection that has been up for a while loses to a new one (the peer
/// only dials when it has none: it restarted, and the old connection is dead
/// but not yet timed out); of two new ones (both devices dialed at once), the
/// one dialed by the preferred device wins on both sides.
pub(crate) fn admit(
    held: Option<Held>,
    dialer: Dialer,
    preferred: Dialer,
    now: Instant,
) -> Admission {
    let Some(held) = held else { return Admission::Take };
    let simultaneous = now.saturating_duration_since(held.admitted_at) < SIMULTANEOUS;
    if !simultaneous || (dialer == preferred && held.dialer != preferred) {
        Admission::Replace
    } else {
        Admission::Refuse
    }
}

/// What a registry change asks of the connection to one device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RegistryAction {
    /// The device was revoked: close its connection.
    Close,
    /// Nothing to close.
    Keep,
}

/// When to dial one paired device: the row of the link table that the
/// network keeps per device, next to the connection it holds.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    /// A dial is under way.
    dialing: bool,
    /// The wait after the last failure; zero after a success.
    backoff: Duration,
    /// No dial starts before this instant.
    next_dial: Option<Instant>,
}

impl Link {
    /// Whether to dial the device now: not when it is `connected`, when a
    /// dial is already under way, or before its backoff ends. A dial that
    /// starts is marked under way until [`Link::dial_succeeded`] or
    /// [`Link::dial_failed`].
    pub(crate) fn start_dial(&mut self, connected: bool, now: Instant) -> bool {
        if connected || self.dialing || self.next_dial.is_some_and(|at| at > now) {
            return false;
        }
        self.dialing = true;
        true
    }

    /// The dial got a connection; what becomes of it is
    /// [`Link::connection_ended`]'s business.
    pub(crate) fn dial_succeeded(&mut self) {
        self.dialing = false;
    }

    /// The dial failed: the next one waits longer (see `retry_later`).
    pub(crate) fn dial_failed(&mut self, now: Instant, random: u64) {
        self.dialing = false;
        self.retry_later(now, random);
    }

    /// The connection to the device ended. One that carried frames
    /// (`established`) resets the backoff, and the device is dialed again
    /// after the first backoff; one that never did (the peer refused it)
    /// counts as a failed dial.
    pub(crate) fn connection_ended(&mut self, established: bool, now: Instant, random: u64) {
        if established {
            self.backoff = Duration::ZERO;
            self.next_dial = Some(now + FIRST_BACKOFF);
        } else {
            self.retry_later(now, random);
        }
    }

    /// The registry changed. A `revoked` device's connection is closed. A
    /// device that is not revoked and has no connection is dialed again at
    /// once: what the registry says may be what it was waiting for (a device
    /// that refused this one may just have learned of it).
    pub(crate) fn registry_changed(
        &mut self,
        revoked: bool,
        has_connection: bool,
    ) -> RegistryAction {
        if revoked {
            return if has_connection { RegistryAction::Close } else { RegistryAction::Keep };
        }
        if !has_connection {
            self.backoff = Duration::ZERO;
            self.next_dial = None;
        }
        RegistryAction::Keep
    }

    /// The device has just paired with this one, which invited it: without
    /// a connection, it is dialed after [`AFTER_PAIRING`].
    pub(crate) fn paired(&mut self, has_connection: bool, now: Instant) {
        if !has_connection {
            self.next_dial = Some(now + AFTER_PAIRING);
        }
    }

    /// The wait after the last failure (for logs).
    pub(crate) fn backoff(&self) -> Duration {
        self.backoff
    }

    /// Schedules the next dial after a failure: the backoff doubles from
    /// [`FIRST_BACKOFF`] to [`MAX_BACKOFF`], and up to a quarter of it is
    /// added as jitter, taken from `random`, so that devices do not dial in
    /// lockstep.
    fn retry_later(&mut self, now: Instant, random: u64) {
        self.backoff = (self.backoff * 2).clamp(FIRST_BACKOFF, MAX_BACKOFF);
        let most = self.backoff.as_millis() as u64 / 4;
        let jitter = Duration::from_millis(random % (most + 1));
        self.next_dial = Some(now + self.backoff + jitter);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one instant a test takes from the clock: an arbitrary origin.
    /// Every other instant is made up from it ([`at`]), so what the rules
    /// decide does not depend on when the test runs or how long it takes.
    fn origin() -> Instant {
        Instant::now()
    }

    /// The made-up instant `millis` after `origin`.
    fn at(origin: Instant, millis: u64) -> Instant {
        origin + Duration::from_millis(millis)
    }

    /// When the next dial may start, in milliseconds after `origin`.
    fn next_dial_millis(link: &Link, origin: Instant) -> Option<u128> {
        link.next_dial.map(|next| next.duration_since(origin).as_millis())
    }

    #[test]
    fn the_backoff_doubles_from_half_a_second_and_stops_at_thirty_seconds() {
        let origin = origin();
        let mut link = Link::default();
        let mut waits = Vec::new();
        for _ in 0..9 {
            // Each dial starts as soon as the last wait is over, and fails.
            let now = link.next_dial.unwrap_or(origin);
            assert!(link.start_dial(false, now));
            link.dial_failed(now, 0);
            assert!(!link.start_dial(false, now));
            waits.push(link.next_dial.map(|next| next.duration_since(now).as_millis()));
        }
        let expect = [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000];
        assert_eq!(waits, expect.map(Some));
    }

    #[test]
    fn the_jitter_adds_at_most_a_quarter_of_the_backoff() {
        // After one failure the backoff is 500 ms, so the jitter is 0 to 125 ms.
        fn check(random: u64, expect_millis: u128) {
            let origin = origin();
            let mut link = Link::default();
            link.dial_failed(origin, random);
            assert_eq!(next_dial_millis(&link, origin), Some(expect_millis), "random {random}");
        }
        check(0, 500);
        check(1, 501);
        check(125, 625);
        check(126, 500);
        check(u64::MAX, 500 + u64::MAX as u128 % 126);
    }

    #[test]
    fn a_device_is_dialed_only_when_not_connected_not_being_dialed_and_due() {
        // The device is looked at 1 s after the origin.
        fn check(connected: bool, dialing: bool, next_dial: Option<u64>, expect: bool) {
            let origin = origin();
            let mut link = Link {
                dialing,
                backoff: FIRST_BACKOFF,
                next_dial: next_dial.map(|millis| at(origin, millis)),
            };
            assert_eq!(
                link.start_dial(connected, at(origin, 1_000)),
                expect,
                "connected {connected}, dialing {dialing}, next dial {next_dial:?}"
            );
            // A dial that starts is under way; one that does not changes nothing.
            assert_eq!(link.dialing, dialing || expect);
        }
        check(false, false, None, true);
        check(false, false, Some(999), true);
        check(false, false, Some(1_000), true);
        check(false, false, Some(1_001), false);
        check(true, false, None, false);
        check(false, true, None, false);
    }

    #[test]
    fn a_dial_under_way_is_not_started_twice_and_a_success_ends_it() {
        let origin = origin();
        let mut link = Link::default();
        assert!(link.start_dial(false, origin));
        assert!(!link.start_dial(false, at(origin, 10_000)));
        link.dial_succeeded();
        assert_eq!(link.backoff(), Duration::ZERO);
        assert!(link.start_dial(false, at(origin, 10_000)));
    }

    #[test]
    fn a_connection_that_carried_frames_resets_the_backoff() {
        let origin = origin();
        let mut link = Link::default();
        for _ in 0..5 {
            link.dial_failed(origin, 0);
        }
        assert_eq!(link.backoff(), Duration::from_secs(8));
        link.connection_ended(true, at(origin, 60_000), 0);
        assert_eq!(link.backoff(), Duration::ZERO);
        assert_eq!(next_dial_millis(&link, origin), Some(60_500));
        // The next failure starts over from the first backoff.
        link.dial_failed(at(origin, 61_000), 0);
        assert_eq!(link.backoff(), FIRST_BACKOFF);
        assert_eq!(next_dial_millis(&link, origin), Some(61_500));
    }

    #[test]
    fn a_connection_that_never_carried_a_frame_counts_as_a_failed_dial() {
        let origin = origin();
        let mut link = Link::default();
        link.dial_failed(origin, 0);
        link.connection_ended(false, at(origin, 1_000), 0);
        assert_eq!(link.backoff(), Duration::from_secs(1));
        assert_eq!(next_dial_millis(&link, origin), Some(2_000));
    }

    #[test]
    fn the_connection_dialed_by_the_smaller_id_wins_on_both_sides() {
        let (small, large): (&[u8], &[u8]) = (&[1, 2, 3], &[1, 2, 4]);
        assert_eq!(Dialer::preferred(small, large), Dialer::ThisDevice);
        assert_eq!(Dialer::preferred(large, small), Dialer::Peer);
        // Device `me` holds a connection dialed by `held`, and a second one,
        // dialed by `dialer`, arrives a second later.
        fn check(me: &[u8], peer: &[u8], held: Dialer, dialer: Dialer, expect: Admission) {
            let origin = origin();
            let held = Held { dialer: held, admitted_at: origin };
            let preferred = Dialer::preferred(me, peer);
            let admission = admit(Some(held), dialer, preferred, at(origin, 1_000));
            assert_eq!(admission, expect, "held {held:?}, dialed by {dialer:?}");
        }
        // On the smaller id's device, its own dial wins, whichever came first.
        check(small, large, Dialer::ThisDevice, Dialer::Peer, Admission::Refuse);
        check(small, large, Dialer::Peer, Dialer::ThisDevice, Admission::Replace);
        // On the larger id's device, the peer's dial wins, whichever came
        // first: both devices keep the connection the smaller id dialed.
        check(large, small, Dialer::ThisDevice, Dialer::Peer, Admission::Replace);
        check(large, small, Dialer::Peer, Dialer::ThisDevice, Admission::Refuse);
    }

    #[test]
    fn a_connection_up_for_a_while_loses_to_a_new_one() {
        fn check(age_millis: u64, held: Dialer, dialer: Dialer, expect: Admission) {
            let origin = origin();
            let held = Held { dialer: held, admitted_at: origin };
            let admission = admit(Some(held), dialer, Dialer::ThisDevice, at(origin, age_millis));
            assert_eq!(
                admission, expect,
                "{age_millis} ms old, held {held:?}, dialed by {dialer:?}"
            );
        }
        check(2_999, Dialer::ThisDevice, Dialer::Peer, Admission::Refuse);
        check(3_000, Dialer::ThisDevice, Dialer::Peer, Admission::Replace);
        check(60_000, Dialer::ThisDevice, Dialer::Peer, Admission::Replace);
        check(60_000, Dialer::Peer, Dialer::Peer, Admission::Replace);
        check(2_999, Dialer::Peer, Dialer::Peer, Admission::Refuse);
    }

    #[test]
    fn a_new_connection_is_taken_when_none_is_open() {
        let now = origin();
        for dialer in [Dialer::ThisDevice, Dialer::Peer] {
            assert_eq!(admit(None, dialer, Dialer::ThisDevice, now), Admission::Take);
            assert_eq!(admit(None, dialer, Dialer::Peer, now), Admission::Take);
        }
    }

    #[test]
    fn a_registry_change_closes_a_revoked_devices_connection() {
        fn check(revoked: bool, has_connection: bool, expect: RegistryAction, expect_reset: bool) {
            let origin = origin();
            let mut link = Link::default();
            link.dial_failed(origin, 0);
            let before = link.clone();
            let action = link.registry_changed(revoked, has_connection);
            let reset = link.backoff() == Duration::ZERO && link.next_dial.is_none();
            assert_eq!(
                (action, reset),
                (expect, expect_reset),
                "revoked {revoked}, connected {has_connection}"
            );
            if !reset {
                assert_eq!(link, before);
            }
        }
        check(true, true, RegistryAction::Close, false);
        // A revoked device is not dialed again sooner.
        check(true, false, RegistryAction::Keep, false);
        check(false, true, RegistryAction::Keep, false);
        // A paired device without a connection is dialed again at once.
        check(false, false, RegistryAction::Keep, true);
    }

    #[test]
    fn a_device_that_just_paired_is_dialed_two_seconds_later_unless_connected() {
        let origin = origin();
        let mut link = Link::default();
        link.paired(false, at(origin, 1_000));
        assert_eq!(next_dial_millis(&link, origin), Some(3_000));
        assert!(!link.start_dial(false, at(origin, 2_999)));
        assert!(link.start_dial(false, at(origin, 3_000)));
        let mut connected = Link::default();
        connected.paired(true, at(origin, 1_000));
        assert_eq!(connected, Link::default());
    }
}
