//! The correction evaluation's cases: pairs of free-text memories, an older one and a newer
//! one, and whether the newer corrects the older (a detail of it changed, so the newer must rank
//! first and the older be kept as history) or only looks like it does.
//!
//! A false correction hides a memory that is still true, so the look-alikes matter as much as
//! the corrections. About 52 cases are corrections: the value that changed is a name (a region,
//! a tool, library or vendor, a person, a weekday spelled as a word, a city, office or channel,
//! a team, a status word) or, less often, a number, announced in many wordings ("now", "moved
//! from", "migrated to", "switched to", "replaced", "changed:", "no longer", "instead of", "is
//! X, not Y", "renamed to", "reassigned to", "from now on", "going forward", "turns out",
//! "update:", "correction:", and restatements with a change verb such as raised, lowered,
//! rescheduled, postponed, transferred or handed over). The rest are look-alikes, marked in
//! the table by a comment: events alike but for a detail, two subjects that each changed with
//! the same change word, additions that keep the old value, elaborations, restatements of the
//! same value, a change of a different attribute of the same subject, and past events narrated
//! one after another. Several look-alikes use change words ("moved", "switched", "now", "new").
//!
//! The table was written blind, before any rule was tuned and without reading the code that
//! detects corrections, and is frozen: change it only to fix a case a careful reader would mark
//! differently, never to make a score go up. A case is marked a correction only when a careful
//! reader would say the older memory no longer holds.
//!
//! Split: the cases come in twins, case `2k` and case `2k + 1` testing the same kind of thing
//! (the same kind of value and wording, or the same look-alike category) with different
//! content. The even case of each twin is for development, the odd one is held out (see
//! [`held_out`]): tune only on the even cases and report the odd ones separately.

/// What kind of value changes (or, for a look-alike, differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// A cloud region: eu-west-1, us-central1, westeurope.
    Region,
    /// A tool, library, build system, service or vendor.
    Tool,
    /// A person.
    Person,
    /// A weekday, spelled as a word.
    Day,
    /// A city, office, data centre, runner or chat channel.
    Place,
    /// A team.
    Team,
    /// A status word: enabled, blocked, resolved, archived, ...
    Status,
    /// A number: a limit, a count, a version, a port.
    Number,
}

/// One pair: an older memory, a newer one, a question whose answer is the newer one's value (for
/// a correction) or that both answer (for a look-alike), and whether the newer corrects the
/// older.
#[derive(Debug, Clone, Copy)]
pub struct CorrectionCase {
    /// The memory stored first.
    pub older: &'static str,
    /// The memory stored later.
    pub newer: &'static str,
    /// What a person or agent would ask later.
    pub question: &'static str,
    /// What kind of value changed (or differs).
    pub value: Value,
    /// The wording of change used ("now", "moved from", "migrated to", ..., or "none").
    pub wording: &'static str,
    /// Whether the newer memory corrects the older one.
    pub corrects: bool,
}

