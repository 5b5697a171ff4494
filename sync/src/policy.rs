//! Who may do what in a share, decided from what a device holds and
//! nothing else: pure functions, no I/O, no locks, no clock.
//!
//! The network asks these and carries out the answer (signs, refuses,
//! dials); the rules themselves live here, each tested at this boundary.
//! `Membership` resolves a share's statements into members; this module
//! turns members and the person's registry into decisions.

use crate::{
    Refusal,
    membership::{Action, MAX_CHAIN, Membership, Statement},
};

/// Whether a device asking for an exchange of a share is answered: only
/// when both it and this device are members, by what this device holds
/// after taking what it offered (`membership`; `None` when this device does
/// not hold the share). Every other asker gets the same refusal, counted
/// against it, so a stranger learns nothing of which shares a device holds.
pub(crate) fn member_refusal(
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
pub(crate) fn stand_in(membership: &Membership, me: &[u8; 32]) -> Option<String> {
    if membership.role_of(me).is_some() {
        return None;
    }
    let creator = membership.statements().find_map(|statement| match statement.body.action {
        Action::Create { .. } => Some(statement.body.issuer),
        _ => None,
    })?;
    Some(hex::encode(creator))
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
pub(crate) fn own_statements_to_sign(
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
