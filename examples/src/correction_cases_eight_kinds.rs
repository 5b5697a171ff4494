//! A third set for the correction judgement: 77 pairs of free-text memories, 40 corrections
//! and 37 look-alikes. Held out for one round of rules (measured before and after it), then
//! development: its misjudged pairs were read, and `correction_cases_fresh_domains` was written blind
//! to be held out in its place.
//!
//! Written blind: its author read neither the judgement's code nor the earlier sets, and wrote
//! every pair from the description of the task alone. Each pair is an older note and a newer
//! note about the same world. In a correction the newer note says a detail of the older one
//! changed, so the older no longer holds; in a look-alike the newer note only looks like a
//! change and the older still holds.
//!
//! The corrections cover eight kinds of value (region, tool, person, day, place, team, status
//! and, fewer, number) and many wordings of change: "now", "moved from A to B", "migrated to",
//! "switched to", "replaced A with B", "no longer", "instead", "is B, not A", "renamed to",
//! "handed over to", "from now on", "going forward", "as of", "starting", "turns out",
//! "update:", "correction:", "ditched A for B", "took over from", "retired in favour of",
//! "we dropped A", "A is gone", and changes told with no change word at all. They vary in
//! position, length, whether the old value is repeated and how the subject is named. The
//! look-alikes cover events alike but for a detail, the same change word on another subject,
//! additions that keep the old value, restatements (some with "now" or "these days"), a
//! different attribute of the same subject changing, questions, plans, proposals and wishes,
//! negations that do not undo the older note, and past narratives. Subjects come from coding
//! agents' project notes, home labs, family logistics and a small shop.
//!
//! The set is frozen: cases are not edited, added or dropped to suit the judgement.

use crate::correction_cases::{CorrectionCase, Value};