pub const CASES: &[CorrectionCase] = &[
    // ---- Corrections ----
    CorrectionCase {
        older: "The billing service is deployed in eu-west-1.",
        newer: "Billing now runs in eu-central-1; Frankfurt worked out cheaper for our traffic.",
        question: "Which region does billing run in?",
        value: Value::Region,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "Our Postgres primary lives in us-east-1.",
        newer: "After the failover drill the Postgres primary is now in us-east-2, and we kept it.",
        question: "Which AWS region is the Postgres primary in?",
        value: Value::Region,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "Staging is hosted in ap-southeast-1.",
        newer: "Staging moved from ap-southeast-1 to ap-southeast-2 since most of QA is in Sydney.",
        question: "Where is staging hosted?",
        value: Value::Region,
        wording: "moved from",
        corrects: true,
    },
    CorrectionCase {
        older: "The ML training jobs run on spot instances in us-west-2.",
        newer: "We moved the training jobs from us-west-2 to us-east-1, where our GPU quota is.",
        question: "Which region do the ML training jobs run in?",
        value: Value::Region,
        wording: "moved from",
        corrects: true,
    },
    CorrectionCase {
        older: "The analytics warehouse sits in GCP's us-central1.",
        newer: "Analytics warehouse migrated to europe-west4 last quarter for data residency.",
        question: "Which GCP region hosts the analytics warehouse?",
        value: Value::Region,
        wording: "migrated to",
        corrects: true,
    },
    CorrectionCase {
        older: "The origin bucket for the image CDN is in eu-west-2.",
        newer: "We migrated the CDN origin bucket to eu-north-1 over the weekend.",
        question: "Which region is the image CDN's origin bucket in?",
        value: Value::Region,
        wording: "migrated to",
        corrects: true,
    },
    CorrectionCase {
        older: "The customer VPN endpoint is in eu-west-3.",
        newer: "The VPN endpoint for customers is in eu-south-1, not eu-west-3.",
        question: "Which region is the customer VPN endpoint in?",
        value: Value::Region,
        wording: "is X, not Y",
        corrects: true,
    },
    CorrectionCase {
        older: "Our Azure resources are all in westeurope.",
        newer: "Checked the portal: our resources are in northeurope, not westeurope.",
        question: "Which Azure region are our resources in?",
        value: Value::Region,
        wording: "is X, not Y",
        corrects: true,
    },
    CorrectionCase {
        older: "The web app's dependencies are managed with npm.",
        newer: "We switched the web app to pnpm to speed up installs.",
        question: "Which package manager does the web app use?",
        value: Value::Tool,
        wording: "switched to",
        corrects: true,
    },
    CorrectionCase {
        older: "CI builds run on Jenkins.",
        newer: "CI has switched to GitHub Actions; the old Jenkins box gets decommissioned Friday.",
        question: "What runs our CI builds?",
        value: Value::Tool,
        wording: "switched to",
        corrects: true,
    },
    CorrectionCase {
        older: "The backend services are built with maven.",
        newer: "Replaced maven with gradle across the backend services, builds are twice as fast.",
        question: "Which build tool do the backend services use?",
        value: Value::Tool,
        wording: "replaced",
        corrects: true,
    },
    CorrectionCase {
        older: "Error tracking for all three apps goes through Rollbar.",
        newer: "We replaced Rollbar with Sentry for error tracking.",
        question: "Which vendor do we use for error tracking?",
        value: Value::Tool,
        wording: "replaced",
        corrects: true,
    },
    CorrectionCase {
        older: "The Rust services read their YAML config with serde_yaml.",
        newer: "Config is parsed with serde_yml instead of serde_yaml, which is unmaintained.",
        question: "Which crate parses the services' config files?",
        value: Value::Tool,
        wording: "instead of",
        corrects: true,
    },
    CorrectionCase {
        older: "For local Kubernetes clusters we use minikube.",
        newer: "Use kind instead of minikube for local clusters, it starts much faster.",
        question: "What do we use for local Kubernetes clusters?",
        value: Value::Tool,
        wording: "instead of",
        corrects: true,
    },
    CorrectionCase {
        older: "Database migrations are written with Flyway.",
        newer: "Going forward, database migrations are written with sqlx migrate.",
        question: "Which tool do we write database migrations with?",
        value: Value::Tool,
        wording: "going forward",
        corrects: true,
    },
    CorrectionCase {
        older: "Python dependencies are pinned with pip-tools.",
        newer: "Going forward we pin Python deps with uv; the requirements.in files will go away.",
        question: "What pins our Python dependencies?",
        value: Value::Tool,
        wording: "going forward",
        corrects: true,
    },
    CorrectionCase {
        older: "Priya is the on-call lead for the payments service this quarter.",
        newer: "Payments on-call lead was reassigned to Marcus for the rest of the quarter.",
        question: "Who is the on-call lead for payments?",
        value: Value::Person,
        wording: "reassigned to",
        corrects: true,
    },
    CorrectionCase {
        older: "The flaky-login bug, AUTH-311, is assigned to Tom.",
        newer: "AUTH-311 has been reassigned to Keiko while Tom is on leave.",
        question: "Who is working on AUTH-311?",
        value: Value::Person,
        wording: "reassigned to",
        corrects: true,
    },
    CorrectionCase {
        older: "Lena runs the weekly release.",
        newer: "Lena handed the weekly release over to Omar when she joined the infra team.",
        question: "Who runs the weekly release?",
        value: Value::Person,
        wording: "handed over",
        corrects: true,
    },
    CorrectionCase {
        older: "My point of contact at the design agency is Jorge.",
        newer: "Jorge has handed our account over to Ana at the agency.",
        question: "Who is my contact at the design agency?",
        value: Value::Person,
        wording: "handed over",
        corrects: true,
    },
    CorrectionCase {
        older: "Dmitri is the security reviewer for the SSO project.",
        newer: "Correction: Fatima is doing the security review for SSO.",
        question: "Who reviews security for the SSO project?",
        value: Value::Person,
        wording: "correction",
        corrects: true,
    },
    CorrectionCase {
        older: "My GP is Dr. Okafor.",
        newer: "Correction: my GP is Dr. Lindqvist. Dr. Okafor was the locum I saw once.",
        question: "Who is my GP?",
        value: Value::Person,
        wording: "correction",
        corrects: true,
    },
    CorrectionCase {
        older: "The platform team's sprint planning is on Monday mornings.",
        newer: "Sprint planning has been rescheduled to Tuesday mornings because of the all-hands.",
        question: "What day is sprint planning?",
        value: Value::Day,
        wording: "rescheduled",
        corrects: true,
    },
    CorrectionCase {
        older: "My piano lesson is every Wednesday at 6pm.",
        newer: "Rescheduled piano lessons to Thursdays, same time.",
        question: "Which day is my piano lesson?",
        value: Value::Day,
        wording: "rescheduled",
        corrects: true,
    },
    CorrectionCase {
        older: "The database upgrade window is this Saturday night.",
        newer: "The database upgrade got postponed to Sunday night; the vendor needs another day.",
        question: "When is the database upgrade window?",
        value: Value::Day,
        wording: "postponed",
        corrects: true,
    },
    CorrectionCase {
        older: "The quarterly planning offsite starts on Thursday.",
        newer: "Offsite postponed until Friday because of the train strike.",
        question: "Which day does the planning offsite start?",
        value: Value::Day,
        wording: "postponed",
        corrects: true,
    },
    CorrectionCase {
        older: "Recycling goes out on Tuesday night.",
        newer: "From now on the recycling goes out on Thursday night, per the council's letter.",
        question: "Which night does the recycling go out?",
        value: Value::Day,
        wording: "from now on",
        corrects: true,
    },
    CorrectionCase {
        older: "The weekly deploy freeze starts on Friday.",
        newer: "From now on, the deploy freeze begins on Thursday afternoon.",
        question: "On which day does the weekly deploy freeze start?",
        value: Value::Day,
        wording: "from now on",
        corrects: true,
    },
    CorrectionCase {
        older: "Sam lives in Lisbon.",
        newer: "Sam moved from Lisbon to Porto in the spring.",
        question: "Which city does Sam live in?",
        value: Value::Place,
        wording: "moved from",
        corrects: true,
    },
    CorrectionCase {
        older: "Build failure alerts are posted in #ci-alerts.",
        newer: "Build alerts moved from #ci-alerts to #eng-builds to cut the noise.",
        question: "Which Slack channel do build alerts go to?",
        value: Value::Place,
        wording: "moved from",
        corrects: true,
    },
    CorrectionCase {
        older: "The team offsite is in Amsterdam.",
        newer: "Turns out the offsite is in Rotterdam; Amsterdam was only the first proposal.",
        question: "Which city is the team offsite in?",
        value: Value::Place,
        wording: "turns out",
        corrects: true,
    },
    CorrectionCase {
        older: "The conference next month is in Vienna.",
        newer: "Turns out the conference is in Graz. I misread the venue page.",
        question: "Which city is next month's conference in?",
        value: Value::Place,
        wording: "turns out",
        corrects: true,
    },
    CorrectionCase {
        older: "Incident updates are posted in #status.",
        newer: "Update: incident updates go to #incidents, and #status has been archived.",
        question: "Which channel are incident updates posted in?",
        value: Value::Place,
        wording: "update",
        corrects: true,
    },
    CorrectionCase {
        older: "The design team works out of the Manchester office.",
        newer: "Update: design has relocated to the Bristol office.",
        question: "Which office is the design team in?",
        value: Value::Place,
        wording: "update",
        corrects: true,
    },
    CorrectionCase {
        older: "The search service is owned by the Discovery team.",
        newer: "The Discovery team has been renamed to Search & Ranking.",
        question: "Which team owns the search service?",
        value: Value::Team,
        wording: "renamed to",
        corrects: true,
    },
    CorrectionCase {
        older: "Build tooling belongs to the DevEx team.",
        newer: "At the reorg DevEx was renamed to Developer Platform.",
        question: "What is the team that owns build tooling called?",
        value: Value::Team,
        wording: "renamed to",
        corrects: true,
    },
    CorrectionCase {
        older: "The notifications service is maintained by the Growth team.",
        newer: "Ownership of the notifications service was transferred to the Messaging team.",
        question: "Which team maintains the notifications service?",
        value: Value::Team,
        wording: "transferred",
        corrects: true,
    },
    CorrectionCase {
        older: "Ravi works on the Data Platform team.",
        newer: "Ravi transferred to Security in March.",
        question: "Which team is Ravi on?",
        value: Value::Team,
        wording: "transferred",
        corrects: true,
    },
    CorrectionCase {
        older: "Alerts for the billing queue page the Payments team.",
        newer: "Changed: billing-queue alerts are routed to Core Infra.",
        question: "Which team gets paged for the billing queue?",
        value: Value::Team,
        wording: "changed",
        corrects: true,
    },
    CorrectionCase {
        older: "Code reviews for the mobile app are done by the iOS guild.",
        newer: "The reviewer group for the mobile app changed to the Mobile Platform team.",
        question: "Which team reviews the mobile app's code?",
        value: Value::Team,
        wording: "changed",
        corrects: true,
    },
    CorrectionCase {
        older: "The v1 REST API is deprecated but still supported.",
        newer: "The v1 REST API is no longer supported; it was shut off on the 1st.",
        question: "What is the status of the v1 REST API?",
        value: Value::Status,
        wording: "no longer",
        corrects: true,
    },
    CorrectionCase {
        older: "The legacy-reports repo is actively maintained.",
        newer: "legacy-reports is no longer maintained and has been archived read-only.",
        question: "Is the legacy-reports repo still maintained?",
        value: Value::Status,
        wording: "no longer",
        corrects: true,
    },
    CorrectionCase {
        older: "The Kafka migration is blocked on the security review.",
        newer: "Kafka migration is now unblocked and in progress.",
        question: "What's the status of the Kafka migration?",
        value: Value::Status,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "The new-checkout feature flag is disabled in production.",
        newer: "new-checkout is now enabled for all production users.",
        question: "Is the new-checkout flag on in production?",
        value: Value::Status,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "Ticket OPS-88 is resolved.",
        newer: "Turns out OPS-88 isn't fixed: it reopened after the restart and is still open.",
        question: "Is OPS-88 resolved?",
        value: Value::Status,
        wording: "turns out",
        corrects: true,
    },
    CorrectionCase {
        older: "My passport renewal is still pending.",
        newer: "Turns out the passport renewal was approved last week; the new one is in the post.",
        question: "What's the status of my passport renewal?",
        value: Value::Status,
        wording: "turns out",
        corrects: true,
    },
    CorrectionCase {
        older: "The upload size limit is 10 MB.",
        newer: "Raised the upload size limit to 25 MB for the video team.",
        question: "What is the upload size limit?",
        value: Value::Number,
        wording: "raised",
        corrects: true,
    },
    CorrectionCase {
        older: "The orders consumer runs with 4 replicas.",
        newer: "We raised the orders consumer to 12 replicas ahead of Black Friday.",
        question: "How many replicas does the orders consumer run?",
        value: Value::Number,
        wording: "raised",
        corrects: true,
    },
    CorrectionCase {
        older: "Log retention in Loki is 90 days.",
        newer: "Loki retention was lowered to 30 days to cut storage costs.",
        question: "How long are logs kept in Loki?",
        value: Value::Number,
        wording: "lowered",
        corrects: true,
    },
    CorrectionCase {
        older: "The session idle timeout is 60 minutes.",
        newer: "Security lowered the idle session timeout to 15 minutes.",
        question: "What is the session idle timeout?",
        value: Value::Number,
        wording: "lowered",
        corrects: true,
    },
    CorrectionCase {
        older: "The staging database runs Postgres 14.",
        newer: "Correction: staging is on Postgres 16. The 14 was prod's old version.",
        question: "Which Postgres version does staging run?",
        value: Value::Number,
        wording: "correction",
        corrects: true,
    },
    CorrectionCase {
        older: "The metrics exporter listens on port 9090.",
        newer: "Correction: the metrics exporter listens on 9464; Prometheus itself is on 9090.",
        question: "Which port does the metrics exporter listen on?",
        value: Value::Number,
        wording: "correction",
        corrects: true,
    },
    // ---- Look-alikes ----
    // Look-alike: events alike but for a detail.
    CorrectionCase {
        older: "Deployed build 41 to staging.",
        newer: "Deployed build 42 to staging.",
        question: "Which builds were deployed to staging?",
        value: Value::Number,
        wording: "none",
        corrects: false,
    },
    CorrectionCase {
        older: "The nightly job failed on runner-3.",
        newer: "Nightly job failed again, this time on runner-5.",
        question: "Which runners has the nightly job failed on?",
        value: Value::Place,
        wording: "none",
        corrects: false,
    },
    // Look-alike: events alike but for a detail.
    CorrectionCase {
        older: "Met Alice for lunch.",
        newer: "Met Bob for lunch near the office.",
        question: "Who did I have lunch with?",
        value: Value::Person,
        wording: "none",
        corrects: false,
    },
    CorrectionCase {
        older: "Interviewed a candidate for the SRE role with Priya.",
        newer: "Interviewed an SRE candidate together with Jonas.",
        question: "Who did I interview SRE candidates with?",
        value: Value::Person,
        wording: "none",
        corrects: false,
    },
    // Look-alike: events alike but for a detail.
    CorrectionCase {
        older: "Spun up a new test cluster in us-east-2 for load testing.",
        newer: "Spun up a new load-test cluster in ap-south-1.",
        question: "Where did we spin up load-test clusters?",
        value: Value::Region,
        wording: "new",
        corrects: false,
    },
    CorrectionCase {
        older: "Called the plumber on Monday about the leak under the sink.",
        newer: "Called the plumber on Thursday about the leak under the sink.",
        question: "When did I call the plumber?",
        value: Value::Day,
        wording: "none",
        corrects: false,
    },
    // Look-alike: two subjects, each changed with the same change word.
    CorrectionCase {
        older: "We switched the logger to tracing.",
        newer: "We switched the HTTP client to reqwest.",
        question: "Which libraries did we switch to?",
        value: Value::Tool,
        wording: "switched to",
        corrects: false,
    },
    CorrectionCase {
        older: "Alice moved to Berlin.",
        newer: "Bob moved to Munich.",
        question: "Where did Alice and Bob move to?",
        value: Value::Place,
        wording: "moved",
        corrects: false,
    },
    // Look-alike: two subjects, each changed with the same change word.
    CorrectionCase {
        older: "The auth service migrated to eu-central-1 last week.",
        newer: "The notification service has migrated to us-west-2.",
        question: "Which regions did our services migrate to?",
        value: Value::Region,
        wording: "migrated to",
        corrects: false,
    },
    CorrectionCase {
        older: "The frontend team now uses Vitest for unit tests.",
        newer: "The backend team now runs its tests with cargo nextest.",
        question: "What do the teams use to run tests?",
        value: Value::Tool,
        wording: "now",
        corrects: false,
    },
    // Look-alike: two subjects, each changed with the same change word.
    CorrectionCase {
        older: "The API rate limit was raised to 200 requests per second.",
        newer: "The webhook retry limit was raised to 8 attempts.",
        question: "Which limits were raised?",
        value: Value::Number,
        wording: "raised",
        corrects: false,
    },
    CorrectionCase {
        older: "Kenji was reassigned to the billing migration.",
        newer: "Leah was reassigned to the search rewrite.",
        question: "Who was reassigned, and to what?",
        value: Value::Person,
        wording: "reassigned to",
        corrects: false,
    },
    // Look-alike: an addition that keeps the old value.
    CorrectionCase {
        older: "We deploy to eu-west-1.",
        newer: "We also deploy to us-east-1 now.",
        question: "Which regions do we deploy to?",
        value: Value::Region,
        wording: "now",
        corrects: false,
    },
    CorrectionCase {
        older: "Incident announcements are posted in #ops.",
        newer: "Incident announcements are now cross-posted to #eng-all as well.",
        question: "Where are incident announcements posted?",
        value: Value::Place,
        wording: "now",
        corrects: false,
    },
    // Look-alike: an addition that keeps the old value.
    CorrectionCase {
        older: "Hugo reviews all Terraform changes.",
        newer: "Carla is a new second reviewer for Terraform changes, alongside Hugo.",
        question: "Who reviews Terraform changes?",
        value: Value::Person,
        wording: "new",
        corrects: false,
    },
    CorrectionCase {
        older: "Platform office hours are on Tuesdays.",
        newer: "Platform office hours now run on Thursdays too.",
        question: "Which days are platform office hours?",
        value: Value::Day,
        wording: "now",
        corrects: false,
    },
    // Look-alike: an addition that keeps the old value.
    CorrectionCase {
        older: "Nightly backups go to S3.",
        newer: "Nightly backups are now also copied to Backblaze B2 as an off-site second copy.",
        question: "Where do the nightly backups go?",
        value: Value::Tool,
        wording: "now",
        corrects: false,
    },
    CorrectionCase {
        older: "Sara is my emergency contact.",
        newer: "Added my brother Tomás as a second emergency contact.",
        question: "Who are my emergency contacts?",
        value: Value::Person,
        wording: "none",
        corrects: false,
    },
    // Look-alike: an elaboration that adds detail without changing anything.
    CorrectionCase {
        older: "The search API runs in eu-west-1.",
        newer: "The search API runs in eu-west-1 across three availability zones, with its \
                primary database in eu-west-1a.",
        question: "Which region does the search API run in?",
        value: Value::Region,
        wording: "none",
        corrects: false,
    },
    CorrectionCase {
        older: "The monorepo is built with Bazel.",
        newer: "Bazel builds the monorepo with remote caching on BuildBuddy, which roughly \
                halved CI times.",
        question: "What builds the monorepo?",
        value: Value::Tool,
        wording: "none",
        corrects: false,
    },
    // Look-alike: an elaboration that adds detail without changing anything.
    CorrectionCase {
        older: "Dana owns the release process.",
        newer: "Dana owns releases end to end: she cuts the branch, writes the notes and pushes \
                the tags.",
        question: "Who owns the release process?",
        value: Value::Person,
        wording: "none",
        corrects: false,
    },
    CorrectionCase {
        older: "The sprint retro is on Fridays.",
        newer: "Retros are Friday at 3pm in the big meeting room and usually last 45 minutes.",
        question: "When is the sprint retro?",
        value: Value::Day,
        wording: "none",
        corrects: false,
    },
    // Look-alike: the same value restated in other words.
    CorrectionCase {
        older: "Logs ship to Datadog.",
        newer: "Datadog is where all our service logs end up.",
        question: "Where do our logs go?",
        value: Value::Tool,
        wording: "none",
        corrects: false,
    },
    CorrectionCase {
        older: "Search moved to OpenSearch in May.",
        newer: "Search has been running on OpenSearch ever since the move in May.",
        question: "What does search run on?",
        value: Value::Tool,
        wording: "moved",
        corrects: false,
    },
    // Look-alike: the same value restated in other words.
    CorrectionCase {
        older: "The staging cluster is in Frankfurt.",
        newer: "Staging lives in our Frankfurt data centre.",
        question: "Where is the staging cluster?",
        value: Value::Place,
        wording: "none",
        corrects: false,
    },
    CorrectionCase {
        older: "The on-call rota is owned by the SRE team.",
        newer: "SRE are the ones who maintain the on-call rotation.",
        question: "Which team owns the on-call rota?",
        value: Value::Team,
        wording: "none",
        corrects: false,
    },
    // Look-alike: a change of a different attribute of the same subject.
    CorrectionCase {
        older: "The API gateway's timeout is 30 seconds.",
        newer: "The API gateway now runs on Graviton instances.",
        question: "What do we know about the API gateway?",
        value: Value::Tool,
        wording: "now",
        corrects: false,
    },
    CorrectionCase {
        older: "Carol leads the data team.",
        newer: "Carol is now based in the Dublin office.",
        question: "What do I know about Carol?",
        value: Value::Place,
        wording: "now",
        corrects: false,
    },
    // Look-alike: a change of a different attribute of the same subject.
    CorrectionCase {
        older: "The orders database runs Postgres 15.",
        newer: "The orders database now has point-in-time recovery switched on.",
        question: "How is the orders database set up?",
        value: Value::Status,
        wording: "now",
        corrects: false,
    },
    CorrectionCase {
        older: "Mobile releases go out on Thursdays.",
        newer: "Mobile releases have a new approver: Grace signs off on each one.",
        question: "How do mobile releases work?",
        value: Value::Person,
        wording: "new",
        corrects: false,
    },
    // Look-alike: past events narrated one after another.
    CorrectionCase {
        older: "On Monday we moved the docs to Notion.",
        newer: "On Tuesday we moved the roadmap to Linear.",
        question: "What did we move this week, and where?",
        value: Value::Tool,
        wording: "moved",
        corrects: false,
    },
    CorrectionCase {
        older: "In sprint 12 we upgraded the API to axum 0.7.",
        newer: "Sprint 13: upgraded the worker to tokio 1.38.",
        question: "What did we upgrade in recent sprints?",
        value: Value::Tool,
        wording: "none",
        corrects: false,
    },
    // Look-alike: past events narrated one after another.
    CorrectionCase {
        older: "Last week I flew to Lisbon for the offsite.",
        newer: "This week I flew to Berlin for KubeCon.",
        question: "Where have I travelled recently?",
        value: Value::Place,
        wording: "none",
        corrects: false,
    },
    CorrectionCase {
        older: "Wednesday: rotated the TLS certificates on the edge proxies.",
        newer: "Thursday: rotated the database passwords and updated the vault entries.",
        question: "What did we rotate this week?",
        value: Value::Day,
        wording: "none",
        corrects: false,
    },
];

