//! A second development set for the correction judgement: 60 pairs of free-text memories,
//! 40 corrections and 20 look-alikes.
//!
//! Written blind, after the first set's (`correction_cases`) held-out figures showed that the
//! rules tuned on its development half did not generalise; its author read neither the first
//! set nor the judgement's code. It leans on what is hard for a reader that goes by rules:
//!
//! - the subject is often named differently in the two texts (an abbreviation, a synonym, a
//!   pronoun, a team's people for the team, "deps" for "dependencies", "CI" and "the build
//!   pipeline", "prod" and "production", "the db" and "Postgres"), or left out of the newer
//!   text altogether when the old value names it;
//! - the change is worded in many forms and positions ("took over from", "swapped A for B",
//!   "ditched A for B", "no more A", "A is gone", "retired in favour of", "now lives in",
//!   "these days", "as of this week", "starting Monday", "since the reorg", "effective
//!   immediately", "not anymore", "we dropped", ...), with or without the old value, in terse
//!   newer texts and in longer ones that give a reason, after older texts of one sentence or
//!   two;
//! - the look-alikes use the same words without changing the older memory: events alike but
//!   for a detail, another subject changed with the same change word, additions ("also", "as
//!   well", "plus", "alongside", "a second"), elaborations, restatements with "now" or "these
//!   days" that keep the value, another attribute of the same subject changing, a question
//!   about the older memory, and plans or wishes that are not changes.
//!
//! `value` is the kind of detail the older memory holds (and the question asks for);
//! `wording` names how the change is worded for a correction, or the kind of look-alike for a
//! look-alike. `corrects` is true only when a careful reader would say the older memory no
//! longer holds.
//!
//! The set is frozen: cases are not edited, added or dropped to suit the judgement. All of it
//! is development: tuning may look at every case and at what is misjudged. The only held-out
//! part of the correction sets stays the first set's odd half.

use crate::correction_cases::{CorrectionCase, Value};

