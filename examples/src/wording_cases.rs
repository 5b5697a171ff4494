//! A blind set of predicate wordings, written after the belief cases and never used for tuning.
//!
//! Each case gives two facts that different agents might write about one subject. The question
//! is whether the second predicate names the same attribute as the first. Every pair is judged by
//! what a careful reader means, not by how the words look.

/// Two facts about one subject: did the second name the same attribute as the first?
#[derive(Debug, Clone, Copy)]
pub struct Wording {
    /// The subject, as both facts name it.
    pub subject: &'static str,
    /// The first fact's predicate and object.
    pub first: (&'static str, &'static str),
    /// The second fact's predicate and object.
    pub second: (&'static str, &'static str),
    /// Whether the second predicate names the same attribute as the first.
    pub same: bool,
}

pub const WORDINGS: &[Wording] = &[
    // Same attribute, worded differently.
    Wording {
        subject: "auth-service",
        first: ("is maintained by", "platform team"),
        second: ("maintainer", "identity team"),
        same: true,
    },
    Wording {
        subject: "billing-worker",
        first: ("cron schedule", "0 2 * * *"),
        second: ("scheduled to run at", "0 3 * * *"),
        same: true,
    },
    Wording {
        subject: "acme/webapp",
        first: ("default branch", "master"),
        second: ("main branch is", "main"),
        same: true,
    },
    Wording {
        subject: "Alice",
        first: ("favourite colour", "green"),
        second: ("favorite color", "blue"),
        same: true,
    },
    Wording {
        subject: "Bob",
        first: ("drives", "Honda Civic"),
        second: ("car", "Tesla Model 3"),
        same: true,
    },
    Wording {
        subject: "Carol",
        first: ("dietary preference", "vegetarian"),
        second: ("diet", "vegan"),
        same: true,
    },
    Wording {
        subject: "web-frontend",
        first: ("CI system", "Jenkins"),
        second: ("continuous integration runs on", "GitHub Actions"),
        same: true,
    },
    Wording {
        subject: "orders-db",
        first: ("backup frequency", "daily"),
        second: ("backed up every", "6 hours"),
        same: true,
    },
    Wording {
        subject: "David Okafor",
        first: ("preferred name", "Dave"),
        second: ("goes by", "Davey"),
        same: true,
    },
    Wording {
        subject: "search-cluster",
        first: ("node count", "3"),
        second: ("number of nodes", "5"),
        same: true,
    },
    Wording {
        subject: "data team",
        first: ("team lead", "Priya"),
        second: ("is led by", "Marcus"),
        same: true,
    },
    Wording {
        subject: "Erin",
        first: ("salary", "$120k"),
        second: ("earns per year", "$135,000"),
        same: true,
    },
    Wording {
        subject: "Frank",
        first: ("Slack handle", "@frank"),
        second: ("username on Slack", "@frank.m"),
        same: true,
    },
    Wording {
        subject: "edge-gateway",
        first: ("TLS cert expires", "2024-06-01"),
        second: ("certificate expiry date", "2025-06-01"),
        same: true,
    },
    Wording {
        subject: "Grace's flat",
        first: ("monthly rent", "£1,200"),
        second: ("rent per month", "£1,350"),
        same: true,
    },
    Wording {
        subject: "Heidi",
        first: ("commutes by", "bus"),
        second: ("mode of transport to work", "bike"),
        same: true,
    },
    Wording {
        subject: "inventory-service",
        first: ("health check endpoint", "/health"),
        second: ("healthcheck URL", "/healthz"),
        same: true,
    },
    Wording {
        subject: "acme/mobile-app",
        first: ("licence", "MIT"),
        second: ("licensed under", "Apache-2.0"),
        same: true,
    },
    Wording {
        subject: "Ivan",
        first: ("preferred IDE", "VS Code"),
        second: ("editor of choice", "Neovim"),
        same: true,
    },
    Wording {
        subject: "prod-cluster",
        first: ("AWS region", "us-east-1"),
        second: ("is located in region", "eu-west-1"),
        same: true,
    },
    Wording {
        subject: "Judy",
        first: ("shirt size", "M"),
        second: ("wears size", "L"),
        same: true,
    },
    Wording {
        subject: "mobile team",
        first: ("standup time", "9:30am"),
        second: ("holds daily standup at", "10:00"),
        same: true,
    },
    Wording {
        subject: "Karl",
        first: ("notice period", "1 month"),
        second: ("must give notice of", "3 months"),
        same: true,
    },
    Wording {
        subject: "cache-layer",
        first: ("eviction policy", "LRU"),
        second: ("evicts keys using", "LFU"),
        same: true,
    },
    // Related-looking wordings that name a different attribute.
    Wording {
        subject: "Nina",
        first: ("favourite food", "sushi"),
        second: ("least favourite food", "olives"),
        same: false,
    },
    Wording {
        subject: "checkout-api",
        first: ("p99 latency", "250ms"),
        second: ("p50 latency", "40ms"),
        same: false,
    },
    Wording {
        subject: "Oscar",
        first: ("mentors", "Pat"),
        second: ("is mentored by", "Quinn"),
        same: false,
    },
    Wording {
        subject: "acme/ml-pipeline",
        first: ("upstream repo", "acme/ml-core"),
        second: ("downstream repo", "acme/ml-lite"),
        same: false,
    },
    Wording {
        subject: "Peggy",
        first: ("home address", "12 Elm St"),
        second: ("work address", "1 Market St"),
        same: false,
    },
    Wording {
        subject: "legacy-db",
        first: ("primary host", "db-1"),
        second: ("replica host", "db-2"),
        same: false,
    },
    Wording {
        subject: "Rupert",
        first: ("speaks", "French"),
        second: ("is learning", "Japanese"),
        same: false,
    },
    Wording {
        subject: "stream-processor",
        first: ("disk used", "40 GB"),
        second: ("disk size", "100 GB"),
        same: false,
    },
    Wording {
        subject: "Sybil",
        first: ("moved from", "Leeds"),
        second: ("moved to", "Bristol"),
        same: false,
    },
    Wording {
        subject: "design team",
        first: ("team size", "6"),
        second: ("headcount budget", "8"),
        same: false,
    },
    Wording {
        subject: "Trent",
        first: ("emergency contact", "Wendy"),
        second: ("is emergency contact for", "Victor"),
        same: false,
    },
    Wording {
        subject: "image-resizer",
        first: ("input format", "PNG"),
        second: ("output format", "WebP"),
        same: false,
    },
    Wording {
        subject: "Uma's house",
        first: ("bedrooms", "3"),
        second: ("bathrooms", "2"),
        same: false,
    },
    Wording {
        subject: "release pipeline",
        first: ("last successful build", "#412"),
        second: ("last failed build", "#415"),
        same: false,
    },
    Wording {
        subject: "Victor",
        first: ("preferred contact method", "email"),
        second: ("preferred contact hours", "after 6pm"),
        same: false,
    },
    Wording {
        subject: "rate-limiter",
        first: ("rate limit", "100 req/s"),
        second: ("burst limit", "200 requests"),
        same: false,
    },
];

/// Checks a set's shape: how many pairs are the same attribute and how many
/// are not, no subject twice (whatever the case), two different objects in
/// every pair.
#[cfg(test)]
pub(crate) fn check_shape(set: &[Wording], same: usize, different: usize) {
    assert_eq!(set.iter().filter(|w| w.same).count(), same);
    assert_eq!(set.iter().filter(|w| !w.same).count(), different);
    let mut seen = std::collections::HashSet::new();
    for w in set {
        assert!(seen.insert(w.subject.to_lowercase()), "subject repeated: {}", w.subject);
        assert_ne!(w.first.1, w.second.1, "objects must differ: {}", w.subject);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_distinct_subjects_and_objects() {
        super::check_shape(super::WORDINGS, 24, 16);
    }
}