/// Whether case `index` is held out (every second case): the odd case of each twin. Tune on the
/// even cases only and report the held-out ones separately.
pub fn held_out(index: usize) -> bool {
    index % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::{CASES, Value, held_out};

    const VALUES: [Value; 8] = [
        Value::Region,
        Value::Tool,
        Value::Person,
        Value::Day,
        Value::Place,
        Value::Team,
        Value::Status,
        Value::Number,
    ];

    const WORDINGS: [&str; 22] = [
        "now",
        "moved from",
        "migrated to",
        "switched to",
        "replaced",
        "changed",
        "no longer",
        "instead of",
        "is X, not Y",
        "renamed to",
        "reassigned to",
        "from now on",
        "going forward",
        "turns out",
        "update",
        "correction",
        "raised",
        "lowered",
        "rescheduled",
        "postponed",
        "transferred",
        "handed over",
    ];

    #[test]
    fn the_set_has_its_shape() {
        let corrections: Vec<_> = CASES.iter().filter(|case| case.corrects).collect();
        let look_alikes = CASES.len() - corrections.len();
        assert!(CASES.len() >= 84, "only {} cases", CASES.len());
        assert!(corrections.len() >= 50, "only {} corrections", corrections.len());
        assert!(look_alikes >= 30, "only {look_alikes} look-alikes");
        for value in VALUES {
            let count = corrections.iter().filter(|case| case.value == value).count();
            assert!(count >= 4, "{value:?}: {count} corrections");
        }
        let numbers = corrections.iter().filter(|case| case.value == Value::Number).count();
        assert!(numbers <= 8, "{numbers} number corrections");
        for wording in WORDINGS {
            let count = corrections.iter().filter(|case| case.wording == wording).count();
            assert!(count >= 2, "{wording}: {count} corrections");
        }
        for case in corrections {
            assert!(WORDINGS.contains(&case.wording), "{case:?}");
        }
        for case in CASES {
            assert!(!case.older.is_empty() && !case.newer.is_empty(), "{case:?}");
            assert_ne!(case.older, case.newer, "{case:?}");
            assert!(case.question.ends_with('?'), "{case:?}");
        }
    }

    #[test]
    fn twins_agree_and_half_is_held_out() {
        assert_eq!(CASES.len() % 2, 0);
        for pair in CASES.chunks(2) {
            assert_eq!(pair[0].corrects, pair[1].corrects, "{pair:?}");
            if pair[0].corrects {
                assert_eq!(pair[0].value, pair[1].value, "{pair:?}");
                assert_eq!(pair[0].wording, pair[1].wording, "{pair:?}");
            }
        }
        let held = (0..CASES.len()).filter(|&index| held_out(index)).count();
        assert_eq!(held * 2, CASES.len());
    }
}
