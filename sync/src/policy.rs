//! Who may do what in a share, decided from what a device holds and
//! nothing else: pure functions, no I/O, no locks, no clock.
//!
//! The network asks these and carries out the answer (signs, refuses,
//! dials); the rules themselves live here, each tested at this boundary.
//! `Membership` resolves a share's statements into members; this module
//! turns members and the person's registry into decisions.

use std::collections::BTreeSet;

use ferrex_core::Namespace;

use crate::{
    Refusal, Scope,
    membership::{Action, MAX_CHAIN, Membership, Role, Statement},
};

/// The prefix of a share's namespace: `share.` and the first half of its
/// id in hex. (A person's own namespace may not be shared, nor may one
/// that looks like a share's.)
pub const SHARE_NAMESPACE_PREFIX: &str = "share.";

/// Whether `namespace` is a share's (or looks like one).
pub fn is_share_namespace(namespace: &Namespace) -> bool {
    namespace.as_str().starts_with(SHARE_NAMESPACE_PREFIX)
}

/// Whether a frame of `doc` from a peer whose session carries `scope` may
/// make `doc` here, where `made` asks the replica ([`crate::Replica::may_make`]:
/// a shard only once the one before it is full). A share's shards are
/// checked from a member and from the person's own devices alike, so nobody
/// steps a device through empty shards; other namespaces' shards come from
/// the person's own devices only, which are trusted with them.
pub fn may_make(scope: &Scope, doc: &crate::DocId, made: impl FnOnce() -> bool) -> bool {
    let crate::DocId::Shard { namespace, .. } = doc else { return true };
    if matches!(scope, Scope::Own { .. }) && !is_share_namespace(namespace) {
        return true;
    }
    made()
}

/// A share as the policy reads it: where its documents are and who
/// belongs, by the statements this device holds.
pub struct ShareFacts<'a> {
    /// The share's namespace.
    pub namespace: Namespace,
    /// Its members.
    pub membership: &'a Membership,
}

/// The device that signed the `Create` among `membership`'s statements.
pub fn creator(membership: &Membership) -> Option<[u8; 32]> {
    membership.statements().find_map(|statement| match statement.body.action {
        Action::Create { .. } => Some(statement.body.issuer),
        _ => None,
    })
}

/// The role of `device` in a share, where `own` says whether a device is
/// one of this person's: what its grants give it, else `admin` for one of
/// the person's devices in a share the person created. The person's
/// devices take part without a grant (one is signed only when a device
/// acts: invites or removes), so that teammates never learn of the ones
/// that do not (docs/sharing.md).
pub fn role(
    membership: &Membership,
    device: &[u8; 32],
    own: impl Fn(&[u8; 32]) -> bool,
) -> Option<Role> {
    membership.role_of(device).or_else(|| {
        let creator = creator(membership)?;
        (own(device) && (creator == *device || own(&creator))).then_some(Role::Admin)
    })
}