pub const RENAMED_SUBJECTS: &[CorrectionCase] = &[
    // ---- corrections (40) ----
    // Region (5)
    CorrectionCase {
        older: "The billing service runs in us-east-1.",
        newer: "Billing has moved to eu-west-1 so that EU invoices stay in the EU.",
        question: "which region does billing run in",
        value: Value::Region,
        wording: "has moved to",
        corrects: true,
    },
    CorrectionCase {
        older: "Our production Kubernetes cluster is in europe-west4. The infra team set it up \
                last spring.",
        newer: "Prod cluster region's europe-west1 now.",
        question: "which region is the production cluster in",
        value: Value::Region,
        wording: "terse: X's B now",
        corrects: true,
    },
    CorrectionCase {
        older: "The analytics warehouse lives in ap-southeast-2.",
        newer: "We migrated the data warehouse to ap-southeast-1 over the weekend; queries from \
                the Singapore office were too slow with it sitting in Sydney.",
        question: "where is the analytics warehouse hosted",
        value: Value::Region,
        wording: "migrated to, with a reason",
        corrects: true,
    },
    CorrectionCase {
        older: "Staging is deployed to us-west-2.",
        newer: "As of this week the staging environment is in us-east-2.",
        question: "which region is staging deployed to",
        value: Value::Region,
        wording: "as of this week",
        corrects: true,
    },
    CorrectionCase {
        older: "The bucket for user uploads sits in eu-central-1.",
        newer: "No more eu-central-1 for uploads, it's eu-north-1.",
        question: "which region holds the user uploads bucket",
        value: Value::Region,
        wording: "no more A, it's B",
        corrects: true,
    },
    // Tool (6)
    CorrectionCase {
        older: "We use npm to manage the frontend's dependencies.",
        newer: "Switched the frontend over to pnpm for deps, installs take half the time.",
        question: "which package manager does the frontend use",
        value: Value::Tool,
        wording: "switched over to",
        corrects: true,
    },
    CorrectionCase {
        older: "CI runs on Jenkins.",
        newer: "We ditched Jenkins for GitHub Actions, so the build pipeline is all YAML files \
                in the repo.",
        question: "what runs our CI",
        value: Value::Tool,
        wording: "ditched A for B",
        corrects: true,
    },
    CorrectionCase {
        older: "Error tracking for the web app goes through Sentry.",
        newer: "Sentry was retired in favour of Rollbar at the end of the quarter.",
        question: "what do we use for error tracking",
        value: Value::Tool,
        wording: "A retired in favour of B",
        corrects: true,
    },
    CorrectionCase {
        older: "The public API is written with Flask.",
        newer: "We swapped Flask for FastAPI in the backend last sprint.",
        question: "which framework is the API written in",
        value: Value::Tool,
        wording: "swapped A for B",
        corrects: true,
    },
    CorrectionCase {
        older: "I track my personal tasks in Todoist.",
        newer: "These days my to-do list lives in Things 3.",
        question: "which app do I use for my tasks",
        value: Value::Tool,
        wording: "these days",
        corrects: true,
    },
    CorrectionCase {
        older: "The orders app keeps its data in MySQL. Backups are taken every night.",
        newer: "We now run the orders database on Postgres; the old MySQL server was \
                decommissioned after the cutover.",
        question: "which database does the orders app use",
        value: Value::Tool,
        wording: "we now",
        corrects: true,
    },
    // Person (6)
    CorrectionCase {
        older: "Priya owns the payments service.",
        newer: "Marco took over payments from Priya when she went on parental leave.",
        question: "who owns the payments service",
        value: Value::Person,
        wording: "X took over from Y",
        corrects: true,
    },
    CorrectionCase {
        older: "Code reviews for the mobile app go to Dana.",
        newer: "Mobile PRs are reviewed by Kenji now.",
        question: "who reviews mobile app code",
        value: Value::Person,
        wording: "is done by X now",
        corrects: true,
    },
    CorrectionCase {
        older: "My dentist is Dr. Alvarez. Her clinic is on Elm Street.",
        newer: "Dr. Alvarez retired, so I've moved to Dr. Chen for check-ups.",
        question: "who is my dentist",
        value: Value::Person,
        wording: "moved to, with a reason",
        corrects: true,
    },
    CorrectionCase {
        older: "Sam is our point of contact for the security audit.",
        newer: "Effective immediately, questions about the security audit go to Leila.",
        question: "who is the contact for the security audit",
        value: Value::Person,
        wording: "effective immediately",
        corrects: true,
    },
    CorrectionCase {
        older: "Tomás manages the data platform team. He joined from a fintech in 2021.",
        newer: "Since the reorg, the data platform folks report to Aisha.",
        question: "who manages the data platform team",
        value: Value::Person,
        wording: "since the reorg",
        corrects: true,
    },
    CorrectionCase {
        older: "The release notes are written by Greta.",
        newer: "Greta doesn't write them anymore; Oskar does since she joined the ML project.",
        question: "who writes the release notes",
        value: Value::Person,
        wording: "not anymore (pronoun subject)",
        corrects: true,
    },
    // Day (5)
    CorrectionCase {
        older: "The weekly one-on-one with my manager is on Thursday.",
        newer: "My 1:1s with my manager are on Fridays from now on.",
        question: "what day is my one-on-one with my manager",
        value: Value::Day,
        wording: "from now on",
        corrects: true,
    },
    CorrectionCase {
        older: "Sprint planning happens on Monday mornings.",
        newer: "Starting next week we plan sprints on Tuesday, after the Monday holiday mess.",
        question: "when is sprint planning",
        value: Value::Day,
        wording: "starting next week",
        corrects: true,
    },
    CorrectionCase {
        older: "Trash pickup on our street is Wednesday. Recycling goes out the same morning.",
        newer: "The council changed bin collection to Thursdays.",
        question: "which day is trash collected",
        value: Value::Day,
        wording: "changed to",
        corrects: true,
    },
    CorrectionCase {
        older: "Deploys to production happen on Tuesdays.",
        newer: "We ship to prod on Thursdays now.",
        question: "which day do we deploy to production",
        value: Value::Day,
        wording: "now (end of sentence)",
        corrects: true,
    },
    CorrectionCase {
        older: "Mia's piano lesson is on Saturday.",
        newer: "Mia's piano got rescheduled to Sunday for the rest of the term.",
        question: "what day is Mia's piano lesson",
        value: Value::Day,
        wording: "got rescheduled to",
        corrects: true,
    },
    // Place (6)
    CorrectionCase {
        older: "Alerts for the checkout service go to #checkout-alerts.",
        newer: "Checkout alerts now live in #payments-oncall.",
        question: "which channel gets checkout alerts",
        value: Value::Place,
        wording: "now live in",
        corrects: true,
    },
    CorrectionCase {
        older: "The design team sits in the Barcelona office.",
        newer: "Design relocated to Lisbon in March.",
        question: "which office is the design team in",
        value: Value::Place,
        wording: "relocated to",
        corrects: true,
    },
    CorrectionCase {
        older: "Team announcements are posted in #general.",
        newer: "Going forward, announcements go in #team-news and #general is just for chatter.",
        question: "where are team announcements posted",
        value: Value::Place,
        wording: "going forward",
        corrects: true,
    },
    CorrectionCase {
        older: "Our daily standup is in meeting room Juniper.",
        newer: "Juniper is gone, it's phone booths now; we use Maple for standup.",
        question: "which room is standup in",
        value: Value::Place,
        wording: "A is gone, we use B",
        corrects: true,
    },
    CorrectionCase {
        older: "I work from the Manchester office on Tuesdays and Thursdays.",
        newer: "Manchester closed, so on my office days I go into Leeds now.",
        question: "which office do I work from",
        value: Value::Place,
        wording: "now, with a reason first",
        corrects: true,
    },
    CorrectionCase {
        older: "The company offsite is in Lisbon this year.",
        newer: "The offsite got moved to Porto after the Lisbon venue fell through.",
        question: "where is the company offsite",
        value: Value::Place,
        wording: "got moved to",
        corrects: true,
    },
    // Team (4)
    CorrectionCase {
        older: "The auth service belongs to the Identity team.",
        newer: "Auth is handled by Platform Security now.",
        question: "which team owns the auth service",
        value: Value::Team,
        wording: "is handled by X now",
        corrects: true,
    },
    CorrectionCase {
        older: "The Kafka clusters are maintained by the data infra team.",
        newer: "In the reorg our Kafka clusters were handed off to SRE.",
        question: "which team maintains Kafka",
        value: Value::Team,
        wording: "handed off to",
        corrects: true,
    },
    CorrectionCase {
        older: "I'm on the Growth team. We work on signup and activation.",
        newer: "Moved teams - I'm in Onboarding now.",
        question: "which team am I on",
        value: Value::Team,
        wording: "moved teams",
        corrects: true,
    },
    CorrectionCase {
        older: "Bug triage for the iOS app is done by the mobile team.",
        newer: "iOS bug triage went from the mobile team to QA last month.",
        question: "which team triages iOS bugs",
        value: Value::Team,
        wording: "went from A to B",
        corrects: true,
    },
    // Status (4)
    CorrectionCase {
        older: "The search rewrite is blocked on the new index schema.",
        newer: "Search rewrite's unblocked, the schema landed yesterday.",
        question: "what is the status of the search rewrite",
        value: Value::Status,
        wording: "terse: un-",
        corrects: true,
    },
    CorrectionCase {
        older: "Version 2 of the API is in beta.",
        newer: "The v2 API went GA on Monday.",
        question: "is the v2 API in beta",
        value: Value::Status,
        wording: "went B",
        corrects: true,
    },
    CorrectionCase {
        older: "The dark-mode feature flag is enabled for all users.",
        newer: "We dropped dark mode for now; the flag is off everywhere until the contrast bugs \
                are fixed.",
        question: "is dark mode enabled",
        value: Value::Status,
        wording: "we dropped A",
        corrects: true,
    },
    CorrectionCase {
        older: "The warehouse migration project is on hold.",
        newer: "The warehouse migration is back on, we restarted work this week.",
        question: "is the warehouse migration on hold",
        value: Value::Status,
        wording: "is back on",
        corrects: true,
    },
    // Number (4)
    CorrectionCase {
        older: "The API rate limit is 100 requests per minute per key.",
        newer: "Rate limit got bumped to 250/min per key.",
        question: "what is the API rate limit",
        value: Value::Number,
        wording: "got bumped to",
        corrects: true,
    },
    CorrectionCase {
        older: "The connection pool for the db is capped at 20.",
        newer: "Postgres pool max is 50 now.",
        question: "how big is the database connection pool",
        value: Value::Number,
        wording: "terse: is B now",
        corrects: true,
    },
    CorrectionCase {
        older: "My monthly rent is $1,450.",
        newer: "The landlord raised the rent, I've been paying $1,600 a month since June.",
        question: "how much is my rent",
        value: Value::Number,
        wording: "raised, since June",
        corrects: true,
    },
    CorrectionCase {
        older: "Session tokens expire after 24 hours. Refresh tokens last 30 days.",
        newer: "After the pentest we cut the session token lifetime to 8 hours.",
        question: "when do session tokens expire",
        value: Value::Number,
        wording: "cut to, with a reason first",
        corrects: true,
    },
    // ---- look-alikes (20) ----
    // Events alike but for a detail (2)
    CorrectionCase {
        older: "Nina's farewell lunch is on Friday at Rosa's.",
        newer: "Omar's welcome lunch is on Wednesday at Rosa's.",
        question: "when is Nina's farewell lunch",
        value: Value::Day,
        wording: "event alike but for a detail",
        corrects: false,
    },
    CorrectionCase {
        older: "Incident 4512 was resolved by Farah.",
        newer: "Incident 4519 was resolved by Dev.",
        question: "who resolved incident 4512",
        value: Value::Person,
        wording: "event alike but for a detail",
        corrects: false,
    },
    // Another subject changed with the same change word (3)
    CorrectionCase {
        older: "The billing service moved to eu-west-1 last quarter.",
        newer: "The notifications service moved to eu-west-2 this week.",
        question: "which region is the billing service in",
        value: Value::Region,
        wording: "another subject, same change word",
        corrects: false,
    },
    CorrectionCase {
        older: "We switched the docs site to Docusaurus.",
        newer: "We switched the marketing site to Astro.",
        question: "what is the docs site built with",
        value: Value::Tool,
        wording: "another subject, same change word",
        corrects: false,
    },
    CorrectionCase {
        older: "Ravi took over the mobile release process from Ines.",
        newer: "Ines took over the web release process from Ravi.",
        question: "who runs mobile releases",
        value: Value::Person,
        wording: "another subject, same change word",
        corrects: false,
    },
    // Additions (5)
    CorrectionCase {
        older: "Alerts from the API go to #api-alerts.",
        newer: "API alerts also go to #oncall-pager now.",
        question: "which channel gets API alerts",
        value: Value::Place,
        wording: "addition: also",
        corrects: false,
    },
    CorrectionCase {
        older: "We use Datadog for metrics.",
        newer: "We run Prometheus for metrics as well, for the on-prem cluster.",
        question: "what do we use for metrics",
        value: Value::Tool,
        wording: "addition: as well",
        corrects: false,
    },
    CorrectionCase {
        older: "Yuki reviews the database migrations.",
        newer: "Ben reviews database migrations alongside Yuki now.",
        question: "who reviews database migrations",
        value: Value::Person,
        wording: "addition: alongside",
        corrects: false,
    },
    CorrectionCase {
        older: "The primary database's read replica is in us-east-1.",
        newer: "We added a second read replica in us-west-2 for disaster recovery.",
        question: "where is the read replica",
        value: Value::Region,
        wording: "addition: a second",
        corrects: false,
    },
    CorrectionCase {
        older: "The company has an office in Dublin.",
        newer: "Since May the company has offices in Dublin plus Kraków.",
        question: "where are the company's offices",
        value: Value::Place,
        wording: "addition: plus",
        corrects: false,
    },
    // Elaborations (2)
    CorrectionCase {
        older: "The full backup runs on Sunday.",
        newer: "The full backup runs on Sunday, starting at 01:00, and usually takes about three \
                hours.",
        question: "when does the full backup run",
        value: Value::Day,
        wording: "elaboration",
        corrects: false,
    },
    CorrectionCase {
        older: "The nightly ETL job takes about 40 minutes.",
        newer: "The nightly ETL takes roughly 40 minutes, most of it spent loading the events \
                table.",
        question: "how long does the nightly ETL take",
        value: Value::Number,
        wording: "elaboration",
        corrects: false,
    },
    // Restatements with "now" or "these days" that keep the value (3)
    CorrectionCase {
        older: "The frontend is built with Vite.",
        newer: "These days the whole frontend build is Vite.",
        question: "what builds the frontend",
        value: Value::Tool,
        wording: "restatement: these days",
        corrects: false,
    },
    CorrectionCase {
        older: "The legacy reporting service is deprecated.",
        newer: "The legacy reporting service is now deprecated and shouldn't get new features.",
        question: "is the legacy reporting service deprecated",
        value: Value::Status,
        wording: "restatement: now",
        corrects: false,
    },
    CorrectionCase {
        older: "The Checkout team owns the cart API.",
        newer: "Since the reorg the cart API is still owned by Checkout.",
        question: "which team owns the cart API",
        value: Value::Team,
        wording: "restatement: since the reorg, still",
        corrects: false,
    },
    // Another attribute of the same subject changes (2)
    CorrectionCase {
        older: "The payments service runs in eu-west-1.",
        newer: "The payments service now runs 6 replicas instead of 4.",
        question: "which region does the payments service run in",
        value: Value::Region,
        wording: "another attribute changes",
        corrects: false,
    },
    CorrectionCase {
        older: "The mobile team's retro is on Thursday.",
        newer: "The mobile team's retro moved to the big conference room.",
        question: "what day is the mobile team's retro",
        value: Value::Day,
        wording: "another attribute changes",
        corrects: false,
    },
    // A question about the older memory (1)
    CorrectionCase {
        older: "Billing runs in eu-west-1.",
        newer: "Is billing still in eu-west-1, or did it move with the rest?",
        question: "which region is billing in",
        value: Value::Region,
        wording: "question",
        corrects: false,
    },
    // Plans and wishes (2)
    CorrectionCase {
        older: "The monorepo uses yarn.",
        newer: "Thinking about switching the monorepo to pnpm.",
        question: "which package manager does the monorepo use",
        value: Value::Tool,
        wording: "plan or wish",
        corrects: false,
    },
    CorrectionCase {
        older: "The max upload size is 25 MB.",
        newer: "We should probably raise the upload limit to 100 MB at some point.",
        question: "what is the max upload size",
        value: Value::Number,
        wording: "plan or wish",
        corrects: false,
    },
];

