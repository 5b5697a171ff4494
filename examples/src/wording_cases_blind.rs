//! A second blind set of predicate wordings.
//!
//! Written after the first set (`wording_cases`) was used to find a flaw, and never used for
//! tuning. Each entry gives two predicates that different agents might write for one subject,
//! each with a different object (a new value). `same` records whether a careful reader takes
//! the second predicate to name the same attribute as the first; every pair is judged by what
//! the words mean, not by how any algorithm treats them.

use crate::wording_cases::Wording;

pub const BLIND_WORDINGS: &[Wording] = &[
    // ---- same attribute (18) ----
    Wording {
        subject: "payments-service",
        first: ("stores data in", "postgres-prod"),
        second: ("primary database", "aurora-prod"),
        same: true,
    },
    Wording {
        subject: "ferrex",
        first: ("repo URL", "github.com/acme/ferrex"),
        second: ("source code lives at", "git.acme.dev/ferrex"),
        same: true,
    },
    Wording {
        subject: "Priya",
        first: ("favourite food", "ramen"),
        second: ("food she likes best", "pho"),
        same: true,
    },
    Wording {
        subject: "Marco",
        first: ("street address", "12 Elm Street"),
        second: ("lives at", "4 Oak Road"),
        same: true,
    },
    Wording {
        subject: "search-cluster",
        first: ("node count", "5"),
        second: ("number of nodes", "7"),
        same: true,
    },
    Wording {
        subject: "auth-service",
        first: ("log level", "info"),
        second: ("logging verbosity", "debug"),
        same: true,
    },
    Wording {
        subject: "Team Atlas",
        first: ("sprint length", "2 weeks"),
        second: ("works in sprints of", "3 weeks"),
        same: true,
    },
    Wording {
        subject: "Dana",
        first: ("pronouns", "she/her"),
        second: ("preferred pronouns", "they/them"),
        same: true,
    },
    Wording {
        subject: "web-frontend",
        first: ("built with", "React"),
        second: ("UI framework", "Svelte"),
        same: true,
    },
    Wording {
        subject: "Tom",
        first: ("wake-up time", "6:30"),
        second: ("gets up at", "7:00"),
        same: true,
    },
    Wording {
        subject: "orders-db",
        first: ("backup retention", "7 days"),
        second: ("backups are kept for", "30 days"),
        same: true,
    },
    Wording {
        subject: "api-gateway",
        first: ("rate limit", "100 requests/s"),
        second: ("requests are throttled at", "500 requests/s"),
        same: true,
    },
    Wording {
        subject: "Lena",
        first: ("native language", "German"),
        second: ("mother tongue", "Dutch"),
        same: true,
    },
    Wording {
        subject: "Kai",
        first: ("landlord", "Mr Patel"),
        second: ("rents flat from", "Ms Osei"),
        same: true,
    },
    Wording {
        subject: "Sam",
        first: ("hourly rate", "$80"),
        second: ("charges per hour", "$95"),
        same: true,
    },
    Wording {
        subject: "session-cache",
        first: ("TTL", "300s"),
        second: ("entries expire after", "600s"),
        same: true,
    },
    Wording {
        subject: "checkout-svc",
        first: ("k8s namespace", "shop"),
        second: ("Kubernetes namespace", "commerce"),
        same: true,
    },
    Wording {
        subject: "Ava",
        first: ("is married to", "Ben"),
        second: ("spouse", "Chris"),
        same: true,
    },
    // ---- different attribute (12) ----
    Wording {
        subject: "notifications-svc",
        first: ("calls", "user-service"),
        second: ("is called by", "web-app"),
        same: false,
    },
    Wording {
        subject: "Rachel",
        first: ("former employer", "Initech"),
        second: ("works for", "Globex"),
        same: false,
    },
    Wording {
        subject: "billing-db",
        first: ("primary region", "eu-west-1"),
        second: ("failover region", "eu-central-1"),
        same: false,
    },
    Wording {
        subject: "Omar",
        first: ("father", "Hassan"),
        second: ("father-in-law", "Youssef"),
        same: false,
    },
    Wording {
        subject: "ios-app",
        first: ("minimum iOS version", "15"),
        second: ("latest tested iOS version", "17"),
        same: false,
    },
    Wording {
        subject: "Leo",
        first: ("work address", "1 Main Street"),
        second: ("home address", "9 Birch Lane"),
        same: false,
    },
    Wording {
        subject: "ferrex-cli",
        first: ("forked from", "acme/memkit"),
        second: ("has been forked as", "bob/ferrex-cli-lite"),
        same: false,
    },
    Wording {
        subject: "Team Orion",
        first: ("budget", "$200k"),
        second: ("budget spent", "$80k"),
        same: false,
    },
    Wording {
        subject: "logging-stack",
        first: ("log retention", "30 days"),
        second: ("log rotation interval", "daily"),
        same: false,
    },
    Wording {
        subject: "Ines",
        first: ("speaks", "French"),
        second: ("is learning", "Japanese"),
        same: false,
    },
    Wording {
        subject: "desktop-client",
        first: ("last released", "2024-05-01"),
        second: ("next release due", "2024-07-01"),
        same: false,
    },
    Wording {
        subject: "queue-worker",
        first: ("concurrency", "8"),
        second: ("queue depth", "120"),
        same: false,
    },
];

#[cfg(test)]
mod tests {
    #[test]
    fn counts_distinct_subjects_and_objects() {
        crate::wording_cases::check_shape(super::BLIND_WORDINGS, 18, 12);
    }
}
