//! The belief evaluation's cases: short sequences of stores (facts as subject, predicate,
//! object triples, and free text) with what the last store must do to the first.
//!
//! The table was written before any threshold was tuned, blind to the implementation, and
//! has been frozen since: change it only to fix a case a careful reader would call wrong,
//! never to make a score go up. A third of each category is held out: every case whose
//! index within its category is 2 mod 3 (the third, sixth, ninth, ...) is kept for the
//! final report and must not be looked at while tuning.

/// One store of a case.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// A fact: subject, predicate, object, as an agent would write them.
    Fact(&'static str, &'static str, &'static str),
    /// Free text (an episodic memory).
    Text(&'static str),
}

/// What the case's last step must do to its first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A single-valued attribute got a new value: the last fact is current, the first
    /// superseded.
    Replaces,
    /// A multi-valued attribute got another value: every value stays current.
    Accumulates,
    /// The same value written differently: the store answers `duplicate`.
    Duplicate,
    /// The last fact's predicate names the same attribute as the first's in other words: it
    /// is filed under the first's predicate.
    SameAttribute,
    /// The last fact's predicate names a different attribute: it is not filed under the
    /// first's predicate, and both stay current.
    OtherAttribute,
    /// Free text that states a new value of the first fact's attribute: recorded as
    /// correcting that fact, and ranked above it for the question.
    TextCorrects,
    /// Free text that looks alike but does not change the fact (another subject, another
    /// attribute, an addition, a past event): no correction recorded.
    TextUnrelated,
}

/// One case: stores in order, in a namespace of their own.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// The category reported.
    pub category: &'static str,
    /// The stores, in order; the expectation is about the last against the first.
    pub steps: &'static [Step],
    /// What must happen.
    pub expect: Expect,
    /// A recall question (used by TextCorrects; written as a natural one for every case).
    pub question: &'static str,
}