/// What a session with `peer`, one of the person's paired devices,
/// carries: every document but the shares it has no part in (and the
/// share namespaces among `held` that no share record explains yet: carried
/// to no one until this device knows who may have them), read-only for the
/// shares it may only read.
pub fn scope_for_paired(
    shares: &[ShareFacts<'_>],
    held: &[Namespace],
    peer: &[u8; 32],
    own: impl Fn(&[u8; 32]) -> bool,
) -> Scope {
    let mut withheld: BTreeSet<Namespace> =
        held.iter().filter(|ns| is_share_namespace(ns)).cloned().collect();
    let mut read_only = BTreeSet::new();
    for share in shares {
        withheld.remove(&share.namespace);
        match role(share.membership, peer, &own) {
            None => {
                withheld.insert(share.namespace.clone());
            }
            Some(role) if role < Role::Write => {
                read_only.insert(share.namespace.clone());
            }
            Some(_) => {}
        }
    }
    Scope::Own { withheld, read_only }
}

/// What a session with `peer`, a member of a share (a teammate's device),
/// carries: the share's documents, read-only if it may not write; `None`
/// (no session) unless both it and this device (`me`) are members.
pub fn scope_for_member(share: &ShareFacts<'_>, me: &[u8; 32], peer: &[u8; 32]) -> Option<Scope> {
    share.membership.role_of(me)?;
    let role = share.membership.role_of(peer)?;
    Some(Scope::Share { namespace: share.namespace.clone(), read_only: role < Role::Write })
}

/// The shares' namespaces this device (`me`) may not write.
pub fn read_only_here(
    shares: &[ShareFacts<'_>],
    me: &[u8; 32],
    own: impl Fn(&[u8; 32]) -> bool,
) -> BTreeSet<Namespace> {
    shares
        .iter()
        .filter(|share| role(share.membership, me, &own).is_none_or(|role| role < Role::Write))
        .map(|share| share.namespace.clone())
        .collect()
}

/// Whether a device asking for an exchange of a share is answered: only
/// when both it and this device are members, by what this device holds
/// after taking what it offered (`membership`; `None` when this device does
/// not hold the share). Every other asker gets the same refusal, counted
/// against it, so a stranger learns nothing of which shares a device holds.
pub fn member_refusal(
    membership: Option<&Membership>,
    me: &[u8; 32],
    peer: &[u8; 32],
) -> Option<Refusal> {
    let member = membership.is_some_and(|membership| {
        membership.role_of(me).is_some() && membership.role_of(peer).is_some()
    });
    (!member).then_some(Refusal::NotMember)
}

/// Who this device (`me`) writes as in a share where it takes part without
/// a grant (one of the person's devices in a share the person created):
/// the share's creator, a member whose id the teammates know already, so
/// that the person's other devices are named in none of the share's
/// documents. `None` where it holds a grant, or the share has no creator
/// yet.
pub fn stand_in(membership: &Membership, me: &[u8; 32]) -> Option<String> {
    if membership.role_of(me).is_some() {
        return None;
    }
    Some(hex::encode(creator(membership)?))
}

/// The statements a device of the person signs in a share it holds, to
/// keep the share's grants in step with the person's registry:
/// - a grant of this device's role to each paired device without one, in a
///   share joined (in one the person created, their devices take part
///   without a grant), unless the device was removed: a device whose own
///   grant a counting revocation took stays out, and so does one revoked
///   in the registry; one whose grants fell only with another device's (a
///   lost sibling that had granted it) is granted again;
/// - a revocation of every live grant of a device the registry revoked
///   (but the `Create`).
///
/// `me` is this device (a device without a role signs nothing), `paired`
/// the devices paired with it, `revoked` those the registry revoked.
pub fn own_statements_to_sign(
    membership: &Membership,
    me: &[u8; 32],
    created_here: bool,
    paired: &[[u8; 32]],
    revoked: &[[u8; 32]],
) -> Vec<Action> {
    let grants_of = |device: &[u8; 32]| -> Vec<&Statement> {
        membership
            .statements()
            .filter(|statement| statement.grants().is_some_and(|(to, _)| to == *device))
            .filter(|statement| !matches!(statement.body.action, Action::Create { .. }))
            .collect()
    };
    // Whether a grant fell with a device the registry revoked, somewhere up
    // its chain.
    let through_unpaired = |statement: &Statement| {
        let mut link = statement.body.proof;
        for _ in 0..MAX_CHAIN {
            let Some(id) = link else { return false };
            let Some(proof) = membership.statements().find(|s| s.id == id) else {
                return false;
            };
            if proof.grants().is_some_and(|(to, _)| revoked.contains(&to)) {
                return true;
            }
            link = proof.body.proof;
        }
        false
    };
    let Some(role) = membership.role_of(me) else { return Vec::new() };
    let mut actions = Vec::new();
    if !created_here {
        actions.extend(
            paired
                .iter()
                .filter(|device| membership.role_of(device).is_none() && !revoked.contains(device))
                .filter(|device| {
                    let grants = grants_of(device);
                    grants.is_empty()
                        || grants.iter().all(|grant| {
                            !membership.is_revoked(&grant.id) && through_unpaired(grant)
                        })
                })
                .map(|device| Action::Grant { device: *device, role }),
        );
    }
    for device in revoked {
        actions.extend(
            membership
                .grants_to(device)
                .into_iter()
                .filter(|grant| {
                    // The `Create` cannot be revoked.
                    membership.statements().any(|statement| {
                        statement.id == *grant
                            && !matches!(statement.body.action, Action::Create { .. })
                    })
                })
                .map(|grant| Action::Revoke { grant }),
        );
    }
    actions
}

#[cfg(test)]
mod tests {
    use iroh::SecretKey;

    use super::*;
    use crate::membership::{
        Role,
        tests::{Share, device, key},
    };

    /// A grant of `write` from `by` to `to`.
    fn grant(share: &mut Share, by: &SecretKey, proof: &Statement, to: &SecretKey) -> Statement {
        share.grant(by, proof, to, Role::Write)
    }

    fn grants(actions: &[Action]) -> Vec<[u8; 32]> {
        actions
            .iter()
            .filter_map(|action| match action {
                Action::Grant { device, .. } => Some(*device),
                _ => None,
            })
            .collect()
    }

    /// A share created by Ann's laptop, with a writer and a reader of Bob's;
    /// Ann's server is paired with the laptop and holds no grant.
    struct Scene {
        share: Share,
        laptop: SecretKey,
        server: SecretKey,
        writer: SecretKey,
        reader: SecretKey,
        stranger: SecretKey,
    }

    fn scene() -> Scene {
        let (laptop, server, writer, reader, stranger) = (key(1), key(2), key(3), key(4), key(5));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        share.grant(&laptop, &create, &writer, Role::Write);
        share.grant(&laptop, &create, &reader, Role::Read);
        Scene { share, laptop, server, writer, reader, stranger }
    }

    fn namespace() -> Namespace {
        Namespace::parse("share.00112233445566778899aabbccddeeff").unwrap()
    }

    #[test]
    fn the_person_s_devices_are_admins_without_a_grant_and_write_as_the_creator() {
        let scene = scene();
        let membership = scene.share.resolve();
        let (laptop, server) = (device(&scene.laptop), device(&scene.server));
        let own = |id: &[u8; 32]| *id == laptop || *id == server;
        assert_eq!(role(&membership, &device(&scene.server), own), Some(Role::Admin));
        assert_eq!(role(&membership, &device(&scene.server), |_| false), None);
        assert_eq!(role(&membership, &device(&scene.reader), own), Some(Role::Read));
        assert_eq!(
            stand_in(&membership, &device(&scene.server)),
            Some(hex::encode(device(&scene.laptop)))
        );
        assert_eq!(
            stand_in(&membership, &device(&scene.laptop)),
            None,
            "the creator holds a grant"
        );
        assert_eq!(stand_in(&membership, &device(&scene.writer)), None);
    }

    #[test]
    fn sessions_carry_what_each_peer_may_have() {
        let scene = scene();
        let membership = scene.share.resolve();
        let share = ShareFacts { namespace: namespace(), membership: &membership };
        let (laptop, server) = (device(&scene.laptop), device(&scene.server));
        let own = |device: &[u8; 32]| *device == laptop || *device == server;
        // A member's session: the share, read-only for the reader; none for
        // a stranger, nor when this device is no member.
        assert_eq!(
            scope_for_member(&share, &laptop, &device(&scene.writer)),
            Some(Scope::Share { namespace: namespace(), read_only: false })
        );
        assert_eq!(
            scope_for_member(&share, &laptop, &device(&scene.reader)),
            Some(Scope::Share { namespace: namespace(), read_only: true })
        );
        assert_eq!(scope_for_member(&share, &laptop, &device(&scene.stranger)), None);
        assert_eq!(
            scope_for_member(&share, &device(&scene.stranger), &device(&scene.writer)),
            None
        );
        // A paired device's session: the share for the server; a share
        // namespace held without its record is withheld.
        let orphan = Namespace::parse("share.ffeeddccbbaa99887766554433221100").unwrap();
        let held = [namespace(), orphan.clone(), Namespace::parse("work").unwrap()];
        let facts = [ShareFacts { namespace: namespace(), membership: &membership }];
        assert_eq!(
            scope_for_paired(&facts, &held, &server, own),
            Scope::Own { withheld: BTreeSet::from([orphan.clone()]), read_only: BTreeSet::new() }
        );
        // A paired device that is no part of the share (the person did not
        // create it, and it holds no grant): withheld.
        assert_eq!(
            scope_for_paired(&facts, &held, &server, |device| *device == server),
            Scope::Own {
                withheld: BTreeSet::from([namespace(), orphan]),
                read_only: BTreeSet::new()
            }
        );
        // Read-only here for a reader.
        assert_eq!(
            read_only_here(&facts, &device(&scene.reader), |_| false),
            BTreeSet::from([namespace()])
        );
        assert!(read_only_here(&facts, &device(&scene.writer), |_| false).is_empty());
        assert_eq!(
            read_only_here(&facts, &device(&scene.stranger), |_| false),
            BTreeSet::from([namespace()])
        );
    }

    #[test]
    fn a_stranger_gets_the_same_refusal_whether_the_share_is_held_or_not() {
        let (admin, teammate, stranger) = (key(1), key(2), key(3));
        let mut share = Share::new(&admin);
        let create = share.create.clone();
        grant(&mut share, &admin, &create, &teammate);
        let membership = share.resolve();
        let held = member_refusal(Some(&membership), &device(&admin), &device(&stranger));
        let not_held = member_refusal(None, &device(&admin), &device(&stranger));
        assert_eq!(held, Some(Refusal::NotMember));
        assert_eq!(held, not_held);
        assert_eq!(member_refusal(Some(&membership), &device(&admin), &device(&teammate)), None);
        // This device removed: nobody is answered.
        assert!(
            member_refusal(Some(&membership), &device(&stranger), &device(&teammate)).is_some()
        );
    }

    #[test]
    fn a_device_removed_is_not_granted_again_when_the_device_that_added_it_is_unpaired() {
        // Bob's laptop granted his phone and tablet; an admin removed the
        // tablet; Bob unpairs the laptop on the phone.
        let (admin, laptop, phone, tablet) = (key(1), key(2), key(3), key(4));
        let mut share = Share::new(&admin);
        let create = share.create.clone();
        let laptop_grant = grant(&mut share, &admin, &create, &laptop);
        let phone_grant = grant(&mut share, &laptop, &laptop_grant, &phone);
        let tablet_grant = grant(&mut share, &laptop, &laptop_grant, &tablet);
        share.revoke(&admin, &create, &tablet_grant);
        let _ = phone_grant;
        let actions = own_statements_to_sign(
            &share.resolve(),
            &device(&phone),
            false,
            &[device(&tablet)],
            &[device(&laptop)],
        );
        assert_eq!(grants(&actions), [] as [[u8; 32]; 0], "the removed tablet is granted again");
        // The laptop's grant is revoked, so the phone's falls with it: the
        // phone then holds no role and signs nothing until granted again.
        assert!(actions.iter().any(|action| matches!(action,
            Action::Revoke { grant } if *grant == laptop_grant.id)));
    }

    #[test]
    fn a_device_that_fell_with_an_unpaired_sibling_is_granted_again() {
        // The phone holds its own grant from the admin; the tablet's came
        // through the laptop, which the phone now unpairs.
        let (admin, laptop, phone, tablet) = (key(1), key(2), key(3), key(4));
        let mut share = Share::new(&admin);
        let create = share.create.clone();
        let laptop_grant = grant(&mut share, &admin, &create, &laptop);
        grant(&mut share, &admin, &create, &phone);
        grant(&mut share, &laptop, &laptop_grant, &tablet);
        share.revoke(&admin, &create, &laptop_grant);
        let membership = share.resolve();
        let actions = own_statements_to_sign(
            &membership,
            &device(&phone),
            false,
            &[device(&tablet)],
            &[device(&laptop)],
        );
        assert_eq!(grants(&actions), [device(&tablet)]);
        // Not in a share the person created, and not by a device without a role.
        assert!(
            grants(&own_statements_to_sign(
                &membership,
                &device(&phone),
                true,
                &[device(&tablet)],
                &[device(&laptop)]
            ))
            .is_empty()
        );
        assert!(
            own_statements_to_sign(&membership, &device(&laptop), false, &[device(&tablet)], &[])
                .is_empty()
        );
    }
}