#[cfg(test)]
mod tests {
    use super::RENAMED_SUBJECTS;
    use crate::correction_cases::Value;

    #[test]
    fn has_forty_corrections_and_twenty_lookalikes() {
        let corrections = RENAMED_SUBJECTS.iter().filter(|case| case.corrects).count();
        assert_eq!((corrections, RENAMED_SUBJECTS.len() - corrections), (40, 20));
        for case in RENAMED_SUBJECTS {
            assert!(
                !case.older.is_empty()
                    && !case.newer.is_empty()
                    && !case.question.is_empty()
                    && !case.wording.is_empty()
                    && case.older != case.newer,
                "{case:?}"
            );
        }
    }

    #[test]
    fn every_kind_of_value_appears_at_least_four_times() {
        let count = |kind: fn(&Value) -> bool| {
            RENAMED_SUBJECTS.iter().filter(|case| kind(&case.value)).count()
        };
        let counts = [
            count(|value| matches!(value, Value::Region)),
            count(|value| matches!(value, Value::Tool)),
            count(|value| matches!(value, Value::Person)),
            count(|value| matches!(value, Value::Day)),
            count(|value| matches!(value, Value::Place)),
            count(|value| matches!(value, Value::Team)),
            count(|value| matches!(value, Value::Status)),
            count(|value| matches!(value, Value::Number)),
        ];
        assert!(counts.iter().all(|&count| count >= 4), "{counts:?}");
        assert!(counts[7] <= 6, "{counts:?}");
    }
}