pub const CASES: &[Case] = &[
    Case {
        category: "many values",
        steps: &[
            Step::Fact("billing-api", "depends on", "tokio"),
            Step::Fact("billing-api", "depends on", "serde"),
            Step::Fact("billing-api", "depends on", "axum"),
        ],
        expect: Expect::Accumulates,
        question: "What does billing-api depend on?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("Priya", "speaks", "Hindi"),
            Step::Fact("Priya", "speaks", "Portuguese"),
        ],
        expect: Expect::Accumulates,
        question: "Which languages does Priya speak?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("Marcus", "has skill", "Kubernetes"),
            Step::Fact("Marcus", "has skill", "Terraform"),
        ],
        expect: Expect::Accumulates,
        question: "What skills does Marcus have?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("Lena", "is a member of", "platform team"),
            Step::Fact("Lena", "is a member of", "security guild"),
        ],
        expect: Expect::Accumulates,
        question: "Which teams is Lena a member of?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("Tomás", "likes", "rock climbing"),
            Step::Fact("Tomás", "likes", "sourdough baking"),
        ],
        expect: Expect::Accumulates,
        question: "What does Tomás like doing?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("issue #482", "has label", "bug"),
            Step::Fact("issue #482", "has label", "good first issue"),
        ],
        expect: Expect::Accumulates,
        question: "Which labels does issue #482 have?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("helpdesk-bot", "integrates with", "Slack"),
            Step::Fact("helpdesk-bot", "integrates with", "Jira"),
        ],
        expect: Expect::Accumulates,
        question: "Which tools does helpdesk-bot integrate with?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("tidewater-cli", "contributor", "Ana Souza"),
            Step::Fact("tidewater-cli", "contributor", "Kenji Watanabe"),
        ],
        expect: Expect::Accumulates,
        question: "Who contributes to tidewater-cli?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("Grace", "has child", "Oliver"),
            Step::Fact("Grace", "has child", "Maya"),
        ],
        expect: Expect::Accumulates,
        question: "What are the names of Grace's children?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("Dmitri", "works on", "checkout redesign"),
            Step::Fact("Dmitri", "works on", "search indexing"),
        ],
        expect: Expect::Accumulates,
        question: "Which projects is Dmitri working on?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("web-dashboard", "uses", "React"),
            Step::Fact("web-dashboard", "uses", "Tailwind CSS"),
            Step::Fact("web-dashboard", "uses", "TanStack Query"),
        ],
        expect: Expect::Accumulates,
        question: "Which libraries does web-dashboard use?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("image-resizer", "requires", "libvips"),
            Step::Fact("image-resizer", "requires", "ffmpeg"),
        ],
        expect: Expect::Accumulates,
        question: "What does image-resizer require to run?",
    },
    Case {
        category: "many values",
        steps: &[
            Step::Fact("Yusuf", "hobby", "chess"),
            Step::Fact("Yusuf", "hobby", "trail running"),
        ],
        expect: Expect::Accumulates,
        question: "What are Yusuf's hobbies?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("Anneliese", "lives in", "Berlin"),
            Step::Fact("Anneliese", "lives in", "Munich"),
        ],
        expect: Expect::Replaces,
        question: "Where does Anneliese live?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("orders-db", "version", "PostgreSQL 15"),
            Step::Fact("orders-db", "version", "PostgreSQL 16"),
        ],
        expect: Expect::Replaces,
        question: "Which PostgreSQL version does orders-db run?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("auth-service", "port", "3000"),
            Step::Fact("auth-service", "port", "4000"),
        ],
        expect: Expect::Replaces,
        question: "Which port does auth-service listen on?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("analytics-warehouse", "region", "us-east-1"),
            Step::Fact("analytics-warehouse", "region", "eu-west-1"),
        ],
        expect: Expect::Replaces,
        question: "Which AWS region is analytics-warehouse in?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("payments-gateway", "owner", "Alice"),
            Step::Fact("payments-gateway", "owner", "Carol"),
        ],
        expect: Expect::Replaces,
        question: "Who owns payments-gateway?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("Ben", "preferred editor", "vim"),
            Step::Fact("Ben", "preferred editor", "neovim"),
        ],
        expect: Expect::Replaces,
        question: "Which editor does Ben prefer?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("Sofia", "role", "senior engineer"),
            Step::Fact("Sofia", "role", "staff engineer"),
        ],
        expect: Expect::Replaces,
        question: "What is Sofia's role?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("Hiro", "manager", "Rachel Kim"),
            Step::Fact("Hiro", "manager", "David Osei"),
        ],
        expect: Expect::Replaces,
        question: "Who is Hiro's manager?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("Nadia", "works at", "Stripe"),
            Step::Fact("Nadia", "works at", "Datadog"),
        ],
        expect: Expect::Replaces,
        question: "Which company does Nadia work at?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("Omar", "favourite language", "Go"),
            Step::Fact("Omar", "favourite language", "Rust"),
        ],
        expect: Expect::Replaces,
        question: "What is Omar's favourite programming language?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("notification-worker", "host", "worker-03.internal"),
            Step::Fact("notification-worker", "host", "worker-07.internal"),
        ],
        expect: Expect::Replaces,
        question: "Which host does notification-worker run on?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("Chloe", "timezone", "Europe/Paris"),
            Step::Fact("Chloe", "timezone", "America/Toronto"),
        ],
        expect: Expect::Replaces,
        question: "What timezone is Chloe in?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("Jonas", "work email", "jonas@oldcorp.com"),
            Step::Fact("Jonas", "work email", "jonas.berg@newco.io"),
        ],
        expect: Expect::Replaces,
        question: "What is Jonas's work email address?",
    },
    Case {
        category: "one value",
        steps: &[
            Step::Fact("search-api", "current version", "v3.2.0"),
            Step::Fact("search-api", "current version", "v3.3.0"),
        ],
        expect: Expect::Replaces,
        question: "Which version of search-api is currently deployed?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("inventory-db", "runs", "Postgres 16"),
            Step::Fact("inventory-db", "runs", "PostgreSQL 16"),
        ],
        expect: Expect::Duplicate,
        question: "Which database does inventory-db run?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("gateway-proxy", "port", "3000"),
            Step::Fact("gateway-proxy", "port", "port 3000"),
        ],
        expect: Expect::Duplicate,
        question: "Which port does gateway-proxy listen on?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("sdk-python", "version", "v2.1.0"),
            Step::Fact("sdk-python", "version", "2.1.0"),
        ],
        expect: Expect::Duplicate,
        question: "Which version is sdk-python at?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("Elena", "lives in", "New York City"),
            Step::Fact("Elena", "lives in", "NYC"),
        ],
        expect: Expect::Duplicate,
        question: "Where does Elena live?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("ledger-service", "written in", "Rust"),
            Step::Fact("ledger-service", "written in", "rust"),
        ],
        expect: Expect::Duplicate,
        question: "What language is ledger-service written in?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("Kwame", "timezone", "UTC"),
            Step::Fact("Kwame", "timezone", "Coordinated Universal Time"),
        ],
        expect: Expect::Duplicate,
        question: "What timezone does Kwame work in?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("cache-cluster", "memory limit", "16 GB"),
            Step::Fact("cache-cluster", "memory limit", "16GB"),
        ],
        expect: Expect::Duplicate,
        question: "What is the memory limit of cache-cluster?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("Ingrid", "role", "VP of Engineering"),
            Step::Fact("Ingrid", "role", "Vice President of Engineering"),
        ],
        expect: Expect::Duplicate,
        question: "What is Ingrid's role?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("metrics-store", "hosted on", "AWS"),
            Step::Fact("metrics-store", "hosted on", "Amazon Web Services"),
        ],
        expect: Expect::Duplicate,
        question: "Where is metrics-store hosted?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("Rafael", "employer", "Google"),
            Step::Fact("Rafael", "works at", "Google"),
        ],
        expect: Expect::Duplicate,
        question: "Who does Rafael work for?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("deploy-bot", "runs on", "k8s"),
            Step::Fact("deploy-bot", "runs on", "Kubernetes"),
        ],
        expect: Expect::Duplicate,
        question: "What platform does deploy-bot run on?",
    },
    Case {
        category: "same value",
        steps: &[
            Step::Fact("upload-service", "listens on port", "8443"),
            Step::Fact("upload-service", "port", "8443"),
        ],
        expect: Expect::Duplicate,
        question: "Which port does upload-service use?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("billing-worker", "listens on port", "8080"),
            Step::Fact("billing-worker", "port", "8081"),
        ],
        expect: Expect::SameAttribute,
        question: "Which port does billing-worker listen on?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("Sam", "phone", "+1 415 555 0132"),
            Step::Fact("Sam", "phone number", "+1 415 555 0199"),
        ],
        expect: Expect::SameAttribute,
        question: "What is Sam's phone number?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("docs-site", "is hosted on", "Netlify"),
            Step::Fact("docs-site", "hosted on", "Vercel"),
        ],
        expect: Expect::SameAttribute,
        question: "Where is docs-site hosted?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("batch-scheduler", "runs on", "build-host-1"),
            Step::Fact("batch-scheduler", "runs on host", "build-host-2"),
        ],
        expect: Expect::SameAttribute,
        question: "Which host does batch-scheduler run on?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("Mei", "lives in", "Taipei"),
            Step::Fact("Mei", "resides in", "Singapore"),
        ],
        expect: Expect::SameAttribute,
        question: "Where does Mei live?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("Lucas", "home city", "Lisbon"),
            Step::Fact("Lucas", "lives in", "Porto"),
        ],
        expect: Expect::SameAttribute,
        question: "Which city does Lucas live in?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("Aisha", "works at", "Shopify"),
            Step::Fact("Aisha", "employer", "Cloudflare"),
        ],
        expect: Expect::SameAttribute,
        question: "Where does Aisha work?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("Pablo", "email", "pablo@acme.dev"),
            Step::Fact("Pablo", "email address", "pablo.r@acme.dev"),
        ],
        expect: Expect::SameAttribute,
        question: "What is Pablo's email address?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("web-frontend", "owned by", "team Atlas"),
            Step::Fact("Web Frontend", "owner", "team Nova"),
        ],
        expect: Expect::SameAttribute,
        question: "Which team owns the web frontend?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("recommendation-engine", "version", "1.4.2"),
            Step::Fact("recommendation-engine", "current version", "1.5.0"),
        ],
        expect: Expect::SameAttribute,
        question: "Which version of recommendation-engine is running?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("marketing-site", "deployed to", "Cloudflare Pages"),
            Step::Fact("marketing-site", "deployment target", "Netlify"),
        ],
        expect: Expect::SameAttribute,
        question: "Where is marketing-site deployed?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("Fatima", "timezone", "Asia/Dubai"),
            Step::Fact("Fatima", "time zone", "Europe/London"),
        ],
        expect: Expect::SameAttribute,
        question: "What time zone is Fatima in?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("Noah", "manager", "Julia Chen"),
            Step::Fact("Noah", "reports to", "Victor Adeyemi"),
        ],
        expect: Expect::SameAttribute,
        question: "Who is Noah's manager?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("log-shipper", "written in", "Python"),
            Step::Fact("Log Shipper", "language", "Go"),
        ],
        expect: Expect::SameAttribute,
        question: "What language is log-shipper written in?",
    },
    Case {
        category: "other words",
        steps: &[
            Step::Fact("Zara", "job title", "product designer"),
            Step::Fact("Zara", "role", "design lead"),
        ],
        expect: Expect::SameAttribute,
        question: "What is Zara's job title?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("Hannah", "born in", "Vienna"),
            Step::Fact("Hannah", "born on", "1990-04-12"),
        ],
        expect: Expect::OtherAttribute,
        question: "Where was Hannah born?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("PR #1291", "created at", "2024-03-05"),
            Step::Fact("PR #1291", "created by", "Kofi Mensah"),
        ],
        expect: Expect::OtherAttribute,
        question: "When was PR #1291 created?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("Q3 migration project", "start date", "2024-07-01"),
            Step::Fact("Q3 migration project", "end date", "2024-09-30"),
        ],
        expect: Expect::OtherAttribute,
        question: "When does the Q3 migration project start?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("keycloak", "port", "8080"),
            Step::Fact("keycloak", "management port", "9000"),
        ],
        expect: Expect::OtherAttribute,
        question: "Which port does keycloak serve requests on?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("json-parser", "depends on", "utf8-validate"),
            Step::Fact("json-parser", "dependency of", "config-loader"),
        ],
        expect: Expect::OtherAttribute,
        question: "What does json-parser depend on?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("Isabel", "reports to", "Mark Lee"),
            Step::Fact("Isabel", "manages", "Tom Reyes"),
        ],
        expect: Expect::OtherAttribute,
        question: "Who does Isabel report to?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("Diego", "lives in", "Oakland"),
            Step::Fact("Diego", "works in", "San Francisco"),
        ],
        expect: Expect::OtherAttribute,
        question: "Where does Diego live?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("Ruth", "email", "ruth@studio.io"),
            Step::Fact("Ruth", "backup email", "ruth.backup@gmail.com"),
        ],
        expect: Expect::OtherAttribute,
        question: "What is Ruth's email address?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("sessions-db", "max connections", "200"),
            Step::Fact("sessions-db", "min connections", "10"),
        ],
        expect: Expect::OtherAttribute,
        question: "What is the maximum number of connections for sessions-db?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("api-gateway", "request timeout", "30s"),
            Step::Fact("api-gateway", "idle timeout", "120s"),
        ],
        expect: Expect::OtherAttribute,
        question: "What is api-gateway's request timeout?",
    },
    Case {
        category: "other attribute",
        steps: &[
            Step::Fact("user-service", "memory request", "512Mi"),
            Step::Fact("user-service", "memory limit", "1Gi"),
        ],
        expect: Expect::OtherAttribute,
        question: "How much memory does user-service request?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("Maria", "lives in", "Berlin"),
            Step::Text("Maria moved to Munich last week."),
        ],
        expect: Expect::TextCorrects,
        question: "Where does Maria live?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("invoice-api", "port", "8080"),
            Step::Text("invoice-api now listens on port 9090."),
        ],
        expect: Expect::TextCorrects,
        question: "Which port does invoice-api listen on?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("Ethan", "preferred editor", "VS Code"),
            Step::Text("Ethan switched to Zed as his main editor this month."),
        ],
        expect: Expect::TextCorrects,
        question: "What is Ethan's preferred editor?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("Olga", "employer", "Spotify"),
            Step::Text("Olga is no longer at Spotify; she joined Klarna in June."),
        ],
        expect: Expect::TextCorrects,
        question: "Where does Olga work?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("catalog-db", "version", "PostgreSQL 14"),
            Step::Text("catalog-db was upgraded to PostgreSQL 16 over the weekend."),
        ],
        expect: Expect::TextCorrects,
        question: "Which PostgreSQL version does catalog-db run?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("shipping-service", "region", "us-west-2"),
            Step::Text(
                "We migrated shipping-service to eu-central-1 to be closer to our customers.",
            ),
        ],
        expect: Expect::TextCorrects,
        question: "Which region does shipping-service run in?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("Liam", "role", "backend engineer"),
            Step::Text("Liam is now the engineering manager for the payments team."),
        ],
        expect: Expect::TextCorrects,
        question: "What is Liam's role?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("status-page", "hosted on", "Heroku"),
            Step::Text("status-page moved off Heroku and is hosted on Fly.io now."),
        ],
        expect: Expect::TextCorrects,
        question: "Where is status-page hosted?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("Yara", "timezone", "America/New_York"),
            Step::Text("Yara relocated to Sydney, so her timezone changed to Australia/Sydney."),
        ],
        expect: Expect::TextCorrects,
        question: "What timezone is Yara in?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("feature-flags", "owner", "Peter"),
            Step::Text("Ownership of feature-flags changed to Samira after the reorg."),
        ],
        expect: Expect::TextCorrects,
        question: "Who owns feature-flags?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("Ivan", "manager", "Helen Park"),
            Step::Text("Starting Monday, Ivan reports to Carlos Ruiz instead of Helen Park."),
        ],
        expect: Expect::TextCorrects,
        question: "Who is Ivan's manager?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("queue-consumer", "written in", "Python"),
            Step::Text(
                "queue-consumer was rewritten in Rust; the old Python code has been deleted.",
            ),
        ],
        expect: Expect::TextCorrects,
        question: "What language is queue-consumer written in?",
    },
    Case {
        category: "text updates fact",
        steps: &[
            Step::Fact("Beatriz", "email", "bea@oldmail.com"),
            Step::Text("Beatriz changed her email to beatriz@fastmail.com."),
        ],
        expect: Expect::TextCorrects,
        question: "What is Beatriz's email address?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("Jamal", "lives in", "Berlin"),
            Step::Text("Jamal's sister moved to Munich last week."),
        ],
        expect: Expect::TextUnrelated,
        question: "Where does Jamal live?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("Clara", "lives in", "Amsterdam"),
            Step::Text("Clara visited Lisbon for a conference last week."),
        ],
        expect: Expect::TextUnrelated,
        question: "Where does Clara live?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("metrics-api", "port", "8080"),
            Step::Text("metrics-api also exposes Prometheus metrics on port 9100."),
        ],
        expect: Expect::TextUnrelated,
        question: "Which port does metrics-api serve its API on?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("orders-service", "port", "8080"),
            Step::Text("inventory-service now listens on port 9090."),
        ],
        expect: Expect::TextUnrelated,
        question: "Which port does orders-service listen on?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("Henrik", "works at", "Volvo Cars"),
            Step::Text("Before Volvo Cars, Henrik spent four years at Ericsson."),
        ],
        expect: Expect::TextUnrelated,
        question: "Where does Henrik work?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("Amara", "preferred editor", "Emacs"),
            Step::Text("Amara tried VS Code for a day but went back to Emacs."),
        ],
        expect: Expect::TextUnrelated,
        question: "Which editor does Amara prefer?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("search-index", "version", "Elasticsearch 8.11"),
            Step::Text(
                "We tested Elasticsearch 8.13 on a copy of search-index; the upgrade is on hold.",
            ),
        ],
        expect: Expect::TextUnrelated,
        question: "Which Elasticsearch version does search-index run?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("Theo", "role", "tech lead"),
            Step::Text("Theo interviewed a candidate for the staff engineer role today."),
        ],
        expect: Expect::TextUnrelated,
        question: "What is Theo's role?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("reports-db", "region", "eu-west-1"),
            Step::Text(
                "reports-db got a read replica in us-east-1 for analytics; the primary stays put.",
            ),
        ],
        expect: Expect::TextUnrelated,
        question: "Which region is reports-db's primary in?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("Selin", "manager", "Ahmed Khan"),
            Step::Text("Selin's manager Ahmed Khan moved to the Dublin office."),
        ],
        expect: Expect::TextUnrelated,
        question: "Who is Selin's manager?",
    },
    Case {
        category: "text look-alike",
        steps: &[
            Step::Fact("Rosa", "lives in", "Madrid"),
            Step::Text(
                "Rosa is thinking about moving to Valencia next year, but nothing is decided.",
            ),
        ],
        expect: Expect::TextUnrelated,
        question: "Where does Rosa live?",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Each category, the expectation all its cases carry, and its minimum count.
    const MINIMUMS: &[(&str, Expect, usize)] = &[
        ("many values", Expect::Accumulates, 10),
        ("one value", Expect::Replaces, 10),
        ("same value", Expect::Duplicate, 8),
        ("other words", Expect::SameAttribute, 12),
        ("other attribute", Expect::OtherAttribute, 8),
        ("text updates fact", Expect::TextCorrects, 10),
        ("text look-alike", Expect::TextUnrelated, 8),
    ];

    #[test]
    fn categories_have_their_minimums_and_cases_their_shape() {
        assert!(CASES.len() >= 66, "only {} cases", CASES.len());
        for &(category, _, minimum) in MINIMUMS {
            let count = CASES.iter().filter(|c| c.category == category).count();
            assert!(count >= minimum, "{category}: {count} cases, want at least {minimum}");
        }
        for case in CASES {
            let known = MINIMUMS.iter().find(|m| m.0 == case.category);
            let &(_, expect, _) = known.unwrap_or_else(|| panic!("unknown {case:?}"));
            assert_eq!(case.expect, expect, "{case:?}");
            assert!(case.steps.len() >= 2, "{case:?}");
            assert!(!case.question.is_empty(), "{case:?}");
            match case.expect {
                Expect::TextCorrects | Expect::TextUnrelated => {
                    let first = case.steps.first();
                    let last = case.steps.last();
                    assert!(matches!(first, Some(Step::Fact(..))), "{case:?}");
                    assert!(matches!(last, Some(Step::Text(..))), "{case:?}");
                    // A correction names the subject it corrects.
                    if let (Some(Step::Fact(s, ..)), Some(Step::Text(t))) = (first, last)
                        && case.expect == Expect::TextCorrects
                    {
                        assert!(t.contains(s), "{case:?}");
                    }
                }
                _ => {
                    let all_facts = case.steps.iter().all(|s| matches!(s, Step::Fact(..)));
                    assert!(all_facts, "{case:?}");
                }
            }
        }
    }
}