pub const EIGHT_KINDS: &[CorrectionCase] = &[
    // ---- corrections (40) ----
    // Region (5)
    CorrectionCase {
        older: "The photo-resize workers run in eu-west-1.",
        newer: "Photo-resize workers moved from eu-west-1 to eu-central-1 last week, so they sit \
                next to the new bucket.",
        question: "which region do the photo-resize workers run in",
        value: Value::Region,
        wording: "moved from A to B",
        corrects: true,
    },
    CorrectionCase {
        older: "The Kubernetes cluster for the recipe app runs in GCP us-central1.",
        newer: "Recipe app's k8s cluster is in europe-west4 now.",
        question: "which region is the recipe app cluster in",
        value: Value::Region,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "Nightly analytics exports land in an Azure storage account in westeurope.",
        newer: "Update: the analytics export storage account was recreated in northeurope and the \
                westeurope one is deleted.",
        question: "which azure region holds the analytics exports",
        value: Value::Region,
        wording: "update:",
        corrects: true,
    },
    CorrectionCase {
        older: "The staging database for the tutoring platform is in ap-southeast-2.",
        newer: "Correction: the tutoring platform's staging db is in ap-southeast-1, not \
                ap-southeast-2 - I mixed up Singapore and Sydney.",
        question: "which region is the tutoring staging database in",
        value: Value::Region,
        wording: "correction: is B, not A",
        corrects: true,
    },
    CorrectionCase {
        older: "The offsite copy of the home NAS backups goes to an S3 bucket in us-east-2.",
        newer: "Going forward the NAS offsite copies go to a bucket in ca-central-1 instead; \
                storage there is cheaper for us.",
        question: "which region does the nas offsite backup go to",
        value: Value::Region,
        wording: "going forward, instead",
        corrects: true,
    },
    // Tool (6)
    CorrectionCase {
        older: "The bakery's invoice generator uses wkhtmltopdf to make the PDFs.",
        newer: "We ditched wkhtmltopdf for WeasyPrint in the bakery invoice generator because it \
                finally gets the fonts right.",
        question: "what makes the bakery invoice pdfs",
        value: Value::Tool,
        wording: "ditched A for B",
        corrects: true,
    },
    CorrectionCase {
        older: "Crash reports from the mobile app go to Crashlytics.",
        newer: "Crash reporting for the mobile app switched to Sentry.",
        question: "where do mobile app crash reports go",
        value: Value::Tool,
        wording: "switched to",
        corrects: true,
    },
    CorrectionCase {
        older: "The monorepo is built with Bazel.",
        newer: "After months of the remote cache breaking, we retired Bazel in favour of Pants \
                for the monorepo.",
        question: "what build system does the monorepo use",
        value: Value::Tool,
        wording: "retired in favour of",
        corrects: true,
    },
    CorrectionCase {
        older: "Feature flags in the checkout flow are managed with LaunchDarkly.",
        newer: "Replaced LaunchDarkly with a self-hosted Unleash for the checkout flags to cut \
                costs.",
        question: "what manages the checkout feature flags",
        value: Value::Tool,
        wording: "replaced A with B",
        corrects: true,
    },
    CorrectionCase {
        older: "The family calendar is kept in Google Calendar.",
        newer: "As of March we keep the family calendar in Apple Calendar; nobody looks at the \
                Google one anymore.",
        question: "where is the family calendar kept",
        value: Value::Tool,
        wording: "as of",
        corrects: true,
    },
    CorrectionCase {
        older: "The photography portfolio site is hosted on Netlify.",
        newer: "Netlify is gone - the portfolio is now served by Caddy on a small Hetzner box.",
        question: "where is the portfolio site hosted",
        value: Value::Tool,
        wording: "A is gone",
        corrects: true,
    },
    // Person (5)
    CorrectionCase {
        older: "Priya owns the webhook retry service.",
        newer: "Tomasz took over the webhook retry service from Priya.",
        question: "who owns the webhook retry service",
        value: Value::Person,
        wording: "took over from",
        corrects: true,
    },
    CorrectionCase {
        older: "Code reviews for the firmware repo go to Hannah.",
        newer: "Firmware repo reviews are handed over to Diego; Hannah moved to the data team.",
        question: "who reviews the firmware repo",
        value: Value::Person,
        wording: "handed over to",
        corrects: true,
    },
    CorrectionCase {
        older: "Our contact for repairs in the flat is Mr. Okafor.",
        newer: "Repairs contact is Mrs. Lindqvist now.",
        question: "who do we contact for repairs in the flat",
        value: Value::Person,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "The release manager for version 3 of the desktop client is Sam.",
        newer: "Turns out the release manager for desktop client v3 is Jordan; Sam only handled \
                the v2 releases.",
        question: "who is the release manager for the desktop client v3",
        value: Value::Person,
        wording: "turns out",
        corrects: true,
    },
    CorrectionCase {
        older: "Uncle Ravi picks up Grandma's prescriptions from the pharmacy.",
        newer: "From now on Aunt Mei collects Grandma's prescriptions, since Ravi's work hours \
                changed.",
        question: "who picks up grandma's prescriptions",
        value: Value::Person,
        wording: "from now on",
        corrects: true,
    },
    // Day (5)
    CorrectionCase {
        older: "Bin collection on our street is on Tuesday.",
        newer: "Bin day changed to Thursday after the council rerouted the trucks.",
        question: "which day is bin collection",
        value: Value::Day,
        wording: "changed to",
        corrects: true,
    },
    CorrectionCase {
        older: "Sprint planning for the search team happens on Monday.",
        newer: "Starting next sprint, search team planning moves to Wednesday.",
        question: "when is the search team's sprint planning",
        value: Value::Day,
        wording: "starting <when>",
        corrects: true,
    },
    CorrectionCase {
        older: "Maintenance windows for the CRM database are on Saturday night.",
        newer: "CRM db maintenance is Sunday night, not Saturday.",
        question: "when is the crm database maintenance window",
        value: Value::Day,
        wording: "is B, not A",
        corrects: true,
    },
    CorrectionCase {
        older: "The kids' swimming lessons are on Friday afternoons.",
        newer: "Swimming lessons are Wednesdays now.",
        question: "which day are the swimming lessons",
        value: Value::Day,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "Renovate opens its dependency update PRs every Monday.",
        newer: "Edited the Renovate schedule: dependency PRs land on Thursday morning so they \
                don't collide with the Monday release.",
        question: "which day does renovate open dependency prs",
        value: Value::Day,
        wording: "edited, no change word for the value",
        corrects: true,
    },
    // Place (5)
    CorrectionCase {
        older: "Build agents for the Android app run on the self-hosted runner in the Leeds \
                office.",
        newer: "Android CI moved off the Leeds office runner onto GitHub-hosted macOS runners.",
        question: "where does the android ci run",
        value: Value::Place,
        wording: "moved off A onto B",
        corrects: true,
    },
    CorrectionCase {
        older: "Alerts for the ingestion pipeline post to #data-alerts.",
        newer: "Heads-up: #data-alerts was renamed to #ingest-alerts, so that's where the \
                ingestion pipeline alerts show up.",
        question: "which channel do ingestion pipeline alerts post to",
        value: Value::Place,
        wording: "renamed to",
        corrects: true,
    },
    CorrectionCase {
        older: "The spare router and network cables are kept in the hallway cupboard.",
        newer: "Moved the spare router and cables to the shelf in the garage.",
        question: "where are the spare router and cables kept",
        value: Value::Place,
        wording: "moved to",
        corrects: true,
    },
    CorrectionCase {
        older: "The shop's packaging boxes are stored at the Hackney unit.",
        newer: "We dropped the Hackney unit; packaging boxes live in the Walthamstow storage unit \
                now.",
        question: "where are the packaging boxes stored",
        value: Value::Place,
        wording: "we dropped A",
        corrects: true,
    },
    CorrectionCase {
        older: "Our primary servers are colocated in the Frankfurt data centre.",
        newer: "We migrated the primary servers to the Amsterdam data centre over the weekend and \
                handed back the Frankfurt racks.",
        question: "which data centre hosts the primary servers",
        value: Value::Place,
        wording: "migrated to",
        corrects: true,
    },
    // Team (5)
    CorrectionCase {
        older: "The login service belongs to the Identity team.",
        newer: "In the reorg the login service was transferred to the Platform Security team.",
        question: "which team owns the login service",
        value: Value::Team,
        wording: "transferred to",
        corrects: true,
    },
    CorrectionCase {
        older: "Bug reports about the onboarding wizard are triaged by the Growth team.",
        newer: "Onboarding wizard bugs are triaged by Activation now, not Growth.",
        question: "which team triages onboarding wizard bugs",
        value: Value::Team,
        wording: "is B, not A",
        corrects: true,
    },
    CorrectionCase {
        older: "The deploy-summary Slack bot is maintained by the DevEx team.",
        newer: "Ownership of the deploy-summary bot moved to the SRE team this quarter.",
        question: "which team maintains the deploy-summary bot",
        value: Value::Team,
        wording: "moved to",
        corrects: true,
    },
    CorrectionCase {
        older: "The cake stall at this summer's school fair is run by the Year 3 parents.",
        newer: "Change of plan for the summer fair: Year 5 parents run the cake stall, and Year 3 \
                take the tombola.",
        question: "who runs the cake stall at the summer fair",
        value: Value::Team,
        wording: "change of plan",
        corrects: true,
    },
    CorrectionCase {
        older: "Incidents in the search API are handled by team Atlas.",
        newer: "Atlas got split up; search API incidents go to team Borealis as of this sprint.",
        question: "which team handles search api incidents",
        value: Value::Team,
        wording: "as of",
        corrects: true,
    },
    // Status (5)
    CorrectionCase {
        older: "Dark mode in the admin console is behind a flag and disabled for all customers.",
        newer: "Dark mode is enabled for all admin console customers now.",
        question: "is dark mode enabled in the admin console",
        value: Value::Status,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "The ticket about the flaky checkout tests is blocked on the vendor's sandbox.",
        newer: "The flaky checkout tests ticket is unblocked - the vendor fixed their sandbox and \
                it's back in progress.",
        question: "what is the state of the flaky checkout tests ticket",
        value: Value::Status,
        wording: "no change word (unblocked)",
        corrects: true,
    },
    CorrectionCase {
        older: "The legacy /v1/reports endpoint is supported.",
        newer: "/v1/reports is deprecated as of today; clients should call /v2/reports.",
        question: "is the v1 reports endpoint supported",
        value: Value::Status,
        wording: "as of",
        corrects: true,
    },
    CorrectionCase {
        older: "The dishwasher warranty claim is still open.",
        newer: "Dishwasher warranty claim resolved - they replaced the pump.",
        question: "is the dishwasher warranty claim open",
        value: Value::Status,
        wording: "no change word (resolved)",
        corrects: true,
    },
    CorrectionCase {
        older: "Two-factor auth is optional for contractor accounts.",
        newer: "Two-factor auth is no longer optional for contractors; it has been enforced since \
                Monday.",
        question: "is two-factor auth optional for contractors",
        value: Value::Status,
        wording: "no longer",
        corrects: true,
    },
    // Number (4)
    CorrectionCase {
        older: "The rate limit on the public geocoding endpoint is 100 requests per minute.",
        newer: "Raised the public geocoding rate limit to 300/min after the partner complained.",
        question: "what is the geocoding endpoint rate limit",
        value: Value::Number,
        wording: "raised to",
        corrects: true,
    },
    CorrectionCase {
        older: "The Postgres instance for the wiki listens on port 5433.",
        newer: "Wiki's Postgres was moved back to the default port 5432.",
        question: "which port does the wiki postgres listen on",
        value: Value::Number,
        wording: "moved back to",
        corrects: true,
    },
    CorrectionCase {
        older: "The shop's free-shipping threshold is 40 pounds.",
        newer: "The courier put their prices up, so free shipping starts at 50 pounds.",
        question: "what is the free shipping threshold",
        value: Value::Number,
        wording: "no change word",
        corrects: true,
    },
    CorrectionCase {
        older: "The home lab cluster has three nodes.",
        newer: "The home lab cluster is down to two nodes; the third one's PSU died and I'm not \
                replacing it.",
        question: "how many nodes does the home lab cluster have",
        value: Value::Number,
        wording: "down to",
        corrects: true,
    },
    // ---- look-alikes (37) ----
    // events alike but for a detail (4)
    CorrectionCase {
        older: "Deployed build 1187 of the kiosk app to the shop tablets on Monday.",
        newer: "Deployed build 1192 of the kiosk app to the shop tablets on Thursday.",
        question: "which kiosk build went to the shop tablets on monday",
        value: Value::Number,
        wording: "events alike",
        corrects: false,
    },
    CorrectionCase {
        older: "Had my one-to-one with Aisha on Monday; we talked about the hiring plan.",
        newer: "Had my one-to-one with Ben on Tuesday; mostly about his promotion case.",
        question: "when was the one-to-one with aisha",
        value: Value::Person,
        wording: "events alike",
        corrects: false,
    },
    CorrectionCase {
        older: "Incident: checkout latency spike in eu-west-1, caused by a bad cache config.",
        newer: "Incident: login errors in us-east-1, caused by an expired certificate.",
        question: "what caused the checkout latency spike in eu-west-1",
        value: Value::Region,
        wording: "events alike (two incidents)",
        corrects: false,
    },
    CorrectionCase {
        older: "Took the car to the garage in Didsbury for its MOT.",
        newer: "Took the van to the garage in Stockport for a new clutch.",
        question: "where did the car have its mot",
        value: Value::Place,
        wording: "events alike",
        corrects: false,
    },
    // same change word, different subject (5)
    CorrectionCase {
        older: "Backups of the home NAS run on Sunday night.",
        newer: "Moved the log-rotation cron job to Friday.",
        question: "which day do the nas backups run",
        value: Value::Day,
        wording: "same word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "The marketing site is hosted in us-east-1.",
        newer: "The status page moved to eu-west-1 now.",
        question: "which region hosts the marketing site",
        value: Value::Region,
        wording: "same word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "Maya owns the mobile onboarding flow.",
        newer: "Kofi took over the desktop onboarding flow from Maya.",
        question: "who owns the mobile onboarding flow",
        value: Value::Person,
        wording: "same word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "The design team keeps its files in Figma.",
        newer: "Engineering switched from Confluence to Notion for docs.",
        question: "where does the design team keep its files",
        value: Value::Tool,
        wording: "same word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "The checkout service belongs to the Payments team.",
        newer: "The loyalty points service moved to the Retention team.",
        question: "which team owns the checkout service",
        value: Value::Team,
        wording: "same word, other subject",
        corrects: false,
    },
    // additions that keep the old value (5)
    CorrectionCase {
        older: "CI runs on GitHub Actions.",
        newer: "We also run the nightly fuzzing jobs on Buildkite now, alongside GitHub Actions.",
        question: "what does ci run on",
        value: Value::Tool,
        wording: "addition (also, alongside)",
        corrects: false,
    },
    CorrectionCase {
        older: "The public API is deployed in eu-west-1.",
        newer: "Added a second region for the public API: us-east-1, as a warm standby.",
        question: "which region is the public api deployed in",
        value: Value::Region,
        wording: "addition (a second)",
        corrects: false,
    },
    CorrectionCase {
        older: "Jonas is on call for the database this week.",
        newer: "Elif is on call for the database this week as well, shadowing Jonas.",
        question: "who is on call for the database this week",
        value: Value::Person,
        wording: "addition (as well)",
        corrects: false,
    },
    CorrectionCase {
        older: "Our groceries are delivered by Ocado on Saturday.",
        newer: "Plus a small top-up delivery from the corner shop on Wednesday now.",
        question: "which day does the ocado delivery come",
        value: Value::Day,
        wording: "addition (plus)",
        corrects: false,
    },
    CorrectionCase {
        older: "Our builds run on the self-hosted runner in the Bristol office.",
        newer: "A second self-hosted runner in the Glasgow office is online too, for overflow \
                jobs.",
        question: "where do our builds run",
        value: Value::Place,
        wording: "addition (a second, too)",
        corrects: false,
    },
    // elaborations and restatements of the same value (5)
    CorrectionCase {
        older: "We build the Android app with Gradle.",
        newer: "Still on Gradle for Android; builds are much faster now with the configuration \
                cache.",
        question: "what builds the android app",
        value: Value::Tool,
        wording: "restatement with now",
        corrects: false,
    },
    CorrectionCase {
        older: "The support inbox is handled by the Customer Care team.",
        newer: "These days Customer Care works the support inbox in two shifts, so replies go out \
                within an hour.",
        question: "which team handles the support inbox",
        value: Value::Team,
        wording: "restatement with these days",
        corrects: false,
    },
    CorrectionCase {
        older: "The feature freeze for the release is on Thursday.",
        newer: "Reminder: feature freeze is Thursday, so get your PRs reviewed by Wednesday \
                evening.",
        question: "which day is the feature freeze",
        value: Value::Day,
        wording: "restatement",
        corrects: false,
    },
    CorrectionCase {
        older: "New account sign-ups are paused.",
        newer: "New account sign-ups remain paused while the fraud review continues.",
        question: "are new sign-ups paused",
        value: Value::Status,
        wording: "restatement",
        corrects: false,
    },
    CorrectionCase {
        older: "Sessions in the Redis cache have a TTL of 30 minutes.",
        newer: "Session TTL in Redis is still 30 minutes; we now refresh it on every request.",
        question: "what is the session ttl",
        value: Value::Number,
        wording: "restatement with now",
        corrects: false,
    },
    // a different attribute of the same subject (5)
    CorrectionCase {
        older: "The image-thumbnailer service runs in europe-west1.",
        newer: "The image-thumbnailer service now belongs to the Media team, and Ola is its \
                owner.",
        question: "which region does the image thumbnailer run in",
        value: Value::Region,
        wording: "other attribute (owner)",
        corrects: false,
    },
    CorrectionCase {
        older: "The team offsite is in Lisbon.",
        newer: "The team offsite moved from June to September.",
        question: "where is the team offsite",
        value: Value::Place,
        wording: "other attribute (date)",
        corrects: false,
    },
    CorrectionCase {
        older: "The payroll export job runs on Friday.",
        newer: "The payroll export job now writes CSV files instead of Excel.",
        question: "which day does the payroll export run",
        value: Value::Day,
        wording: "other attribute (format)",
        corrects: false,
    },
    CorrectionCase {
        older: "The newsletter is sent with Mailchimp.",
        newer: "The newsletter switched to a fortnightly schedule instead of weekly.",
        question: "what sends the newsletter",
        value: Value::Tool,
        wording: "other attribute (schedule)",
        corrects: false,
    },
    CorrectionCase {
        older: "Offline mode in the mobile app is enabled for all users.",
        newer: "Offline mode in the mobile app was rewritten by the Sync team and now stores its \
                data in SQLite.",
        question: "is offline mode enabled in the mobile app",
        value: Value::Status,
        wording: "other attribute (implementation)",
        corrects: false,
    },
    // questions, plans, proposals and wishes (6)
    CorrectionCase {
        older: "Infrastructure for the side project is provisioned with CloudFormation.",
        newer: "We might move the side project to Terraform next quarter.",
        question: "what provisions the side project infrastructure",
        value: Value::Tool,
        wording: "plan (might)",
        corrects: false,
    },
    CorrectionCase {
        older: "The front-end uses npm for its packages.",
        newer: "I'd like to switch the front-end to pnpm at some point.",
        question: "what package manager does the front-end use",
        value: Value::Tool,
        wording: "wish",
        corrects: false,
    },
    CorrectionCase {
        older: "Zainab is the product owner for the reporting module.",
        newer: "Is Zainab still the product owner for reporting, or did Felix take it over?",
        question: "who is the product owner for reporting",
        value: Value::Person,
        wording: "question",
        corrects: false,
    },
    CorrectionCase {
        older: "Piano lessons are on Tuesday.",
        newer: "Proposal: move piano lessons to Saturday mornings once the school term ends?",
        question: "which day are piano lessons",
        value: Value::Day,
        wording: "proposal",
        corrects: false,
    },
    CorrectionCase {
        older: "The logging stack runs in us-west-2.",
        newer: "There's a draft RFC to move the logging stack to us-east-2; nothing is decided \
                yet.",
        question: "which region does the logging stack run in",
        value: Value::Region,
        wording: "plan (draft, undecided)",
        corrects: false,
    },
    CorrectionCase {
        older: "The CI pipelines are maintained by the DevOps team.",
        newer: "Should the Platform team take over the CI pipelines from DevOps? Worth discussing \
                at the retro.",
        question: "which team maintains the ci pipelines",
        value: Value::Team,
        wording: "question / proposal",
        corrects: false,
    },
    // negations that do not undo the older one (4)
    CorrectionCase {
        older: "The order API runs in us-east-1.",
        newer: "The order API isn't on the list of affected services in today's us-east-1 outage.",
        question: "which region does the order api run in",
        value: Value::Region,
        wording: "negation",
        corrects: false,
    },
    CorrectionCase {
        older: "Nightly reports are enabled for the warehouse dashboard.",
        newer: "Nightly reports didn't go out last night because the SMTP relay was down; the \
                dashboard settings are unchanged.",
        question: "are nightly reports enabled for the warehouse dashboard",
        value: Value::Status,
        wording: "negation",
        corrects: false,
    },
    CorrectionCase {
        older: "Elena leads the QA team.",
        newer: "Elena isn't leading the bug bash this Friday; Kwame is running it.",
        question: "who leads the qa team",
        value: Value::Person,
        wording: "negation",
        corrects: false,
    },
    CorrectionCase {
        older: "Team Falcon owns the recommendations model.",
        newer: "Yesterday's recommendations outage was not Team Falcon's doing; an upstream feed \
                sent bad data.",
        question: "which team owns the recommendations model",
        value: Value::Team,
        wording: "negation",
        corrects: false,
    },
    // past narratives (3)
    CorrectionCase {
        older: "The storefront service has been deployed on Kubernetes since 2021.",
        newer: "Before Kubernetes we deployed the storefront with Capistrano, and before that we \
                copied files over FTP.",
        question: "how is the storefront deployed",
        value: Value::Tool,
        wording: "past narrative",
        corrects: false,
    },
    CorrectionCase {
        older: "Our team stand-ups are held in the Oak room.",
        newer: "Back in 2019 stand-ups were in the Maple room, and during the 2020 refit we did \
                them in the kitchen, before settling in the Oak room.",
        question: "where are the stand-ups held",
        value: Value::Place,
        wording: "past narrative",
        corrects: false,
    },
    CorrectionCase {
        older: "Rosa is the treasurer of the allotment society.",
        newer: "Rosa took over as treasurer from Geoff in 2022, after Geoff had done it for ten \
                years.",
        question: "who is the allotment society treasurer",
        value: Value::Person,
        wording: "past narrative",
        corrects: false,
    },
];
