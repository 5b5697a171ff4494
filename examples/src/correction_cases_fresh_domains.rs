//! A fourth set for the correction judgement: 94 pairs of free-text memories, 42 corrections
//! and 52 look-alikes. Held out for one round of rules (the third), then development: its
//! misjudged pairs were read, and `correction_cases_unlike_domains` was written blind to be held out in
//! its place.
//!
//! Written blind: its author read neither the judgement's code nor the earlier sets. It covers
//! the eight kinds of value (region, tool, person, day, place, team, status, number) across
//! fresh domains - a ticketing system (Helpdesk Hive), a weather app (Drizzle), a game server
//! (the Lantern realm), a genomics pipeline, a bakery's ordering site, a home and garden, a
//! rowing club, a school, a food bank and a volunteer group - with many wordings of change
//! (moved, migrated, switched, replaced, ditched, swapped, handed over, took over, retired in
//! favour of, renamed, "now", "these days", "as of", "update:", "correction:", and changes
//! with no change word at all). The look-alikes span events alike but for a detail, the same
//! change word applied to another subject, additions that keep the old value, restatements,
//! a different attribute of the same subject, questions and plans, negations, past
//! narratives, temporary exceptions, and reverted changes or someone else's setup.
//!
//! The set is frozen: cases are not edited, added or dropped to suit the judgement.

use crate::correction_cases::{CorrectionCase, Value};

