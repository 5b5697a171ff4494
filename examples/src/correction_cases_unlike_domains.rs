//! A fifth set for the correction judgement: 91 pairs of free-text memories, 41 corrections
//! and 50 look-alikes. Held out for one round of rules (the fourth), then development: its
//! misjudged pairs were read, and `correction_cases_held_out` was written blind to be held out in
//! its place.
//!
//! Written blind: its author read neither the judgement's code nor the earlier sets. It covers
//! the eight kinds of value (region, tool, person, day, place, team, status, number) in domains
//! unlike the earlier ones: a mobile banking app's backend, a robotics lab, a newspaper's CMS,
//! a hospital rota, a music festival's logistics, a family's car and house, a community garden,
//! a chess club, a translation agency and an open-source library's maintainers. Corrections use
//! many wordings of change, including none at all where context makes the change plain. The
//! look-alikes come in ten kinds, five each: events alike but for a detail, the same change word
//! on another subject, additions, restatements, another attribute changing, questions and plans,
//! negations, past narratives, temporary exceptions, and changes reverted or about someone else.
//!
//! The set is frozen: cases are not edited, added or dropped to suit the judgement.

use crate::correction_cases::{CorrectionCase, Value};

pub const UNLIKE_DOMAINS: &[CorrectionCase] = &[
    // ---- corrections (41) ----
    // Region (5)
    CorrectionCase {
        older: "The banking app's card-authorisation service runs in eu-west-1.",
        newer: "Card authorisation moved from eu-west-1 to eu-central-1 last night, to sit \
            next to the ledger database.",
        question: "which region does the card-authorisation service run in",
        value: Value::Region,
        wording: "moved from A to B",
        corrects: true,
    },
    CorrectionCase {
        older: "The newspaper CMS keeps its image store in us-east-1.",
        newer: "Update: the CMS image store was migrated to us-west-2 after the outage in \
            Virginia.",
        question: "which region is the cms image store in",
        value: Value::Region,
        wording: "update: migrated to",
        corrects: true,
    },
    CorrectionCase {
        older: "The robotics lab's simulation cluster runs in us-central1.",
        newer: "Lab simulation jobs now run in europe-west4; us-central1 was too far from \
            the robots' telemetry.",
        question: "which region does the lab's simulation cluster run in",
        value: Value::Region,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "The translation agency's document OCR pipeline is deployed in westeurope.",
        newer: "Correction: the OCR pipeline is in northeurope, not westeurope.",
        question: "which azure region is the ocr pipeline deployed in",
        value: Value::Region,
        wording: "correction: is B, not A",
        corrects: true,
    },
    CorrectionCase {
        older: "The festival's ticket-scanning API is hosted in ap-southeast-2.",
        newer: "As of Monday the ticket-scanning API is served from ap-southeast-1 instead \
            of ap-southeast-2.",
        question: "which region hosts the ticket-scanning api",
        value: Value::Region,
        wording: "as of <when>, instead of",
        corrects: true,
    },
    // Tool (6)
    CorrectionCase {
        older: "The chess club's pairing software is Swiss Manager.",
        newer: "We ditched Swiss Manager for Vega for pairings, since Vega runs on the club \
            laptop's Linux.",
        question: "what software does the chess club use for pairings",
        value: Value::Tool,
        wording: "ditched A for B",
        corrects: true,
    },
    CorrectionCase {
        older: "The open-source library's documentation is built with Sphinx.",
        newer: "Docs builds for the library switched to MkDocs this release.",
        question: "what builds the library's documentation",
        value: Value::Tool,
        wording: "switched to",
        corrects: true,
    },
    CorrectionCase {
        older: "Push notifications in the banking app go through OneSignal.",
        newer: "We replaced OneSignal with Firebase Cloud Messaging for push notifications.",
        question: "which service sends the banking app's push notifications",
        value: Value::Tool,
        wording: "replaced A with B",
        corrects: true,
    },
    CorrectionCase {
        older: "The community garden keeps its plot waiting list in a Google Sheet.",
        newer: "The plot waiting list lives in Airtable these days; the old Google Sheet has \
            been made read-only and is no longer updated.",
        question: "where is the garden's plot waiting list kept",
        value: Value::Tool,
        wording: "these days",
        corrects: true,
    },
    CorrectionCase {
        older: "The robotics lab's mobile bases run ROS Noetic.",
        newer: "From now on the mobile bases run ROS 2 Humble; Noetic has been wiped from \
            every robot.",
        question: "which ros distribution do the mobile bases run",
        value: Value::Tool,
        wording: "from now on",
        corrects: true,
    },
    CorrectionCase {
        older: "The newspaper sends its morning newsletter with Mailchimp.",
        newer: "Morning newsletter: Mailchimp was retired in favour of Buttondown.",
        question: "what sends the morning newsletter",
        value: Value::Tool,
        wording: "retired in favour of",
        corrects: true,
    },
    // Person (6)
    CorrectionCase {
        older: "Dr. Okafor is the consultant on call for the cardiology ward at weekends.",
        newer: "Dr. Lindqvist took over weekend cardiology on-call from Dr. Okafor.",
        question: "who is the weekend on-call consultant for cardiology",
        value: Value::Person,
        wording: "took over from",
        corrects: true,
    },
    CorrectionCase {
        older: "Priya reviews every pull request to the library's parser module.",
        newer: "Parser module reviews have been handed over to Tomasz; Priya has stepped \
            back from the project.",
        question: "who reviews pull requests to the parser module",
        value: Value::Person,
        wording: "handed over to",
        corrects: true,
    },
    CorrectionCase {
        older: "Our landlord for the house on Elm Road is Mr. Hargreaves.",
        newer: "The Elm Road house was sold, so our landlord is Ms. Beaumont now.",
        question: "who is our landlord for the elm road house",
        value: Value::Person,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "Coach Rinaldi runs the chess club's junior sessions.",
        newer: "Junior sessions are run by Coach Adeyemi, not Rinaldi.",
        question: "who runs the junior chess sessions",
        value: Value::Person,
        wording: "is B, not A",
        corrects: true,
    },
    CorrectionCase {
        older: "The festival's stage manager for the main stage is Kofi.",
        newer: "Turns out Kofi isn't managing the main stage after all - Marta is.",
        question: "who is the main stage manager",
        value: Value::Person,
        wording: "turns out",
        corrects: true,
    },
    CorrectionCase {
        older: "Agnieszka is the lead translator for the agency's Polish legal work.",
        newer: "Going forward, Polish legal translations are led by Henrik.",
        question: "who leads polish legal translations",
        value: Value::Person,
        wording: "going forward",
        corrects: true,
    },
    // Day (5)
    CorrectionCase {
        older: "Compost turning at the community garden happens on Saturday.",
        newer: "Starting this month, compost turning is on Sunday.",
        question: "what day is compost turning at the garden",
        value: Value::Day,
        wording: "starting <when>",
        corrects: true,
    },
    CorrectionCase {
        older: "The hospital pharmacy's stock count is done every Tuesday.",
        newer: "Pharmacy stock count changed: it is done every Thursday.",
        question: "what day is the pharmacy stock count",
        value: Value::Day,
        wording: "changed:",
        corrects: true,
    },
    CorrectionCase {
        older: "The chess club meets on Wednesday evenings.",
        newer: "Club nights are on Thursday now that the church hall is booked by the choir \
            on Wednesdays.",
        question: "which evening does the chess club meet",
        value: Value::Day,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "Bin collection for our house is on Monday.",
        newer: "The council moved our bin collection from Monday to Friday.",
        question: "what day are our bins collected",
        value: Value::Day,
        wording: "moved from A to B",
        corrects: true,
    },
    CorrectionCase {
        older: "The library cuts its releases on Friday.",
        newer: "We no longer cut releases on Friday; releases go out on Tuesday so nobody \
            fixes regressions at the weekend.",
        question: "what day does the library cut releases",
        value: Value::Day,
        wording: "no longer",
        corrects: true,
    },
    // Place (6)
    CorrectionCase {
        older: "The robotics lab's arm testbed is in room B214.",
        newer: "Since the floor renovation, the arm testbed has been in the basement \
            workshop.",
        question: "where is the arm testbed",
        value: Value::Place,
        wording: "since <event>",
        corrects: true,
    },
    CorrectionCase {
        older: "The newspaper's night desk works from the Canary Wharf office.",
        newer: "Night desk moved to the Manchester office.",
        question: "which office does the night desk work from",
        value: Value::Place,
        wording: "moved to",
        corrects: true,
    },
    CorrectionCase {
        older: "The banking app's iOS builds run on the self-hosted Mac mini runner in the \
            Leeds office.",
        newer: "iOS builds run on GitHub-hosted macOS runners nowadays; the Leeds Mac mini \
            was unplugged.",
        question: "which runner do the ios builds run on",
        value: Value::Place,
        wording: "nowadays",
        corrects: true,
    },
    CorrectionCase {
        older: "Crew alerts for the festival are posted in the #crew-ops channel.",
        newer: "The #crew-ops channel was renamed to #site-ops.",
        question: "which channel are crew alerts posted in",
        value: Value::Place,
        wording: "renamed to",
        corrects: true,
    },
    CorrectionCase {
        older: "We buy tyres for the car at the Kwik Fit on Station Road.",
        newer: "The Station Road Kwik Fit is gone; we get tyres at the Halfords by the ring \
            road.",
        question: "where do we buy tyres for the car",
        value: Value::Place,
        wording: "A is gone",
        corrects: true,
    },
    CorrectionCase {
        older: "The community garden's seed swap is held at the Oak Street library.",
        newer: "The Oak Street library has closed down for good, and the seed swap is held \
            at the scout hut on Mill Lane.",
        question: "where is the seed swap held",
        value: Value::Place,
        wording: "no change word (context)",
        corrects: true,
    },
    // Team (5)
    CorrectionCase {
        older: "The payments reconciliation job is owned by the Ledger team.",
        newer: "Ownership of the reconciliation job moved to the Treasury Platform team.",
        question: "which team owns the reconciliation job",
        value: Value::Team,
        wording: "moved to",
        corrects: true,
    },
    CorrectionCase {
        older: "The CMS comments module belongs to the Audience team.",
        newer: "The Audience team handed the comments module over to the Community Tools \
            team.",
        question: "which team owns the cms comments module",
        value: Value::Team,
        wording: "handed over to",
        corrects: true,
    },
    CorrectionCase {
        older: "Ward 7 night shifts are staffed by the surgical nursing team.",
        newer: "From now on Ward 7 nights are covered by the medical nursing team, not the \
            surgical one.",
        question: "which nursing team staffs ward 7 nights",
        value: Value::Team,
        wording: "from now on",
        corrects: true,
    },
    CorrectionCase {
        older: "The lab's gripper firmware is maintained by the Manipulation group.",
        newer: "Since the reorg, gripper firmware is maintained by the Embedded group; \
            Manipulation no longer touches it.",
        question: "which group maintains the gripper firmware",
        value: Value::Team,
        wording: "since <event>",
        corrects: true,
    },
    CorrectionCase {
        older: "Stage builds at the festival are done by our in-house Rigging crew.",
        newer: "We dropped the in-house Rigging crew; stage builds are contracted to \
            Northern Staging.",
        question: "who does the festival's stage builds",
        value: Value::Team,
        wording: "we dropped A",
        corrects: true,
    },
    // Status (5)
    CorrectionCase {
        older: "Biometric login in the banking app is enabled for Android users.",
        newer: "Biometric login on Android is disabled after the fingerprint bypass report.",
        question: "is biometric login enabled on android",
        value: Value::Status,
        wording: "no change word (context)",
        corrects: true,
    },
    CorrectionCase {
        older: "Issue #482 in the library, about Unicode normalisation, is blocked on \
            upstream.",
        newer: "Update: #482 is resolved; upstream shipped the fix and we merged it.",
        question: "what is the status of issue 482",
        value: Value::Status,
        wording: "update:",
        corrects: true,
    },
    CorrectionCase {
        older: "The translation agency's Portuguese glossary project is paused.",
        newer: "The Portuguese glossary project is active again as of Monday.",
        question: "is the portuguese glossary project paused",
        value: Value::Status,
        wording: "as of <when>",
        corrects: true,
    },
    CorrectionCase {
        older: "The CMS's legacy XML feed is deprecated but still served.",
        newer: "The legacy XML feed has been switched off; requests to it now get a 410.",
        question: "is the legacy xml feed still served",
        value: Value::Status,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "The chess club's online blitz league is running this season.",
        newer: "Correction: the online blitz league is not running this season; it was \
            cancelled in January.",
        question: "is the online blitz league running this season",
        value: Value::Status,
        wording: "correction:",
        corrects: true,
    },
    // Number (3)
    CorrectionCase {
        older: "The banking app's API rate limit is 100 requests per minute per user.",
        newer: "Per-user API rate limit raised from 100 to 250 requests per minute.",
        question: "what is the per-user api rate limit",
        value: Value::Number,
        wording: "from A to B",
        corrects: true,
    },
    CorrectionCase {
        older: "Plot rent at the community garden is 40 pounds a year.",
        newer: "Plot rent is 55 pounds a year now, after the AGM vote.",
        question: "how much is the garden plot rent",
        value: Value::Number,
        wording: "now",
        corrects: true,
    },
    CorrectionCase {
        older: "The robot arm controller listens on port 5005.",
        newer: "The arm controller's port changed to 6006 to stop it clashing with the \
            camera service.",
        question: "which port does the arm controller listen on",
        value: Value::Number,
        wording: "changed to",
        corrects: true,
    },
    // ---- look-alikes (50) ----
    // Events alike but for a detail (5)
    CorrectionCase {
        older: "We deployed the fraud-scoring service to eu-west-1 on Tuesday.",
        newer: "We deployed the statement-export service to eu-west-2 on Thursday.",
        question: "which region was the fraud-scoring service deployed to",
        value: Value::Region,
        wording: "events alike",
        corrects: false,
    },
    CorrectionCase {
        older: "Met with Dr. Osei about the ward rota on Monday.",
        newer: "Met with Dr. Hale about the ward rota on Wednesday.",
        question: "who did we meet about the ward rota on monday",
        value: Value::Person,
        wording: "events alike",
        corrects: false,
    },
    CorrectionCase {
        older: "Incident 2024-17: the CMS publish queue stalled because Redis ran out of \
            memory.",
        newer: "Incident 2024-21: the CMS publish queue stalled because a RabbitMQ consumer \
            deadlocked.",
        question: "what caused incident 2024-17",
        value: Value::Tool,
        wording: "events alike",
        corrects: false,
    },
    CorrectionCase {
        older: "Bought a roof box for the car at Halfords in March.",
        newer: "Bought new wiper blades for the car at Costco in May.",
        question: "where did we buy the roof box",
        value: Value::Place,
        wording: "events alike",
        corrects: false,
    },
    CorrectionCase {
        older: "The chess club's autumn rapid tournament was held on a Saturday.",
        newer: "The spring rapid tournament was held on a Sunday.",
        question: "what day was the autumn rapid tournament",
        value: Value::Day,
        wording: "events alike",
        corrects: false,
    },
    // The same change word on a different subject (5)
    CorrectionCase {
        older: "The banking app's KYC checks run in eu-central-1.",
        newer: "The marketing website moved to us-east-1 last week.",
        question: "which region do the kyc checks run in",
        value: Value::Region,
        wording: "same word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "The lab's lidar driver is maintained by Sven.",
        newer: "The wheel odometry package was handed over to Ines.",
        question: "who maintains the lidar driver",
        value: Value::Person,
        wording: "same word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "The newspaper's puzzles page is built with Django.",
        newer: "The sports live blog switched to Next.js.",
        question: "what is the puzzles page built with",
        value: Value::Tool,
        wording: "same word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "The community garden committee meets on Tuesday.",
        newer: "The kids' planting club moved to Thursday.",
        question: "what day does the garden committee meet",
        value: Value::Day,
        wording: "same word, other subject",
        corrects: false,
    },
    CorrectionCase {
        older: "Security advisories for the library are handled by the Core team.",
        newer: "Ownership of the project website repo moved to the Docs team.",
        question: "which team handles security advisories",
        value: Value::Team,
        wording: "same word, other subject",
        corrects: false,
    },
    // Additions that keep the old value (5)
    CorrectionCase {
        older: "The translation agency's CAT tool is memoQ.",
        newer: "We also bought a few Trados licences for the clients who insist on it; \
            everyone keeps working in memoQ.",
        question: "which cat tool does the agency use",
        value: Value::Tool,
        wording: "addition",
        corrects: false,
    },
    CorrectionCase {
        older: "The festival's first-aid tent is by the north gate.",
        newer: "A second first-aid tent goes up by the campsite as well.",
        question: "where is the first-aid tent",
        value: Value::Place,
        wording: "addition",
        corrects: false,
    },
    CorrectionCase {
        older: "Leila is on call for the banking app's payments service.",
        newer: "Joon joins the payments on-call alongside Leila as secondary.",
        question: "who is on call for payments",
        value: Value::Person,
        wording: "addition",
        corrects: false,
    },
    CorrectionCase {
        older: "The hospital's fire drill is on Wednesday.",
        newer: "In addition to the Wednesday drill, there is a fire drill on Friday for the \
            night staff.",
        question: "what day is the fire drill",
        value: Value::Day,
        wording: "addition",
        corrects: false,
    },
    CorrectionCase {
        older: "Backups of the ledger database are stored in eu-west-1.",
        newer: "Ledger backups are now copied to eu-north-1 as well, on top of the eu-west-1 \
            copies.",
        question: "which region are ledger backups stored in",
        value: Value::Region,
        wording: "addition",
        corrects: false,
    },
    // Elaborations and restatements (5)
    CorrectionCase {
        older: "The robotics lab's fleet has 12 mobile bases.",
        newer: "We still have 12 mobile bases; two of them are away for battery repairs this \
            month.",
        question: "how many mobile bases does the lab have",
        value: Value::Number,
        wording: "restatement (still)",
        corrects: false,
    },
    CorrectionCase {
        older: "Mirela is the chess club's treasurer.",
        newer: "Mirela is still the treasurer these days; she was re-elected unopposed.",
        question: "who is the chess club's treasurer",
        value: Value::Person,
        wording: "restatement (still, these days)",
        corrects: false,
    },
    CorrectionCase {
        older: "The CMS image resizer runs in europe-west1.",
        newer: "These days the CMS image resizer runs in europe-west1 (Belgium), close to \
            the origin bucket.",
        question: "which region does the image resizer run in",
        value: Value::Region,
        wording: "restatement (these days)",
        corrects: false,
    },
    CorrectionCase {
        older: "The community garden's east gate is locked overnight.",
        newer: "The east gate is locked overnight; the padlock code is on the noticeboard by \
            the shed.",
        question: "is the east gate locked overnight",
        value: Value::Status,
        wording: "elaboration",
        corrects: false,
    },
    CorrectionCase {
        older: "The festival's sound checks are on Thursday.",
        newer: "Sound checks now run all afternoon on Thursday, from 1pm until the doors \
            open.",
        question: "what day are the sound checks",
        value: Value::Day,
        wording: "elaboration (now)",
        corrects: false,
    },
    // A different attribute of the same subject (5)
    CorrectionCase {
        older: "The recommendations service in the banking app is owned by the Discovery \
            team.",
        newer: "The recommendations service was rewritten in Go last quarter.",
        question: "which team owns the recommendations service",
        value: Value::Team,
        wording: "other attribute",
        corrects: false,
    },
    CorrectionCase {
        older: "The lab's 3D printer is a Prusa MK4.",
        newer: "The Prusa MK4 was moved to the prototyping room.",
        question: "which 3d printer does the lab have",
        value: Value::Tool,
        wording: "other attribute",
        corrects: false,
    },
    CorrectionCase {
        older: "Dr. Aziz leads the paediatric clinic.",
        newer: "The paediatric clinic moved to the new wing on level 3.",
        question: "who leads the paediatric clinic",
        value: Value::Person,
        wording: "other attribute",
        corrects: false,
    },
    CorrectionCase {
        older: "Cashless wristband top-ups at the festival are enabled.",
        newer: "The fee for a cashless wristband top-up went up from 20p to 30p.",
        question: "are cashless wristband top-ups enabled",
        value: Value::Status,
        wording: "other attribute",
        corrects: false,
    },
    CorrectionCase {
        older: "The translation agency's Japanese desk is in the Osaka office.",
        newer: "The Japanese desk has a new lead, Haruto, since Emi retired.",
        question: "where is the japanese desk",
        value: Value::Place,
        wording: "other attribute",
        corrects: false,
    },
    // Questions, plans, proposals and wishes (5)
    CorrectionCase {
        older: "The banking app's push service runs in eu-west-1.",
        newer: "Should we move the push service to eu-central-1 next quarter?",
        question: "which region does the push service run in",
        value: Value::Region,
        wording: "question",
        corrects: false,
    },
    CorrectionCase {
        older: "The newspaper's paywall is provided by Piano.",
        newer: "Proposal: replace Piano with an in-house paywall in 2026. Not approved yet.",
        question: "who provides the paywall",
        value: Value::Tool,
        wording: "proposal",
        corrects: false,
    },
    CorrectionCase {
        older: "Grandma's GP is Dr. Mensah.",
        newer: "We're thinking about switching Grandma to Dr. Lowe at the new practice, but \
            haven't decided.",
        question: "who is grandma's gp",
        value: Value::Person,
        wording: "plan not yet done",
        corrects: false,
    },
    CorrectionCase {
        older: "The chess club's committee meeting is on Monday.",
        newer: "I wish the committee meeting were on Friday instead of Monday.",
        question: "what day is the committee meeting",
        value: Value::Day,
        wording: "wish",
        corrects: false,
    },
    CorrectionCase {
        older: "The festival's merch stall is run by the Volunteers team.",
        newer: "Is the merch stall still run by the Volunteers team, or did Sales take it \
            over?",
        question: "which team runs the merch stall",
        value: Value::Team,
        wording: "question",
        corrects: false,
    },
    // Negations that do not undo the older one (5)
    CorrectionCase {
        older: "Search in the CMS is powered by Elasticsearch.",
        newer: "CMS search is not powered by Algolia - we only trialled it for a week.",
        question: "what powers cms search",
        value: Value::Tool,
        wording: "negation of something else",
        corrects: false,
    },
    CorrectionCase {
        older: "Dr. Brandt is the robotics lab's safety officer.",
        newer: "Dr. Brandt is not the lab's fire warden; that's Nils.",
        question: "who is the lab's safety officer",
        value: Value::Person,
        wording: "negation of something else",
        corrects: false,
    },
    CorrectionCase {
        older: "The banking app's virtual card service is enabled in Ireland.",
        newer: "The virtual card service is not enabled in Portugal yet.",
        question: "is the virtual card service enabled in ireland",
        value: Value::Status,
        wording: "negation of something else",
        corrects: false,
    },
    CorrectionCase {
        older: "Our car is serviced at Fairway Motors.",
        newer: "Fairway Motors doesn't do MOTs, so the MOT is done at the council test \
            centre.",
        question: "where is our car serviced",
        value: Value::Place,
        wording: "negation of something else",
        corrects: false,
    },
    CorrectionCase {
        older: "The hospital's blood bank fridge readings are checked on Friday.",
        newer: "Blood bank fridge readings are never skipped on Friday, not even on bank \
            holidays.",
        question: "what day are the blood bank readings checked",
        value: Value::Day,
        wording: "negation that keeps it",
        corrects: false,
    },
    // Past narratives (5)
    CorrectionCase {
        older: "The library is packaged with Hatch.",
        newer: "Back in 2019 the library was packaged with setup.py, then it moved to Poetry \
            in 2021, and later to Hatch.",
        question: "what tool packages the library",
        value: Value::Tool,
        wording: "past narrative",
        corrects: false,
    },
    CorrectionCase {
        older: "The newspaper's archive servers are in the Frankfurt data centre.",
        newer: "The archive started in the basement server room, went to a colo in Slough \
            in 2012, and ended up in Frankfurt in 2020.",
        question: "where are the archive servers",
        value: Value::Place,
        wording: "past narrative",
        corrects: false,
    },
    CorrectionCase {
        older: "The lab's dataset bucket is in us-west-2.",
        newer: "The dataset bucket was first created in us-east-1, then recreated in \
            us-west-2 when the lab moved to Seattle.",
        question: "which region is the dataset bucket in",
        value: Value::Region,
        wording: "past narrative",
        corrects: false,
    },
    CorrectionCase {
        older: "Ruth is head of QA at the translation agency.",
        newer: "Ruth joined as a junior proofreader in 2015, led the Spanish desk for a \
            while, and became head of QA last year.",
        question: "who is head of qa at the agency",
        value: Value::Person,
        wording: "past narrative",
        corrects: false,
    },
    CorrectionCase {
        older: "Festival security is run by our Sentinel team.",
        newer: "Security was first run by volunteers, then by an outside firm, and since \
            2022 by our own Sentinel team.",
        question: "which team runs festival security",
        value: Value::Team,
        wording: "past narrative",
        corrects: false,
    },
    // Temporary exceptions (5)
    CorrectionCase {
        older: "Dr. Patel covers renal ward on-call.",
        newer: "While Dr. Patel is on leave this week, Dr. Ibrahim covers renal on-call.",
        question: "who covers renal on-call",
        value: Value::Person,
        wording: "temporary exception",
        corrects: false,
    },
    CorrectionCase {
        older: "The chess club meets in the church hall.",
        newer: "Just for tonight the club meets in the back room of the Red Lion because \
            the hall is flooded.",
        question: "where does the chess club meet",
        value: Value::Place,
        wording: "temporary exception",
        corrects: false,
    },
    CorrectionCase {
        older: "The paper's weekend supplement closes for copy on Thursday.",
        newer: "This week only, the weekend supplement closes on Wednesday because of the \
            bank holiday.",
        question: "what day does the weekend supplement close",
        value: Value::Day,
        wording: "temporary exception",
        corrects: false,
    },
    CorrectionCase {
        older: "The banking app's daily transfer limit is 5000 pounds.",
        newer: "For the migration weekend only, the daily transfer limit is lowered to 1000 \
            pounds.",
        question: "what is the daily transfer limit",
        value: Value::Number,
        wording: "temporary exception",
        corrects: false,
    },
    CorrectionCase {
        older: "The library's nightly build is enabled.",
        newer: "Nightly builds are paused just for today while the runner is reimaged; they \
            resume tomorrow.",
        question: "is the nightly build enabled",
        value: Value::Status,
        wording: "temporary exception",
        corrects: false,
    },
    // Reverted, or someone else's setup (5)
    CorrectionCase {
        older: "The banking app's analytics run through Mixpanel.",
        newer: "We switched analytics to Amplitude on Monday but rolled it back on Tuesday; \
            Mixpanel it is.",
        question: "which analytics tool does the app use",
        value: Value::Tool,
        wording: "reverted",
        corrects: false,
    },
    CorrectionCase {
        older: "My kids' swimming lesson is on Friday.",
        newer: "My sister's kids' swimming lesson moved to Saturday.",
        question: "what day is my kids' swimming lesson",
        value: Value::Day,
        wording: "someone else's",
        corrects: false,
    },
    CorrectionCase {
        older: "The CMS staging environment runs in us-east-1.",
        newer: "The migration of CMS staging to eu-west-1 was reverted after latency \
            complaints; staging is back in us-east-1.",
        question: "which region does cms staging run in",
        value: Value::Region,
        wording: "reverted",
        corrects: false,
    },
    CorrectionCase {
        older: "Our family's car insurance is with Direct Line.",
        newer: "My neighbour switched his car insurance from Direct Line to Admiral.",
        question: "who is our car insurance with",
        value: Value::Tool,
        wording: "someone else's",
        corrects: false,
    },
    CorrectionCase {
        older: "The lab's cleanroom is run by the Facilities team.",
        newer: "Cleanroom ownership moved to Research Ops for a day, then the change was \
            undone; Facilities still runs it.",
        question: "which team runs the cleanroom",
        value: Value::Team,
        wording: "reverted",
        corrects: false,
    },
];