pub const FRESH_DOMAINS: &[CorrectionCase] = &[
    // ---- corrections (42) ----
    // Region (5)
    CorrectionCase {
        older: "The ticket-routing worker for Helpdesk Hive runs in eu-west-1.",
        newer: "Helpdesk Hive's ticket-routing worker was moved from eu-west-1 to eu-central-1 \
            last night.",
        question: "which region does the ticket-routing worker run in",
        value: Value::Region,
        wording: "moved from A to B",
        corrects: true,
    },
    CorrectionCase {
        older: "Forecast tiles for the Drizzle weather app are rendered in us-central1.",
        newer: "Update: the Drizzle tile renderer runs in europe-west4 now, and we shut down \
            the old pool.",
        question: "where are drizzle forecast tiles rendered",
        value: Value::Region,
        wording: "update:",
        corrects: true,
    },
    CorrectionCase {
        older: "The variant-calling jobs of the genome pipeline run in the westeurope region.",
        newer: "Correction: variant calling runs in northeurope, not westeurope.",
        question: "which azure region runs variant calling",
        value: Value::Region,
        wording: "correction:",
        corrects: true,
    },
    CorrectionCase {
        older: "The shard servers for the Lantern realm are hosted in ap-southeast-2.",
        newer: "Lantern shards migrated to ap-northeast-1 to be closer to the players in Japan; \
            latency dropped by half.",
        question: "where are the lantern realm shards hosted",
        value: Value::Region,
        wording: "migrated to",
        corrects: true,
    },
    CorrectionCase {
        older: "The bakery's order-confirmation mailer lives in us-east-2.",
        newer: "Swapped us-east-2 for ca-central-1 for the order-confirmation mailer, because \
            of the Canadian data-residency rules.",
        question: "which region is the bakery order-confirmation mailer in",
        value: Value::Region,
        wording: "swapped A for B",
        corrects: true,
    },
    // Tool (6)
    CorrectionCase {
        older: "Helpdesk Hive sends its SLA reminder emails through Mailgun.",
        newer: "We ditched Mailgun for Postmark for the SLA reminders after the deliverability \
            problems in May.",
        question: "which email provider sends the sla reminders",
        value: Value::Tool,
        wording: "ditched A for B",
        corrects: true,
    },
    CorrectionCase {
        older: "The genome pipeline's workflows are orchestrated with Snakemake.",
        newer: "We dropped Snakemake; the genomics workflows are orchestrated with Nextflow \
            these days.",
        question: "what orchestrates the genome pipeline workflows",
        value: Value::Tool,
        wording: "we dropped A",
        corrects: true,
    },
    CorrectionCase {
        older: "The Drizzle app's radar images are compressed with pngquant.",
        newer: "Radar image compression: replaced pngquant with oxipng.",
        question: "what compresses the radar images",
        value: Value::Tool,
        wording: "replaced A with B",
        corrects: true,
    },
    CorrectionCase {
        older: "The game server's matchmaking queue uses RabbitMQ.",
        newer: "Matchmaking no longer uses RabbitMQ; the queue is on NATS.",
        question: "what message queue does matchmaking use",
        value: Value::Tool,
        wording: "no longer",
        corrects: true,
    },
    CorrectionCase {
        older: "The bakery's ordering site takes card payments through Square.",
        newer: "From now on card payments on the ordering site go through Stripe instead of \
            Square.",
        question: "which payment provider does the bakery site use",
        value: Value::Tool,
        wording: "from now on",
        corrects: true,
    },
    CorrectionCase {
        older: "I track my vegetable garden's planting dates in a Notion page.",
        newer: "The Notion garden log is retired in favour of an Obsidian vault on my laptop.",
        question: "where do i track garden planting dates",
        value: Value::Tool,
        wording: "retired in favour of",
        corrects: true,
    },
    // Person (6)
    CorrectionCase {
        older: "Priya Raman owns the Helpdesk Hive escalation queue.",
        newer: "Tomasz took over the HH escalation queue from Priya.",
        question: "who owns the escalation queue",
        value: Value::Person,
        wording: "took over from",
        corrects: true,
    },
    CorrectionCase {
        older: "My daughter Lena's piano teacher is Mrs. Okafor.",
        newer: "Mrs. Okafor retired, so Lena's piano lessons are with Mr. Haddad now.",
        question: "who teaches lena piano",
        value: Value::Person,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "The rowing club's junior squad is coached by Dave Whitlock.",
        newer: "Coaching of the juniors was handed over to Sinead Murphy at the AGM.",
        question: "who coaches the junior rowing squad",
        value: Value::Person,
        wording: "handed over to",
        corrects: true,
    },
    CorrectionCase {
        older: "Dr. Feld is my GP at the Elm Street practice.",
        newer: "Turns out Dr. Feld left the Elm Street practice last month; my GP there is \
            Dr. Castellanos.",
        question: "who is my gp",
        value: Value::Person,
        wording: "turns out",
        corrects: true,
    },
    CorrectionCase {
        older: "Code reviews for the variant-calling module go to Hiroshi.",
        newer: "Going forward, send variant-calling reviews to Amara; Hiroshi moved to the \
            imaging project.",
        question: "who reviews variant-calling code",
        value: Value::Person,
        wording: "going forward",
        corrects: true,
    },
    CorrectionCase {
        older: "The food bank's Saturday shift lead is Gwen.",
        newer: "Saturday shift lead at the food bank is Marcus, not Gwen.",
        question: "who leads the saturday food bank shift",
        value: Value::Person,
        wording: "is B, not A",
        corrects: true,
    },
    // Day (5)
    CorrectionCase {
        older: "The robotics club meets on Wednesdays after school.",
        newer: "Starting next week the robotics club meets on Thursdays.",
        question: "what day does the robotics club meet",
        value: Value::Day,
        wording: "starting <when>",
        corrects: true,
    },
    CorrectionCase {
        older: "The Drizzle forecast-model retraining runs every Sunday.",
        newer: "Changed: model retraining moved to Tuesday nights so it no longer clashes with \
            the weekend backups.",
        question: "which day does forecast model retraining run",
        value: Value::Day,
        wording: "changed:",
        corrects: true,
    },
    CorrectionCase {
        older: "Bin collection on our street is on Monday.",
        newer: "Bins on our street get collected on Fridays these days.",
        question: "what day are the bins collected",
        value: Value::Day,
        wording: "these days",
        corrects: true,
    },
    CorrectionCase {
        older: "Helpdesk Hive's release train leaves on Thursday.",
        newer: "Release train is Tuesday now.",
        question: "what day does the helpdesk hive release train leave",
        value: Value::Day,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "The choir rehearses on Tuesday evenings in the church hall.",
        newer: "Choir rehearsals switched to Monday evenings from September.",
        question: "when does the choir rehearse",
        value: Value::Day,
        wording: "switched to",
        corrects: true,
    },
    // Place (6)
    CorrectionCase {
        older: "The game server's nightly load tests run on the self-hosted runner in the \
            Leeds office.",
        newer: "Nightly load tests moved to the GitHub-hosted large runners; the Leeds box \
            has been decommissioned.",
        question: "where do the nightly load tests run",
        value: Value::Place,
        wording: "moved to",
        corrects: true,
    },
    CorrectionCase {
        older: "Incidents for the genome pipeline are discussed in #genomics-ops.",
        newer: "We renamed #genomics-ops to #pipeline-incidents.",
        question: "which channel are pipeline incidents discussed in",
        value: Value::Place,
        wording: "renamed to",
        corrects: true,
    },
    CorrectionCase {
        older: "The bakery buys its flour from Millbrook Mill.",
        newer: "Millbrook Mill closed in the spring, so nowadays the bakery gets its flour \
            from Harlow Grain.",
        question: "where does the bakery buy its flour",
        value: Value::Place,
        wording: "nowadays",
        corrects: true,
    },
    CorrectionCase {
        older: "The volunteer group's litter picks start at the Riverside car park.",
        newer: "Litter picks start at the library steps instead of the Riverside car park.",
        question: "where do the litter picks start",
        value: Value::Place,
        wording: "instead of",
        corrects: true,
    },
    CorrectionCase {
        older: "Helpdesk Hive's primary database sits in the Equinix AM3 data centre.",
        newer: "The HH primary DB was relocated to our own rack in Rotterdam over the weekend.",
        question: "which data centre hosts the helpdesk hive primary database",
        value: Value::Place,
        wording: "relocated to",
        corrects: true,
    },
    CorrectionCase {
        older: "I get my bike serviced at Spoke & Chain on Hill Road.",
        newer: "Spoke & Chain is gone, so the bike goes to Velo Fix on Canal Street for \
            services.",
        question: "where do i get my bike serviced",
        value: Value::Place,
        wording: "A is gone",
        corrects: true,
    },
    // Team (5)
    CorrectionCase {
        older: "The Drizzle weather-alerts service is maintained by the Platform team.",
        newer: "Ownership of weather alerts moved from Platform to the Mobile team.",
        question: "which team maintains the weather alerts service",
        value: Value::Team,
        wording: "moved from A to B",
        corrects: true,
    },
    CorrectionCase {
        older: "The Lantern realm's anti-cheat is owned by the Trust & Safety team.",
        newer: "Anti-cheat for Lantern is now owned by Core Gameplay; T&S only handles player \
            reports.",
        question: "which team owns lantern anti-cheat",
        value: Value::Team,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "My son Noah plays in the under-11 Blues at the football club.",
        newer: "Noah got moved up to the under-12 Reds this season.",
        question: "which team does noah play in",
        value: Value::Team,
        wording: "no change word",
        corrects: true,
    },
    CorrectionCase {
        older: "The sequencing QC dashboards belong to the Bioinformatics Core.",
        newer: "As of April, the QC dashboards are handled by Data Engineering rather than \
            the Bioinformatics Core.",
        question: "which team owns the sequencing qc dashboards",
        value: Value::Team,
        wording: "as of <when>",
        corrects: true,
    },
    CorrectionCase {
        older: "Checkout bugs on the bakery site are triaged by the Web team.",
        newer: "Checkout bugs are triaged by the new Payments squad, not the Web team.",
        question: "who triages bakery checkout bugs",
        value: Value::Team,
        wording: "is B, not A",
        corrects: true,
    },
    // Status (5)
    CorrectionCase {
        older: "The dark-mode feature flag in Drizzle is disabled for all users.",
        newer: "As of today's release the Drizzle dark-mode flag is enabled for everyone.",
        question: "is dark mode enabled in drizzle",
        value: Value::Status,
        wording: "as of <when>",
        corrects: true,
    },
    CorrectionCase {
        older: "Ticket HH-2291 (duplicate notifications) is blocked on the mail vendor.",
        newer: "HH-2291 resolved: the vendor fixed their webhook and the duplicate \
            notifications stopped.",
        question: "what is the status of HH-2291",
        value: Value::Status,
        wording: "no change word",
        corrects: true,
    },
    CorrectionCase {
        older: "The v1 REST endpoints of the genome pipeline are deprecated but still served.",
        newer: "The pipeline's v1 REST endpoints were switched off this morning and return \
            410 Gone.",
        question: "are the v1 endpoints still served",
        value: Value::Status,
        wording: "switched off",
        corrects: true,
    },
    CorrectionCase {
        older: "The community garden's composting project is paused for the winter.",
        newer: "Composting at the community garden is back up and running.",
        question: "is the composting project running",
        value: Value::Status,
        wording: "no change word",
        corrects: true,
    },
    CorrectionCase {
        older: "The Lantern realm is open to all players.",
        newer: "Lantern realm is archived: no new logins, and the leaderboards are read-only.",
        question: "is the lantern realm open",
        value: Value::Status,
        wording: "no change word",
        corrects: true,
    },
    // Number (4)
    CorrectionCase {
        older: "The game server allows 64 players per match.",
        newer: "Max players per match raised from 64 to 100.",
        question: "how many players per match",
        value: Value::Number,
        wording: "raised from A to B",
        corrects: true,
    },
    CorrectionCase {
        older: "A sourdough loaf on the bakery's ordering site costs 4.50.",
        newer: "Sourdough on the ordering site is 5.20 now, flour prices went up.",
        question: "how much does a sourdough loaf cost",
        value: Value::Number,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "The genome pipeline pins bwa at version 0.7.17.",
        newer: "Upgraded bwa in the pipeline to 0.7.18.",
        question: "which bwa version does the pipeline use",
        value: Value::Number,
        wording: "upgraded to",
        corrects: true,
    },
    CorrectionCase {
        older: "The Helpdesk Hive API listens on port 8443.",
        newer: "Helpdesk Hive API port changed to 9443 because of a clash with the proxy.",
        question: "which port does the helpdesk hive api listen on",
        value: Value::Number,
        wording: "changed to",
        corrects: true,
    },
    // ---- look-alikes (52) ----
    // events alike but for a detail (5)
    CorrectionCase {
        older: "Deployed Drizzle build 318 to the beta channel.",
        newer: "Deployed Drizzle build 319 to the beta channel.",
        question: "was build 318 deployed to beta",
        value: Value::Number,
        wording: "event alike",
        corrects: false,
    },
    CorrectionCase {
        older: "Met Ines from the mail vendor on Monday to discuss bounce rates.",
        newer: "Met Rafael from the mail vendor on Thursday about their new pricing.",
        question: "who did i meet about bounce rates",
        value: Value::Person,
        wording: "event alike",
        corrects: false,
    },
    CorrectionCase {
        older: "Incident on 3 May: the Lantern login servers in eu-west-2 crashed because of \
            a memory leak.",
        newer: "Incident on 17 June: Lantern matchmaking failed in us-east-1 after a bad config \
            push.",
        question: "where did the may login incident happen",
        value: Value::Region,
        wording: "event alike",
        corrects: false,
    },
    CorrectionCase {
        older: "Ordered 25 kg of rye flour from Harlow Grain for the bakery.",
        newer: "Ordered 40 kg of spelt flour from Harlow Grain for the bakery.",
        question: "how much rye flour did we order",
        value: Value::Number,
        wording: "event alike",
        corrects: false,
    },
    CorrectionCase {
        older: "Ran the genome pipeline on sample batch B12 on the GPU queue.",
        newer: "Ran the genome pipeline on sample batch B13 on the CPU queue.",
        question: "which queue ran batch B12",
        value: Value::Place,
        wording: "event alike",
        corrects: false,
    },
    // same change word, different subject (6)
    CorrectionCase {
        older: "Helpdesk Hive's nightly database backups run on Sunday.",
        newer: "We moved the Helpdesk Hive report-export cron jobs to Friday.",
        question: "what day do the database backups run",
        value: Value::Day,
        wording: "same change word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "We switched the Drizzle blog to Hugo.",
        newer: "We switched the Drizzle docs site to Docusaurus.",
        question: "what builds the drizzle blog",
        value: Value::Tool,
        wording: "same change word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "The game's EU chat servers are hosted in eu-west-3.",
        newer: "Migrated the game's EU leaderboard database to eu-central-1.",
        question: "where are the eu chat servers hosted",
        value: Value::Region,
        wording: "same change word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "The rowing club's senior squad is coached by Helen Price.",
        newer: "Coaching of the junior squad was handed over to Oliver Grant.",
        question: "who coaches the senior squad",
        value: Value::Person,
        wording: "same change word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "The food bank's donation drop-off is at St Mary's hall.",
        newer: "The food bank's volunteer briefing moved to the community centre.",
        question: "where is the donation drop-off",
        value: Value::Place,
        wording: "same change word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "Helpdesk Hive's SLA timer service is owned by the Core team.",
        newer: "Ownership of the Helpdesk Hive mobile app moved to the Mobile team.",
        question: "which team owns the sla timer service",
        value: Value::Team,
        wording: "same change word, other subject",
        corrects: false,
    },
    // additions that keep the old value (6)
    CorrectionCase {
        older: "The genome pipeline stores raw reads in us-east-1.",
        newer: "We also keep a second copy of the raw reads in eu-west-1 for the Cambridge \
            collaborators.",
        question: "where are the raw reads stored",
        value: Value::Region,
        wording: "addition",
        corrects: false,
    },
    CorrectionCase {
        older: "Drizzle's crash reports are collected with Sentry.",
        newer: "Drizzle now sends crash reports to Crashlytics as well, alongside Sentry.",
        question: "what collects drizzle crash reports",
        value: Value::Tool,
        wording: "addition",
        corrects: false,
    },
    CorrectionCase {
        older: "Mei reviews all pull requests to the matchmaking code.",
        newer: "Jonas is a second reviewer for matchmaking pull requests, in addition to Mei.",
        question: "who reviews matchmaking pull requests",
        value: Value::Person,
        wording: "addition",
        corrects: false,
    },
    CorrectionCase {
        older: "The bakery's online orders are fulfilled from the Market Street shop.",
        newer: "Online orders are now also fulfilled from the new Eastgate kiosk, in addition \
            to Market Street.",
        question: "where are online orders fulfilled",
        value: Value::Place,
        wording: "addition",
        corrects: false,
    },
    CorrectionCase {
        older: "The school's coding club meets on Tuesdays.",
        newer: "The coding club added an extra session on Fridays for the older pupils; the \
            Tuesday meeting stays.",
        question: "what day does the coding club meet",
        value: Value::Day,
        wording: "addition",
        corrects: false,
    },
    CorrectionCase {
        older: "The support analytics dashboards are built by the Data team.",
        newer: "The Growth team contributes a few panels to the support analytics dashboards \
            too.",
        question: "who builds the support analytics dashboards",
        value: Value::Team,
        wording: "addition",
        corrects: false,
    },
    // elaborations and restatements (6)
    CorrectionCase {
        older: "The Drizzle frontend is built with Vite.",
        newer: "Vite is what builds the Drizzle frontend these days, and cold starts are under \
            two seconds.",
        question: "what builds the drizzle frontend",
        value: Value::Tool,
        wording: "restatement",
        corrects: false,
    },
    CorrectionCase {
        older: "We use Bazel to build the game server.",
        newer: "We still use Bazel for the game server; builds are faster now thanks to the \
            remote cache.",
        question: "what builds the game server",
        value: Value::Tool,
        wording: "restatement",
        corrects: false,
    },
    CorrectionCase {
        older: "Helpdesk Hive's search index runs in us-west-2.",
        newer: "Reminder: the HH search index is in us-west-2, so use the Oregon console when \
            you debug it.",
        question: "which region is the search index in",
        value: Value::Region,
        wording: "restatement",
        corrects: false,
    },
    CorrectionCase {
        older: "Coach Bianca runs the Thursday swim sessions.",
        newer: "Bianca is still running the Thursday swim sessions, and she's great with the \
            beginners.",
        question: "who runs the thursday swim sessions",
        value: Value::Person,
        wording: "restatement",
        corrects: false,
    },
    CorrectionCase {
        older: "The ticket-archiving job in Helpdesk Hive is paused.",
        newer: "Ticket archiving remains paused until the legal review is done.",
        question: "is ticket archiving paused",
        value: Value::Status,
        wording: "restatement",
        corrects: false,
    },
    CorrectionCase {
        older: "The litter-pick volunteers meet on Saturdays.",
        newer: "Nowadays our litter picks are always Saturday mornings, rain or shine.",
        question: "what day are the litter picks",
        value: Value::Day,
        wording: "restatement",
        corrects: false,
    },
    // a different attribute of the same subject (6)
    CorrectionCase {
        older: "The Drizzle push-notification service runs in us-central1.",
        newer: "The Drizzle push-notification service is now owned by the Mobile team.",
        question: "which region runs the push-notification service",
        value: Value::Region,
        wording: "different attribute",
        corrects: false,
    },
    CorrectionCase {
        older: "The genome pipeline's alignment step uses BWA-MEM2.",
        newer: "The alignment step's worker count went up from 8 to 24.",
        question: "which aligner does the alignment step use",
        value: Value::Tool,
        wording: "different attribute",
        corrects: false,
    },
    CorrectionCase {
        older: "Helpdesk Hive's weekly triage meeting is on Wednesday.",
        newer: "The weekly triage meeting moved to the Orchard meeting room.",
        question: "what day is the triage meeting",
        value: Value::Day,
        wording: "different attribute",
        corrects: false,
    },
    CorrectionCase {
        older: "The Lantern realm's shard servers are managed by the Infra team.",
        newer: "Lantern shards were upgraded to engine version 2.4 yesterday.",
        question: "which team manages the lantern shards",
        value: Value::Team,
        wording: "different attribute",
        corrects: false,
    },
    CorrectionCase {
        older: "The bakery's wholesale orders are handled by Rosa.",
        newer: "Wholesale orders now have a minimum of 12 loaves.",
        question: "who handles wholesale orders",
        value: Value::Person,
        wording: "different attribute",
        corrects: false,
    },
    CorrectionCase {
        older: "The school chess club meets in Room 14.",
        newer: "The chess club changed its start time to 4 pm.",
        question: "which room does the chess club meet in",
        value: Value::Place,
        wording: "different attribute",
        corrects: false,
    },
    // questions, plans, proposals and wishes (6)
    CorrectionCase {
        older: "Helpdesk Hive's CI runs on Jenkins.",
        newer: "Are we still on Jenkins for Helpdesk Hive CI? Someone asked in standup.",
        question: "what runs helpdesk hive ci",
        value: Value::Tool,
        wording: "question",
        corrects: false,
    },
    CorrectionCase {
        older: "Drizzle's infrastructure is provisioned with Pulumi.",
        newer: "We might move Drizzle's infrastructure to Terraform next quarter.",
        question: "what provisions drizzle infrastructure",
        value: Value::Tool,
        wording: "plan",
        corrects: false,
    },
    CorrectionCase {
        older: "The volunteer group's planning meeting is on Monday evenings.",
        newer: "Proposal: move the planning meeting to Wednesday so more people can come. \
            We vote on it next week.",
        question: "when is the planning meeting",
        value: Value::Day,
        wording: "proposal",
        corrects: false,
    },
    CorrectionCase {
        older: "The Lantern realm's game servers run in eu-west-2.",
        newer: "I'd like to move the Lantern game servers to eu-north-1 for the cheaper power, \
            if finance agrees.",
        question: "which region runs the lantern game servers",
        value: Value::Region,
        wording: "wish",
        corrects: false,
    },
    CorrectionCase {
        older: "Karen is treasurer of the allotment society.",
        newer: "Should Karen hand the treasurer role to someone else next year? She sounded \
            tired at the meeting.",
        question: "who is the allotment society treasurer",
        value: Value::Person,
        wording: "question",
        corrects: false,
    },
    CorrectionCase {
        older: "The sequencing-reports feature of the pipeline portal is in beta.",
        newer: "The plan is to mark sequencing reports as generally available once the audit \
            passes.",
        question: "what is the status of sequencing reports",
        value: Value::Status,
        wording: "plan",
        corrects: false,
    },
    // negations that do not undo the older one (4)
    CorrectionCase {
        older: "The Helpdesk Hive API runs in us-east-1.",
        newer: "The Helpdesk Hive API is not affected by today's us-east-1 storage outage.",
        question: "which region does the helpdesk hive api run in",
        value: Value::Region,
        wording: "negation",
        corrects: false,
    },
    CorrectionCase {
        older: "Drizzle's daily forecast email goes out through Postmark.",
        newer: "The forecast email bounces were not caused by Postmark; it was a broken \
            template.",
        question: "what sends the daily forecast email",
        value: Value::Tool,
        wording: "negation",
        corrects: false,
    },
    CorrectionCase {
        older: "Dr. Castellanos is my GP.",
        newer: "Dr. Castellanos doesn't work Fridays, so Friday appointments are with the \
            practice nurse.",
        question: "who is my gp",
        value: Value::Person,
        wording: "negation",
        corrects: false,
    },
    CorrectionCase {
        older: "Crash triage for the Drizzle apps is owned by the Mobile team.",
        newer: "Crash triage is not something the Web team should pick up; route it to Mobile \
            as usual.",
        question: "which team owns crash triage",
        value: Value::Team,
        wording: "negation",
        corrects: false,
    },
    // past narratives (4)
    CorrectionCase {
        older: "The bakery's ordering site is hosted on Netlify.",
        newer: "History of the bakery site: it started on a shared PHP host, moved to Heroku \
            in 2019, and then landed on Netlify in 2021, where it has been since.",
        question: "where is the bakery site hosted",
        value: Value::Tool,
        wording: "past narrative",
        corrects: false,
    },
    CorrectionCase {
        older: "Helpdesk Hive's email parser is owned by Priya.",
        newer: "History of the email parser: Sam wrote it, handed it to Lee in 2020, and Lee \
            handed it over to Priya last year.",
        question: "who owns the email parser",
        value: Value::Person,
        wording: "past narrative",
        corrects: false,
    },
    CorrectionCase {
        older: "The Drizzle radar cache lives in eu-west-1.",
        newer: "Timeline of the radar outage: at 09:10 we failed over to eu-west-2, at 10:30 \
            we moved traffic back to eu-west-1, and at 11:00 we closed the incident.",
        question: "which region holds the radar cache",
        value: Value::Region,
        wording: "past narrative",
        corrects: false,
    },
    CorrectionCase {
        older: "The rowing club's kit supplier is Stanno.",
        newer: "We went through a few kit suppliers before settling: first Joma, then Errea, \
            and finally Stanno.",
        question: "who supplies the club kit",
        value: Value::Tool,
        wording: "past narrative",
        corrects: false,
    },
    // temporary exceptions (4)
    CorrectionCase {
        older: "Helpdesk Hive's sprint review is on Friday.",
        newer: "This week only, the sprint review is on Thursday because of the bank holiday.",
        question: "what day is the sprint review",
        value: Value::Day,
        wording: "temporary exception",
        corrects: false,
    },
    CorrectionCase {
        older: "Drizzle's iOS builds run on the Mac mini runner in the Bristol office.",
        newer: "Just for today the iOS builds run on the spare runner while the Mac mini gets \
            a new disk.",
        question: "where do the ios builds run",
        value: Value::Place,
        wording: "temporary exception",
        corrects: false,
    },
    CorrectionCase {
        older: "Amara leads the Sunday morning beginners' run.",
        newer: "Amara is away, so Joe will cover the Sunday beginners' run this weekend only.",
        question: "who leads the sunday beginners run",
        value: Value::Person,
        wording: "temporary exception",
        corrects: false,
    },
    CorrectionCase {
        older: "The matchmaking service runs in us-east-2.",
        newer: "During tonight's maintenance window matchmaking traffic is served from \
            us-west-1; it goes back to us-east-2 at 6 am.",
        question: "which region runs matchmaking",
        value: Value::Region,
        wording: "temporary exception",
        corrects: false,
    },
    // reverted changes and someone else's setup (5)
    CorrectionCase {
        older: "Helpdesk Hive's source code is hosted on GitHub.",
        newer: "My friend's team at another company moved to GitLab and loves it.",
        question: "where is the helpdesk hive code hosted",
        value: Value::Tool,
        wording: "someone else's setup",
        corrects: false,
    },
    CorrectionCase {
        older: "The Drizzle API's rate limit is 600 requests per minute.",
        newer: "We raised the Drizzle API rate limit to 1000 yesterday, but reverted it to 600 \
            this morning after the database struggled.",
        question: "what is the drizzle api rate limit",
        value: Value::Number,
        wording: "reverted",
        corrects: false,
    },
    CorrectionCase {
        older: "The genome pipeline's results bucket is in us-west-2.",
        newer: "Tried moving the results bucket to us-east-1, but rolled it back the same day, \
            so nothing changed in the end.",
        question: "which region is the results bucket in",
        value: Value::Region,
        wording: "reverted",
        corrects: false,
    },
    CorrectionCase {
        older: "Our family's vet is Dr. Moreau at Pine Lane.",
        newer: "My sister switched her cats to a new vet in town, Dr. Abadi.",
        question: "who is our vet",
        value: Value::Person,
        wording: "someone else's setup",
        corrects: false,
    },
    CorrectionCase {
        older: "Our tennis club's league team plays its home matches on Saturday.",
        newer: "The rival club across town moved their home matches to Sunday.",
        question: "what day are our home matches",
        value: Value::Day,
        wording: "someone else's setup",
        corrects: false,
    },
];
