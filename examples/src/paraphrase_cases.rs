//! A frozen, blind evaluation set for recall under paraphrase.
//!
//! [`NOTES`] are 168 memories a coding agent working with one developer across several
//! projects would store: decisions and their reasons, bugs and their fixes, commands, people,
//! the user's preferences, and architecture. The projects are a billing service (ledger-api and
//! ledger-worker), a mobile app (Pocket), a data pipeline (riverbed), an internal CLI (opsctl)
//! and a marketing website. Many notes are hard distractors: they share a service, a topic or
//! vocabulary with a query's target without answering it. 54 notes have no query at all.
//!
//! [`QUERIES`] are 115 questions an agent would ask later, each paraphrased away from the
//! words of its target: synonyms, a described symptom or situation instead of a name, indirect
//! requests. A careful human reading every note would answer each query with its targets and
//! with no other note.
//!
//! The set was written blind, note by note, before any tuning and without looking at ferrex's
//! ranking code. It is frozen: do not edit it to suit a ranker; write a new set instead.
//!
//! Split: query `i` is held out when `i % 3 == 2` (see [`held_out`]). Tune only on the other
//! queries and report held-out results separately.
//!
//! Overlap, measured when the set was written: after lowercasing, splitting on
//! non-alphanumerics, dropping English stopwords and stripping one suffix of -ing, -ed, -es or
//! -s, the mean content-word overlap between a query and its targets is 0.46 shared words;
//! 69 queries share none, 39 share one, 7 share two and none share more.

/// One memory an agent stored.
#[derive(Debug, Clone, Copy)]
pub struct Note {
    /// Stable key queries refer to, e.g. "deploy-freeze".
    pub key: &'static str,
    /// What kind of memory: "decision", "bug", "command", "person", "preference", "architecture".
    pub kind: &'static str,
    /// The memory as an agent would store it: 1 to 4 sentences.
    pub text: &'static str,
}

/// One question an agent asks later, paraphrased away from its memory's words.
#[derive(Debug, Clone, Copy)]
pub struct Query {
    /// The question or request as the agent would phrase it.
    pub text: &'static str,
    /// Keys of the notes that answer it (usually one).
    pub targets: &'static [&'static str],
}

/// The memories, grouped by kind.
pub const NOTES: &[Note] = &[
    // ---- decisions ----
    Note {
        key: "deploy-freeze",
        kind: "decision",
        text: "We freeze production deploys of ledger-api from Thursday 18:00 UTC until Monday 09:00 UTC. The rule came after a Friday release double-charged 40 customers and nobody was around to roll it back.",
    },
    Note {
        key: "ledger-uuidv7",
        kind: "decision",
        text: "ledger-api switched primary keys from bigserial to UUIDv7 in March 2024. Sequential integers leaked our invoice volume to customers, and v7 keeps the index locality that random v4 ids would have destroyed.",
    },
    Note {
        key: "pocket-expo-router",
        kind: "decision",
        text: "The Pocket mobile app moved from React Navigation to Expo Router in v3.2. File-based routes made deep links from push notifications much simpler to maintain.",
    },
    Note {
        key: "riverbed-sql-in-dbt",
        kind: "decision",
        text: "In the riverbed pipeline all transformations live in dbt models, never as SQL inside Airflow operators. Airflow only orchestrates, so analysts can review the logic in one place and run it locally.",
    },
    Note {
        key: "opsctl-rust-rewrite",
        kind: "decision",
        text: "opsctl, the internal CLI, was rewritten from Python to Rust in 2023. Python startup took 1.4 seconds because of imports, and teammates wanted a single static binary they could copy onto bastion hosts.",
    },
    Note {
        key: "website-astro",
        kind: "decision",
        text: "The marketing website was migrated from Next.js to Astro because nearly every page is static content. Lighthouse performance went from 61 to 98 and the Vercel bill dropped by about 70 percent.",
    },
    Note {
        key: "ledger-money-integers",
        kind: "decision",
        text: "All monetary amounts in ledger-api are stored as integer minor units (cents) next to an ISO 4217 currency column. Floats were banned after a 0.01 EUR rounding discrepancy showed up across 12,000 invoices.",
    },
    Note {
        key: "stripe-webhook-idempotency",
        kind: "decision",
        text: "Stripe webhook handlers must be idempotent, keyed on the event id recorded in the processed_events table. Stripe retries deliveries for up to three days, so duplicates are normal rather than exceptional.",
    },
    Note {
        key: "kafka-over-sqs",
        kind: "decision",
        text: "We chose Kafka (Amazon MSK) over SQS for billing events because downstream consumers need to replay history from an offset. SQS deletes messages once acknowledged, which would have made the 2023 revenue backfill impossible.",
    },
    Note {
        key: "pocket-no-redux",
        kind: "decision",
        text: "Pocket dropped Redux in favour of TanStack Query plus a few small Zustand stores. Most of the state was cached server data, and the Redux boilerplate was slowing new contributors down.",
    },
    Note {
        key: "website-separate-repo",
        kind: "decision",
        text: "The website stays in its own repository instead of the platform monorepo. Marketing contractors need write access there, and we did not want them able to touch billing code.",
    },
    Note {
        key: "riverbed-bigquery",
        kind: "decision",
        text: "The analytics warehouse is BigQuery, chosen over Snowflake because the company already had GCP committed-use credits. Revisit the choice if those credits run out in 2026.",
    },
    Note {
        key: "unleash-flags",
        kind: "decision",
        text: "Feature flags in every project use self-hosted Unleash rather than LaunchDarkly. The LaunchDarkly quote was $38k a year, while Unleash runs on one small pod.",
    },
    Note {
        key: "ledger-postgres-15",
        kind: "decision",
        text: "We are staying on Postgres 15 for ledger-api until pg_partman ships a release tested against 16. The upgrade is tracked in LEDGER-412 and Liam owns it.",
    },
    Note {
        key: "opsctl-semver",
        kind: "decision",
        text: "opsctl follows semantic versioning strictly and never removes a flag without one minor release of deprecation warnings. CI scripts in five teams call it, so silent breakage is expensive.",
    },
    Note {
        key: "pocket-min-os",
        kind: "decision",
        text: "Pocket supports iOS 16 and later and Android API 26 and later. Dropping iOS 15 let us adopt the newer widget APIs and cost about 3 percent of users, who were warned in-app first.",
    },
    Note {
        key: "riverbed-raw-retention",
        kind: "decision",
        text: "Raw event files in the riverbed landing bucket are kept for 400 days, then deleted by a lifecycle rule. Legal approved 400 so we can always reprocess a full year plus a month of slack.",
    },
    Note {
        key: "graphql-rejected",
        kind: "decision",
        text: "We rejected GraphQL for the public ledger API and kept REST described with OpenAPI 3.1. Customers integrate from PHP and Java shops where generated REST clients are far easier to support.",
    },
    Note {
        key: "trunk-based",
        kind: "decision",
        text: "All repos use trunk-based development with short-lived branches merged within two days. Long-running release branches caused painful merges in the old mobile codebase.",
    },
    Note {
        key: "website-sanity",
        kind: "decision",
        text: "Website copy is edited in Sanity, not Contentful, because marketing wanted live preview. The Sanity free tier also covers our seat count.",
    },
    Note {
        key: "auth0-choice",
        kind: "decision",
        text: "User authentication for Pocket and the customer dashboard goes through Auth0 instead of a homegrown system. Dmitri insisted on this after the 2022 password-reset token leak.",
    },
    Note {
        key: "tracing-otel",
        kind: "decision",
        text: "All services emit traces through OpenTelemetry to Grafana Tempo instead of Datadog APM. Datadog's per-host pricing made tracing the batch workers unaffordable.",
    },
    Note {
        key: "ledger-soft-delete",
        kind: "decision",
        text: "Invoices are never hard-deleted; ledger-api sets voided_at instead. Auditors need to see every number ever issued, and German tax law requires ten years of retention.",
    },
    Note {
        key: "riverbed-no-spark",
        kind: "decision",
        text: "Riverbed stopped using Spark on EMR because the largest daily job now fits in BigQuery SQL and finishes in under 4 minutes. The idle EMR cluster cost more than the jobs did.",
    },
    Note {
        key: "pocket-no-ota",
        kind: "decision",
        text: "We do not ship over-the-air JavaScript updates (EAS Update) to Pocket. App review once flagged a behaviour change delivered that way, so every change now goes through the stores.",
    },
    Note {
        key: "opsctl-config-file",
        kind: "decision",
        text: "opsctl reads its configuration from ~/.config/opsctl/config.toml, not from environment variables. Env vars kept leaking between shells and pointed people at the wrong cluster.",
    },
    Note {
        key: "api-date-versions",
        kind: "decision",
        text: "The public ledger API is versioned by date in a header (Ledger-Version: 2024-06-01), copying Stripe. URL versions like /v2 would force every customer to migrate at once.",
    },
    Note {
        key: "real-postgres-tests",
        kind: "decision",
        text: "Integration tests run against a real Postgres in Testcontainers, never SQLite or mocks. A JSONB query once passed on SQLite and failed in production, which settled the argument.",
    },
    // ---- bugs and fixes ----
    Note {
        key: "ledger-deadlock",
        kind: "bug",
        text: "ledger-api deadlocked under load when the reconciliation job and the invoice finalizer updated the same rows in different orders. Fixed by always taking row locks on invoices in ascending id order.",
    },
    Note {
        key: "pg-connection-exhaustion",
        kind: "bug",
        text: "Postgres hit max_connections (200) during the month-end billing run because each worker opened its own pool of 20. Fixed by routing workers through PgBouncer in transaction mode on port 6432.",
    },
    Note {
        key: "pocket-keyboard-crash",
        kind: "bug",
        text: "Pocket crashed on Android 13 Samsung devices when the keyboard opened on the login screen. The cause was KeyboardAvoidingView with behavior set to height inside a ScrollView; react-native-keyboard-controller fixed it.",
    },
    Note {
        key: "pocket-stale-push-tokens",
        kind: "bug",
        text: "iOS push notifications silently stopped after users reinstalled the app because the old APNs token stayed registered. We now delete tokens whenever APNs answers 410 Unregistered.",
    },
    Note {
        key: "riverbed-dst-double-count",
        kind: "bug",
        text: "The daily_revenue dbt model double-counted orders placed between 23:00 and 00:00 UTC around daylight saving changes. The partition filter used local time; it now casts to UTC before truncating to a date.",
    },
    Note {
        key: "airflow-zombie-tasks",
        kind: "bug",
        text: "Airflow killed riverbed tasks as zombies during long BigQuery loads. Raising scheduler_zombie_task_threshold from 300 to 1800 seconds stopped it. The default had been fine until the events table passed 2 TB.",
    },
    Note {
        key: "opsctl-windows-space",
        kind: "bug",
        text: "opsctl failed on Windows when the home directory contained a space, as in C:\\Users\\Ana Silva. Paths were built by string concatenation; switching to PathBuf::join fixed it in v1.8.2.",
    },
    Note {
        key: "website-pricing-flicker",
        kind: "bug",
        text: "The website pricing toggle flickered and reset on load because of a hydration mismatch: the server rendered yearly prices while the client read monthly from localStorage. Rendering it as an Astro island with client:only fixed it.",
    },
    Note {
        key: "stripe-signature-staging",
        kind: "bug",
        text: "Stripe webhook signature checks failed in staging after we added a JSON body-parser middleware. Verification needs the raw request bytes, so the webhook route now skips the parser.",
    },
    Note {
        key: "ledger-tax-rounding",
        kind: "bug",
        text: "Invoices with three or more taxed line items sometimes came out one cent off from Stripe. We rounded tax per line while Stripe rounds the total; ledger-api v2.14 computes tax on the subtotal instead.",
    },
    Note {
        key: "kafka-rebalance-lag",
        kind: "bug",
        text: "The billing-events consumer fell hours behind after a deploy because a slow batch exceeded max.poll.interval.ms (5 minutes), causing endless rebalances. Lowering max.poll.records to 50 fixed it.",
    },
    Note {
        key: "pocket-feed-memory",
        kind: "bug",
        text: "Pocket's feed screen grew to 1.2 GB of memory on older iPhones after a long scroll. Full-resolution images were decoded for thumbnails; expo-image with explicit sizes fixed it.",
    },
    Note {
        key: "ci-flaky-midnight",
        kind: "bug",
        text: "test_invoice_due_dates was flaky in CI around midnight UTC because it compared against the wall clock. It now injects a fixed time through the Clock trait. Any test that depends on the current date should take a Clock.",
    },
    Note {
        key: "bigquery-update-quota",
        kind: "bug",
        text: "Riverbed backfills failed with 'Exceeded rate limits: too many table update operations' when partitions were loaded one at a time. Batching each day into a single MERGE fixed it.",
    },
    Note {
        key: "ledger-index-lock",
        kind: "bug",
        text: "A migration adding an index on the invoices table blocked writes for 11 minutes in production. Index creation must use CREATE INDEX CONCURRENTLY in a migration marked non-transactional.",
    },
    Note {
        key: "ledger-external-id-slow",
        kind: "bug",
        text: "GET /customers?external_id= took 8 seconds because it filtered on metadata->>'external_id' without an index. An expression index on that key brought p95 down to 40 ms.",
    },
    Note {
        key: "website-form-spam",
        kind: "bug",
        text: "The website contact form got thousands of spam submissions a day. Cloudflare Turnstile plus a hidden honeypot field cut it to a handful. Real submissions still go to the #website-leads Slack channel.",
    },
    Note {
        key: "opsctl-sso-html",
        kind: "bug",
        text: "opsctl failed with a confusing 'invalid character <' error when the SSO token expired, because the proxy returned an HTML login page. It now detects HTML responses and tells the user to run opsctl login.",
    },
    Note {
        key: "pocket-android-deeplinks",
        kind: "bug",
        text: "Android deep links opened the browser instead of Pocket because assetlinks.json was served through a redirect from the apex domain. It must be served directly at /.well-known/assetlinks.json with a 200.",
    },
    Note {
        key: "ledger-worker-oom",
        kind: "bug",
        text: "ledger-worker pods were OOMKilled every night during PDF invoice generation. Chromium was launched per invoice; reusing one browser with a page pool and raising the memory limit to 1Gi fixed it.",
    },
    Note {
        key: "website-stale-cache",
        kind: "bug",
        text: "After publishing in Sanity, the website kept serving old copy for up to an hour because the CDN cached HTML with s-maxage=3600. A Sanity webhook now triggers on-demand revalidation.",
    },
    Note {
        key: "riverbed-new-field-crash",
        kind: "bug",
        text: "The riverbed ingest job crashed when the mobile team added a field to the analytics event payload. Loads now use ALLOW_FIELD_ADDITION and unknown fields land in a raw JSON column.",
    },
    Note {
        key: "ledger-jpy-factor",
        kind: "bug",
        text: "Invoices in JPY were off by a factor of 100 because the code assumed two decimal places for every currency. Minor-unit exponents now come from the ISO 4217 table.",
    },
    Note {
        key: "testflight-processing",
        kind: "bug",
        text: "TestFlight builds sat in Processing for days because Info.plist lacked NSCameraUsageDescription after the barcode scanner was added. App Store Connect fails silently, so app.config.ts now always sets that key.",
    },
    Note {
        key: "staging-cert-expiry",
        kind: "bug",
        text: "The staging API went down when its Let's Encrypt certificate expired, because cert-manager lost its DNS-01 credentials in a secret rotation. Certificate expiry alerts now fire 14 days ahead.",
    },
    Note {
        key: "ci-cache-openssl",
        kind: "bug",
        text: "GitHub Actions builds of opsctl produced binaries linked against the wrong OpenSSL after a cache key collision between ubuntu-22.04 and 24.04 runners. Cache keys now include the runner image version.",
    },
    Note {
        key: "ledger-duplicate-emails",
        kind: "bug",
        text: "Customers received duplicate invoice emails when the SendGrid call timed out and the job retried. We now record a send id before calling SendGrid and check it on retry.",
    },
    Note {
        key: "riverbed-null-customers",
        kind: "bug",
        text: "The dbt unique test on dim_customers failed nightly because guest checkouts have a NULL customer_id. Guest orders are now filtered out in the stg_orders staging model.",
    },
    // ---- commands ----
    Note {
        key: "ledger-deploy",
        kind: "command",
        text: "Deploy ledger-api with `make deploy ENV=prod` from the ledger repo; it builds the image, pushes it to ECR and runs helm upgrade. Always run it with ENV=staging first and wait for the smoke tests to pass.",
    },
    Note {
        key: "website-deploy",
        kind: "command",
        text: "The website deploys automatically when main is pushed, since Vercel builds every commit. For a manual deploy, run `vercel --prod` from the website repo root.",
    },
    Note {
        key: "pocket-ios-release",
        kind: "command",
        text: "Ship an iOS build of Pocket with `eas build -p ios --profile production`, then `eas submit -p ios`. Bump the version in app.config.ts first or App Store Connect rejects the upload.",
    },
    Note {
        key: "pocket-android-release",
        kind: "command",
        text: "For Android, run `eas build -p android --profile production` and `eas submit -p android --track internal`. Promote from internal to production in the Play Console once QA signs off.",
    },
    Note {
        key: "ledger-migrate",
        kind: "command",
        text: "Apply ledger-api database migrations with `goose -dir migrations postgres \"$DATABASE_URL\" up`, taking the URL from the 1Password item ledger-prod-db. Production migrations run through the migrate job in CI, never from a laptop unless Liam approves.",
    },
    Note {
        key: "ledger-tests",
        kind: "command",
        text: "Run the ledger-api test suite with `make test`, which starts Postgres 15 and Kafka in Docker through testcontainers. For one package use `go test ./internal/billing -run TestProration`.",
    },
    Note {
        key: "riverbed-backfill",
        kind: "command",
        text: "Backfill a riverbed DAG with `airflow dags backfill -s 2024-01-01 -e 2024-01-31 daily_revenue` from the scheduler pod. Add --reset-dagruns if runs already exist for those dates, or they are skipped.",
    },
    Note {
        key: "dbt-build-downstream",
        kind: "command",
        text: "Run one dbt model and everything downstream of it with `dbt build --select daily_revenue+ --target dev`. The dev target writes to your personal dataset, dbt_<username>.",
    },
    Note {
        key: "opsctl-release",
        kind: "command",
        text: "Release opsctl by pushing a tag: `git tag v1.9.0 && git push --tags`. cargo-dist then builds binaries for macOS, Linux and Windows and updates the Homebrew formula in acme/homebrew-tap.",
    },
    Note {
        key: "opsctl-install",
        kind: "command",
        text: "Install opsctl with `brew install acme/tap/opsctl` on macOS, or `curl -fsSL https://get.acme.dev/opsctl | sh` on Linux. Run `opsctl login` afterwards to fetch an SSO token.",
    },
    Note {
        key: "ledger-logs",
        kind: "command",
        text: "Tail ledger-api logs in production with `kubectl -n ledger logs -f deploy/ledger-api --context prod-eu`. To follow all pods at once, use `stern ledger-api -n ledger`.",
    },
    Note {
        key: "ledger-db-readonly",
        kind: "command",
        text: "To query the production ledger database safely, run `opsctl db connect ledger --readonly`. It opens a tunnel through the bastion to the read replica on port 5433.",
    },
    Note {
        key: "ledger-rollback",
        kind: "command",
        text: "Roll back ledger-api with `helm rollback ledger-api 0 -n ledger`, where 0 means the previous revision. Check `helm history ledger-api -n ledger` first to see what you are returning to.",
    },
    Note {
        key: "pocket-run-local",
        kind: "command",
        text: "Start Pocket locally with `pnpm install` and then `npx expo start --dev-client`. After adding a native module, rebuild the dev client with `eas build --profile development`.",
    },
    Note {
        key: "website-run-local",
        kind: "command",
        text: "Run the website locally with `pnpm dev`; it serves on port 4321. To preview unpublished Sanity drafts, set SANITY_PREVIEW_TOKEN in .env.local.",
    },
    Note {
        key: "kafka-tail-billing",
        kind: "command",
        text: "Print the last ten billing events with `kcat -b msk-prod:9098 -t billing.events.v2 -C -o -10 -e`. It needs the AWS profile msk-reader. Use `-o beginning` instead to read from the start of retention.",
    },
    Note {
        key: "terraform-apply",
        kind: "command",
        text: "Infrastructure changes go through Terraform in the infra repo. Run `terraform plan -out plan.tfplan` in the environment folder, paste the plan into the PR, and `terraform apply plan.tfplan` after approval.",
    },
    Note {
        key: "secrets-rotate",
        kind: "command",
        text: "Rotate a service secret with `opsctl secrets rotate <service> <key>`, which writes to AWS Secrets Manager and restarts the deployment. Stripe keys must be rolled in the Stripe dashboard first.",
    },
    Note {
        key: "pocket-e2e",
        kind: "command",
        text: "Run Pocket end-to-end tests with `maestro test .maestro/` against a running simulator. The login flow needs TEST_USER_PASSWORD exported from 1Password. The flows also run in CI on every PR to main.",
    },
    Note {
        key: "airflow-local",
        kind: "command",
        text: "Bring up a local Airflow for riverbed with `astro dev start`; the UI is at localhost:8080 with admin/admin. DAG files hot-reload from the dags/ folder.",
    },
    Note {
        key: "ledger-seed",
        kind: "command",
        text: "Load sample data into a local ledger database with `make seed`. It creates 50 customers with Stripe test-mode ids and a year of invoices.",
    },
    Note {
        key: "opsctl-flamegraph",
        kind: "command",
        text: "Profile opsctl with `cargo flamegraph --bin opsctl -- status --all`. On macOS it needs sudo because it relies on dtrace. Set CARGO_PROFILE_RELEASE_DEBUG=true first so the graph has symbols.",
    },
    Note {
        key: "ledger-slow-queries",
        kind: "command",
        text: "Find the slowest ledger queries with `select query, mean_exec_time from pg_stat_statements order by mean_exec_time desc limit 20` on the read replica. The statistics are reset every Sunday, so the numbers cover at most a week.",
    },
    Note {
        key: "stripe-listen",
        kind: "command",
        text: "Forward Stripe test webhooks to a local ledger-api with `stripe listen --forward-to localhost:8080/webhooks/stripe`. Copy the whsec_ signing secret it prints into STRIPE_WEBHOOK_SECRET.",
    },
    Note {
        key: "docker-prune",
        kind: "command",
        text: "When the laptop disk fills up, `docker system prune -a --volumes` reclaims the testcontainers images. Expect to re-pull the Postgres and Kafka images afterwards.",
    },
    Note {
        key: "website-lighthouse",
        kind: "command",
        text: "Check the website performance budget with `pnpm lhci autorun`. CI fails the PR if the performance score drops below 90. The budget thresholds live in lighthouserc.json.",
    },
    Note {
        key: "pocket-sourcemaps",
        kind: "command",
        text: "Upload Pocket source maps to Sentry with `npx sentry-expo-upload-sourcemaps dist` after every EAS build or update. Without them, stack traces show minified names.",
    },
    Note {
        key: "dbt-docs-publish",
        kind: "command",
        text: "Regenerate the riverbed data catalog with `dbt docs generate`, then run `make docs-publish` to upload it to the internal docs bucket. The catalog is also rebuilt automatically every night after the dbt run.",
    },
    // ---- people ----
    Note {
        key: "priya-nair",
        kind: "person",
        text: "Priya Nair owns the billing reconciliation job that matches Stripe payouts against ledger invoices. She prefers Slack DMs over email and works from Bangalore on IST.",
    },
    Note {
        key: "ravi-shah",
        kind: "person",
        text: "Ravi Shah is tech lead for ledger-api and approves every schema change to the invoices tables. Tag him on any PR that touches the migrations folder.",
    },
    Note {
        key: "liam-obrien",
        kind: "person",
        text: "Liam O'Brien is the DBA for all Postgres clusters. He must approve production migrations run outside CI, and he takes the pages for replica lag.",
    },
    Note {
        key: "tomas-ortega",
        kind: "person",
        text: "Tomás Ortega leads the Pocket mobile team and decides which release goes to the stores. He is in Madrid and does not read Slack after 19:00 CET.",
    },
    Note {
        key: "sofia-rossi",
        kind: "person",
        text: "Sofia Rossi does QA for Pocket and signs off builds before they are promoted to production. Send her TestFlight and Play internal links in #pocket-qa.",
    },
    Note {
        key: "mei-chen",
        kind: "person",
        text: "Mei Chen runs the data platform behind riverbed: Airflow, dbt and BigQuery. Ask her before adding a new DAG or changing a shared dbt model.",
    },
    Note {
        key: "kwame-mensah",
        kind: "person",
        text: "Kwame Mensah is the finance analyst who consumes the daily_revenue and mrr models. He usually spots revenue dashboard discrepancies first and files them on the DATA board.",
    },
    Note {
        key: "jonas-weber",
        kind: "person",
        text: "Jonas Weber is the SRE who owns the Kubernetes clusters, Terraform and the PagerDuty schedules. He prefers issues filed in the INFRA Jira project over direct pings.",
    },
    Note {
        key: "aisha-bello",
        kind: "person",
        text: "Aisha Bello designs and maintains the marketing website and owns the Sanity schema. She wants screenshots in any PR that changes layout.",
    },
    Note {
        key: "dmitri-volkov",
        kind: "person",
        text: "Dmitri Volkov is the security lead, and anything touching authentication, secrets or PII needs his review. He also runs the quarterly access review.",
    },
    Note {
        key: "hannah-lee",
        kind: "person",
        text: "Hannah Lee is the product manager for billing and sets priorities for the ledger backlog. She writes specs in Notion and wants estimates in days, not story points.",
    },
    Note {
        key: "omar-haddad",
        kind: "person",
        text: "Omar Haddad started opsctl and still reviews any change to its plugin interface. He is in Toronto and best reached by email.",
    },
    Note {
        key: "grace-kim",
        kind: "person",
        text: "Grace Kim is the finance controller who signs off on any change to how invoices or tax are calculated. Monthly close is the first three business days, so avoid deploying billing changes then.",
    },
    Note {
        key: "yuki-tanaka",
        kind: "person",
        text: "Yuki Tanaka is the Android specialist on the Pocket team and knows the Gradle and native module setup. iOS questions go to Tomás instead.",
    },
    Note {
        key: "ben-carter",
        kind: "person",
        text: "Ben Carter leads customer support and forwards billing complaints from Zendesk. He needs plain-language explanations he can paste straight to customers.",
    },
    Note {
        key: "nadia-petrova",
        kind: "person",
        text: "Nadia Petrova is a data engineer on riverbed who wrote the ingest for mobile analytics events. She is the person for event schema questions.",
    },
    Note {
        key: "carlos-mendez",
        kind: "person",
        text: "Carlos Mendez is a contractor who builds landing pages for the website. His contract ends in December and he only has access to the website repo. Review his PRs within a day because he works to fixed deadlines.",
    },
    Note {
        key: "sam-rivera",
        kind: "person",
        text: "Sam Rivera is the backup on-call for ledger-api when Ravi is away. Sam is new and prefers written runbooks over calls.",
    },
    Note {
        key: "elena-fischer",
        kind: "person",
        text: "Elena Fischer from legal decides data retention periods and approves any new third-party data processor. Reach her through the #legal-requests channel.",
    },
    Note {
        key: "marcus-johnson",
        kind: "person",
        text: "The developer's manager is Marcus Johnson, with one-on-ones on Tuesdays at 10:00. He wants a short written progress summary every Friday.",
    },
    Note {
        key: "rachel-adeyemi",
        kind: "person",
        text: "Rachel Adeyemi is the Account Holder for the Apple Developer account and the only person who can accept new agreements. When App Store Connect blocks uploads over an unsigned agreement, ask her.",
    },
    Note {
        key: "laura-brandt",
        kind: "person",
        text: "Laura Brandt is our account manager at Stripe (laura.brandt@stripe.com). Escalate payout holds through her rather than general Stripe support.",
    },
    Note {
        key: "peter-novak",
        kind: "person",
        text: "Peter Novak owns the customer dashboard frontend (React and Vite) that reads from ledger-api. He wants API changes announced a sprint ahead.",
    },
    Note {
        key: "fatima-zahra",
        kind: "person",
        text: "Fatima Zahra is the product designer for Pocket and owns the Figma library. Icons and colours must come from her tokens file, never hard-coded.",
    },
    Note {
        key: "ivan-horvat",
        kind: "person",
        text: "Ivan Horvat set up the MSK Kafka cluster and knows the topic ACLs. He moved to the platform team but still answers Kafka questions on Thursdays.",
    },
    Note {
        key: "lena-schulz",
        kind: "person",
        text: "Lena Schulz is the summer intern building opsctl shell completions until August. She asked for detailed review feedback, so explain suggestions rather than just approving.",
    },
    Note {
        key: "george-adams",
        kind: "person",
        text: "George Adams is the CTO and makes the final call on any vendor spend over $10k a year. He reads the #eng-decisions channel, not DMs. Send him a one-page summary, not a slide deck.",
    },
    Note {
        key: "zoe-martin",
        kind: "person",
        text: "Zoe Martin runs growth marketing and requests A/B tests on the website. Experiments are set up in Unleash with her as the owner. She reports results at the Monday growth sync.",
    },
    // ---- preferences ----
    Note {
        key: "pref-commit-messages",
        kind: "preference",
        text: "The user wants commit messages in the imperative mood with a subject under 72 characters. No emojis and no conventional-commit prefixes like feat: or fix:.",
    },
    Note {
        key: "pref-rust-errors",
        kind: "preference",
        text: "In Rust the user wants thiserror for library error types and anyhow only in binaries. Never call unwrap outside tests. Error messages start lowercase and have no trailing period.",
    },
    Note {
        key: "pref-go-errors",
        kind: "preference",
        text: "In Go the user wants every error wrapped with fmt.Errorf and %w plus context about what was being attempted. No naked returns. Sentinel errors are compared with errors.Is, never by string.",
    },
    Note {
        key: "pref-ts-style",
        kind: "preference",
        text: "In TypeScript the user prefers type aliases over interfaces, no default exports, and named function declarations over arrow-function constants at module level. Enums are replaced by unions of string literals.",
    },
    Note {
        key: "pref-test-first",
        kind: "preference",
        text: "For bug fixes the user wants a failing test written first, and that test committed together with the fix in the same commit. The test should be named after the behaviour that was broken.",
    },
    Note {
        key: "pref-short-answers",
        kind: "preference",
        text: "The user wants short answers: lead with the answer, then at most a few bullets. No preamble and no restating the question.",
    },
    Note {
        key: "pref-ask-before-deps",
        kind: "preference",
        text: "Ask before adding any new dependency, because the user checks its license and maintenance activity first. Prefer the standard library when it is reasonable.",
    },
    Note {
        key: "pref-neovim",
        kind: "preference",
        text: "The user works in Neovim with LazyVim and runs tests from a tmux split. Suggest terminal commands rather than VS Code steps.",
    },
    Note {
        key: "pref-pnpm",
        kind: "preference",
        text: "Use pnpm in every JavaScript project, never npm or yarn. Lockfiles produced by other tools get rejected in review without discussion.",
    },
    Note {
        key: "pref-sql-style",
        kind: "preference",
        text: "SQL should use lowercase keywords, leading commas and one column per line. Table aliases must be meaningful words, not single letters.",
    },
    Note {
        key: "pref-small-prs",
        kind: "preference",
        text: "The user prefers pull requests under 400 changed lines and splits larger work into stacked PRs with git-branchless. Refactors go in their own PR, separate from behaviour changes.",
    },
    Note {
        key: "pref-no-force-push",
        kind: "preference",
        text: "Never force-push or rebase a shared branch. The user only rewrites history on personal branches that nobody else has pulled.",
    },
    Note {
        key: "pref-british-spelling",
        kind: "preference",
        text: "Documentation and user-facing copy use British spelling such as colour and organisation, while code identifiers use American spelling. Doc comments in code count as documentation.",
    },
    Note {
        key: "pref-comments-why",
        kind: "preference",
        text: "Comments should explain why the code is the way it is, not what it does. The user deletes comments that merely restate the code. Links to the issue or incident that forced an odd choice are welcome.",
    },
    Note {
        key: "pref-working-hours",
        kind: "preference",
        text: "The user is in Lisbon and usually works from 09:30 to 18:00 local time. Schedule nothing before 09:30. Lisbon switches between WET and WEST, so check the offset when converting from UTC.",
    },
    Note {
        key: "pref-structured-logs",
        kind: "preference",
        text: "Logs should be structured JSON with snake_case keys. The user dislikes string-interpolated log messages because they are hard to query in Loki.",
    },
    Note {
        key: "pref-adrs",
        kind: "preference",
        text: "Design notes go in docs/adr/ as numbered ADRs written in Markdown and reviewed like code, not in Notion or Confluence. Each ADR records context, decision and consequences; superseded ones are marked, not deleted.",
    },
    Note {
        key: "pref-python-tooling",
        kind: "preference",
        text: "For Python scripts the user uses uv and ruff, type hints everywhere, and mypy --strict in CI. Scripts start with an inline metadata block so they run with `uv run`.",
    },
    Note {
        key: "pref-options-first",
        kind: "preference",
        text: "When proposing a design, the user wants two or three options with trade-offs before any recommendation, not a single answer. The recommendation comes last, with the main risk of choosing it.",
    },
    Note {
        key: "pref-test-names",
        kind: "preference",
        text: "Test names should read as sentences describing behaviour, like rejects_expired_tokens, rather than test_1 or the function name. Related cases are grouped in a module named after the unit under test.",
    },
    Note {
        key: "pref-fakes-not-mocks",
        kind: "preference",
        text: "The user avoids mocking libraries and prefers small hand-written fakes behind narrow interfaces. Mocks that assert on call order kept breaking during refactors.",
    },
    Note {
        key: "pref-renovate",
        kind: "preference",
        text: "Pin exact versions in application lockfiles and let Renovate open grouped update PRs every Monday. Major version bumps get their own PR and someone reads the changelog before merging.",
    },
    Note {
        key: "pref-async-updates",
        kind: "preference",
        text: "The user prefers async written updates over meetings and declines calls that have no agenda. A short Slack thread or a Loom recording beats a 30-minute call.",
    },
    Note {
        key: "pref-review-tone",
        kind: "preference",
        text: "In code review the user phrases suggestions as questions and labels nits with 'nit:' so they can be skipped. Blocking concerns should be stated plainly and marked as blocking.",
    },
    Note {
        key: "pref-fish-shell",
        kind: "preference",
        text: "The user's shell is fish, so bash-only syntax such as `export X=1` or heredocs needs translating. Prefer `env X=1 cmd` forms.",
    },
    Note {
        key: "pref-actionable-errors",
        kind: "preference",
        text: "User-facing error messages must say what to do next, like telling the user to run opsctl login, not just what failed. Include the exact command or setting that fixes it where possible.",
    },
    Note {
        key: "pref-flag-removal",
        kind: "preference",
        text: "Every feature flag needs a removal ticket, created on the same day the flag is added, so stale flags do not pile up.",
    },
    Note {
        key: "pref-line-width",
        kind: "preference",
        text: "Formatting line width is 100 for Rust and Python and 120 for TypeScript; Go is left entirely to gofmt. Do not reflow existing files just to match; only format the lines you touch.",
    },
    // ---- architecture ----
    Note {
        key: "ledger-overview",
        kind: "architecture",
        text: "ledger-api is a Go 1.22 service on EKS that serves REST on port 8080 and writes to the Postgres 15 cluster ledger-prod. It publishes every invoice state change to the Kafka topic billing.events.v2.",
    },
    Note {
        key: "ledger-worker",
        kind: "architecture",
        text: "ledger-worker is a separate deployment that consumes billing.events.v2 to render invoice PDFs with headless Chromium, send emails through SendGrid and push tax data to Avalara. It autoscales on consumer lag with KEDA, between 2 and 10 replicas.",
    },
    Note {
        key: "reconciliation-cronjob",
        kind: "architecture",
        text: "Reconciliation is a Kubernetes CronJob that runs at 02:00 UTC, pulls the previous day's Stripe balance transactions and matches them to ledger payments. Mismatches go to the recon_exceptions table and a Slack alert.",
    },
    Note {
        key: "pocket-stack",
        kind: "architecture",
        text: "Pocket is an Expo SDK 51 React Native app written in TypeScript. It talks only to pocket-gateway, a mobile backend-for-frontend that aggregates ledger-api and profile-service behind GraphQL.",
    },
    Note {
        key: "pocket-gateway",
        kind: "architecture",
        text: "pocket-gateway is a Node 20 Fastify service on port 4000 running Apollo Server. It caches profile lookups in Redis for 60 seconds and rejects requests without a valid Auth0 JWT.",
    },
    Note {
        key: "riverbed-flow",
        kind: "architecture",
        text: "Riverbed receives mobile analytics events from Segment into a GCS landing bucket, loads them hourly into BigQuery raw tables with Airflow, and builds marts with dbt nightly at 03:00 UTC.",
    },
    Note {
        key: "riverbed-billing-cdc",
        kind: "architecture",
        text: "Billing data reaches riverbed through Debezium CDC from the ledger Postgres replica into Kafka, then a Kafka Connect BigQuery sink. End-to-end latency is usually under five minutes.",
    },
    Note {
        key: "opsctl-design",
        kind: "architecture",
        text: "opsctl is a Rust CLI built on clap and tokio whose subcommands call the internal platform API at platform.acme.internal. Plugins are separate executables named opsctl-<name> found on PATH.",
    },
    Note {
        key: "website-stack",
        kind: "architecture",
        text: "The website is an Astro 4 site on Vercel that pulls content from Sanity at build time. Only the pricing page fetches live plan prices at runtime, from the public /plans endpoint of ledger-api.",
    },
    Note {
        key: "auth-architecture",
        kind: "architecture",
        text: "Auth0 issues JWTs for Pocket and the dashboard, and services validate them against the Auth0 JWKS endpoint. Service-to-service calls use mTLS through Linkerd instead.",
    },
    Note {
        key: "k8s-clusters",
        kind: "architecture",
        text: "There are two EKS clusters, prod-eu in eu-west-1 and staging-eu, both managed by Terraform in the infra repo. Each project gets its own namespace: ledger, pocket, riverbed and platform. There is no shared dev cluster; developers use kind locally.",
    },
    Note {
        key: "secrets-flow",
        kind: "architecture",
        text: "Secrets live in AWS Secrets Manager and External Secrets Operator syncs them into Kubernetes every 5 minutes. Local development secrets come from 1Password via `op run`. Never bake secrets into container images or commit them in .env files.",
    },
    Note {
        key: "ledger-postgres-topology",
        kind: "architecture",
        text: "The ledger Postgres is a primary with one streaming read replica in another AZ, fronted by PgBouncer. Backups are daily snapshots plus WAL archiving to S3, giving 35 days of point-in-time recovery.",
    },
    Note {
        key: "kafka-conventions",
        kind: "architecture",
        text: "Kafka topics are named domain.entity.vN, like billing.events.v2, with 12 partitions keyed by customer_id so each customer's events stay in order. Retention is 7 days, except billing topics which keep 30.",
    },
    Note {
        key: "observability-stack",
        kind: "architecture",
        text: "Metrics go to Prometheus and Grafana Mimir, logs to Loki and traces to Tempo, all viewed in Grafana at grafana.acme.internal. Alerts route through Alertmanager to PagerDuty.",
    },
    Note {
        key: "ci-runners",
        kind: "architecture",
        text: "CI runs on GitHub Actions. The ledger and opsctl repos use self-hosted runners in the staging cluster via actions-runner-controller, while the website and Pocket use GitHub-hosted runners.",
    },
    Note {
        key: "profile-service",
        kind: "architecture",
        text: "profile-service (Kotlin, Spring Boot 3) stores user profiles and avatars, with avatars in S3 behind CloudFront. It owns the users table in its own Postgres database, separate from ledger.",
    },
    Note {
        key: "email-templates",
        kind: "architecture",
        text: "Transactional email goes through SendGrid, with templates kept in the ledger repo under templates/email. Marketing email is separate, in Customer.io, and belongs to Zoe's team.",
    },
    Note {
        key: "ledger-tenancy",
        kind: "architecture",
        text: "ledger-api is multi-tenant: every table has a tenant_id column enforced by Postgres row-level security. The app sets app.tenant_id at the start of each transaction. Every new table needs the tenant policy in its migration or CI fails.",
    },
    Note {
        key: "pocket-offline-drafts",
        kind: "architecture",
        text: "Pocket keeps drafts offline in SQLite via expo-sqlite and syncs them when connectivity returns. Conflicts resolve last-writer-wins on updated_at. Attachments upload only after the draft itself has synced.",
    },
    Note {
        key: "riverbed-dbt-layers",
        kind: "architecture",
        text: "Riverbed's dbt project has three layers: staging models (stg_*), intermediate models (int_*) and marts (fct_* and dim_*). Only marts are exposed to Looker. Analysts should never query staging models directly.",
    },
    Note {
        key: "tax-avalara",
        kind: "architecture",
        text: "Tax is calculated by Avalara AvaTax when an invoice is finalized, and ledger-api caches rates per address for 24 hours. If Avalara is down, invoices wait in pending_tax instead of being issued without tax.",
    },
    Note {
        key: "dns-edge",
        kind: "architecture",
        text: "DNS for acme.dev is hosted in Cloudflare. The website sits behind Cloudflare and Vercel, while api.acme.dev points at an AWS load balancer in front of ledger-api. Record changes go through Terraform, not the Cloudflare dashboard.",
    },
    Note {
        key: "flags-delivery",
        kind: "architecture",
        text: "Unleash runs in the platform namespace and server SDKs poll it every 15 seconds. Pocket never talks to Unleash directly; it gets flag values through pocket-gateway. If the gateway cannot reach Unleash, it serves the last cached values.",
    },
    Note {
        key: "opsctl-login-flow",
        kind: "architecture",
        text: "opsctl login runs the OAuth device-code flow against Okta and stores the token in the OS keychain via the keyring crate. Tokens last 8 hours. On Linux servers without a keychain it falls back to an encrypted file under ~/.local/share/opsctl.",
    },
    Note {
        key: "invoice-pdf-storage",
        kind: "architecture",
        text: "Generated invoice PDFs are stored in the S3 bucket acme-ledger-invoices with object lock in compliance mode for 10 years. Customers download them through presigned URLs valid for 15 minutes.",
    },
    Note {
        key: "invoice-search",
        kind: "architecture",
        text: "Invoice and customer search in the dashboard is served by OpenSearch, fed from billing.events.v2 by a small indexer service called ledger-indexer. A full reindex takes about 40 minutes and is started with `opsctl search reindex ledger`.",
    },
    Note {
        key: "api-rate-limits",
        kind: "architecture",
        text: "The public ledger API allows 100 requests per second per API key using a token bucket in Redis. Limits are enforced at the Envoy gateway, not inside ledger-api.",
    },
];

/// The queries, interleaved across the kinds of their targets.
pub const QUERIES: &[Query] = &[
    Query {
        text: "Can I push the billing service live on a Friday afternoon?",
        targets: &["deploy-freeze"],
    },
    Query {
        text: "Two billing processes end up waiting on each other forever — seen that before?",
        targets: &["ledger-deadlock"],
    },
    Query { text: "How do I ship the billing backend to production?", targets: &["ledger-deploy"] },
    Query {
        text: "Who do I talk to when processor payments and our bills don't line up?",
        targets: &["priya-nair"],
    },
    Query {
        text: "How should I word the summary line when saving work to git?",
        targets: &["pref-commit-messages"],
    },
    Query {
        text: "Which port does the billing HTTP backend listen on?",
        targets: &["ledger-overview"],
    },
    Query {
        text: "Why don't bill identifiers just count upward anymore?",
        targets: &["ledger-uuidv7"],
    },
    Query {
        text: "Database refusing new clients during the monthly invoicing crunch — what was the remedy?",
        targets: &["pg-connection-exhaustion"],
    },
    Query { text: "How do I put the promo site live by hand?", targets: &["website-deploy"] },
    Query {
        text: "Whose approval do I need before altering billing table structure?",
        targets: &["ravi-shah"],
    },
    Query {
        text: "How should failures be modelled in our Rust crates?",
        targets: &["pref-rust-errors"],
    },
    Query {
        text: "Which component produces bill documents and mails them out?",
        targets: &["ledger-worker"],
    },
    Query {
        text: "Can a price be a double-precision column in the billing database?",
        targets: &["ledger-money-integers"],
    },
    Query {
        text: "The phone app dies on some Galaxy handsets while typing a password — why?",
        targets: &["pocket-keyboard-crash"],
    },
    Query {
        text: "Remind me how we get a new iPhone release of the mobile product submitted.",
        targets: &["pocket-ios-release"],
    },
    Query {
        text: "Who gets paged when the read copy of the database falls behind?",
        targets: &["liam-obrien"],
    },
    Query {
        text: "How should Go code pass failures up the call stack?",
        targets: &["pref-go-errors"],
    },
    Query {
        text: "At what hour does the payout-matching task kick off?",
        targets: &["reconciliation-cronjob"],
    },
    Query {
        text: "The payment processor sent the same notification twice — is that a problem?",
        targets: &["stripe-webhook-idempotency"],
    },
    Query {
        text: "After deleting and re-adding the app, iPhones get no alerts — why?",
        targets: &["pocket-stale-push-tokens"],
    },
    Query {
        text: "What are the steps to publish the mobile app on Google's storefront?",
        targets: &["pocket-android-release"],
    },
    Query {
        text: "Who has the final say on which phone app version ships to Apple and Google?",
        targets: &["tomas-ortega"],
    },
    Query {
        text: "When repairing a defect, in what order should the work happen?",
        targets: &["pref-test-first"],
    },
    Query {
        text: "What framework is the phone client built on, and what server does it call?",
        targets: &["pocket-stack"],
    },
    Query {
        text: "Why did we go with a replayable log rather than AWS's plain message queue for payments?",
        targets: &["kafka-over-sqs"],
    },
    Query {
        text: "Sales totals came out inflated the week the clocks moved forward — why?",
        targets: &["riverbed-dst-double-count"],
    },
    Query {
        text: "How do I bring the billing DB schema up to date?",
        targets: &["ledger-migrate"],
    },
    Query {
        text: "Who gives the green light on quality for a phone app candidate?",
        targets: &["sofia-rossi"],
    },
    Query {
        text: "How long should my replies to the developer be?",
        targets: &["pref-short-answers"],
    },
    Query {
        text: "How stale can account details shown in the phone app be?",
        targets: &["pocket-gateway"],
    },
    Query {
        text: "What handles state in the phone app, and why not the classic global store library?",
        targets: &["pocket-no-redux"],
    },
    Query {
        text: "Our ops tool breaks for a Windows colleague whose profile folder name has a blank.",
        targets: &["opsctl-windows-space"],
    },
    Query {
        text: "Command to execute only the prorating checks in the billing codebase?",
        targets: &["ledger-tests"],
    },
    Query {
        text: "Who should I check with before scheduling a new workflow in the warehouse orchestrator?",
        targets: &["mei-chen"],
    },
    Query {
        text: "Can I just pull in a new package from crates.io?",
        targets: &["pref-ask-before-deps"],
    },
    Query {
        text: "How does tracking data travel from the app into the warehouse?",
        targets: &["riverbed-flow"],
    },
    Query {
        text: "Why did the promo site leave the React framework it started on?",
        targets: &["website-astro"],
    },
    Query {
        text: "The plan-period selector on the promo site blinks and reverts right after opening.",
        targets: &["website-pricing-flicker"],
    },
    Query {
        text: "How do I recompute a historical date range for one of the workflow graphs?",
        targets: &["riverbed-backfill"],
    },
    Query {
        text: "Who tends to catch it when the money charts look off?",
        targets: &["kwame-mensah"],
    },
    Query {
        text: "Which JS package manager should I install modules with?",
        targets: &["pref-pnpm"],
    },
    Query {
        text: "How do payment records end up on the analytics side, and how fresh are they?",
        targets: &["riverbed-billing-cdc"],
    },
    Query {
        text: "Why is the promo site's source kept apart from everything else?",
        targets: &["website-separate-repo"],
    },
    Query {
        text: "Payment callbacks get rejected as forged on the pre-prod environment — why?",
        targets: &["stripe-signature-staging"],
    },
    Query {
        text: "How do I rebuild a single transformation plus whatever depends on it?",
        targets: &["dbt-build-downstream"],
    },
    Query {
        text: "Who runs our container platform, and how does he like to be contacted?",
        targets: &["jonas-weber"],
    },
    Query { text: "How should I format a SELECT statement?", targets: &["pref-sql-style"] },
    Query {
        text: "How do I add a third-party extension command to the ops tool?",
        targets: &["opsctl-design"],
    },
    Query {
        text: "What tipped our analytics storage choice toward Google's offering?",
        targets: &["riverbed-bigquery"],
    },
    Query {
        text: "Our bill sums disagree with the payment processor by a penny on multi-product orders.",
        targets: &["ledger-tax-rounding"],
    },
    Query { text: "How do I cut a new version of our ops CLI?", targets: &["opsctl-release"] },
    Query {
        text: "Who is in charge of the content model for the promo site's CMS?",
        targets: &["aisha-bello"],
    },
    Query {
        text: "My change is 1,200 lines — how should I submit it?",
        targets: &["pref-small-prs"],
    },
    Query {
        text: "Where do the subscription costs shown to visitors come from?",
        targets: &["website-stack"],
    },
    Query {
        text: "Why do we run our own toggle server instead of paying for a SaaS one?",
        targets: &["unleash-flags"],
    },
    Query {
        text: "The stream subscriber keeps regrouping and lags badly post-release — how was it solved?",
        targets: &["kafka-rebalance-lag"],
    },
    Query {
        text: "How does a new teammate get the ops tool onto their Mac?",
        targets: &["opsctl-install"],
    },
    Query {
        text: "Who must look over a change to how login tokens are issued?",
        targets: &["dmitri-volkov"],
    },
    Query { text: "Should the docs say 'color' or 'colour'?", targets: &["pref-british-spelling"] },
    Query {
        text: "How do internal backends prove their identity to each other?",
        targets: &["auth-architecture"],
    },
    Query {
        text: "How long do unprocessed analytics dumps stick around in cloud storage?",
        targets: &["riverbed-raw-retention"],
    },
    Query {
        text: "The home timeline eats over a gigabyte on aging iPhones — what solved it?",
        targets: &["pocket-feed-memory"],
    },
    Query {
        text: "How can I watch live output from the billing backend in the EU cluster?",
        targets: &["ledger-logs"],
    },
    Query { text: "Who decides what the invoicing team works on next?", targets: &["hannah-lee"] },
    Query {
        text: "What kind of inline explanations should I leave in source files?",
        targets: &["pref-comments-why"],
    },
    Query {
        text: "How far back can we restore the billing database?",
        targets: &["ledger-postgres-topology"],
    },
    Query {
        text: "Why is the external billing interface plain HTTP resources instead of a graph schema?",
        targets: &["graphql-rejected"],
    },
    Query {
        text: "Which spec fails intermittently on the build server right around the date rollover?",
        targets: &["ci-flaky-midnight"],
    },
    Query {
        text: "Safest way to poke at live billing data with SQL?",
        targets: &["ledger-db-readonly"],
    },
    Query {
        text: "Whose blessing do I need to alter the tax math on bills?",
        targets: &["grace-kim"],
    },
    Query {
        text: "Is 8am a reasonable slot to book something with the developer?",
        targets: &["pref-working-hours"],
    },
    Query {
        text: "How is per-client sequencing guaranteed on the broker?",
        targets: &["kafka-conventions"],
    },
    Query {
        text: "Why are sign-ins outsourced to a third party rather than built in-house?",
        targets: &["auth0-choice"],
    },
    Query {
        text: "Building a lookup structure for the bills table froze inserts for ages — how to avoid?",
        targets: &["ledger-index-lock"],
    },
    Query {
        text: "Billing release went bad — how do I revert to the prior one?",
        targets: &["ledger-rollback"],
    },
    Query {
        text: "Who relays grumbles from clients about their charges?",
        targets: &["ben-carter"],
    },
    Query {
        text: "What format should diagnostic output from services use?",
        targets: &["pref-structured-logs"],
    },
    Query { text: "Where can I look at logs and dashboards?", targets: &["observability-stack"] },
    Query {
        text: "Why don't we use the big commercial monitoring vendor for request spans?",
        targets: &["tracing-otel"],
    },
    Query {
        text: "Looking up a client by their outside reference number is painfully slow — why?",
        targets: &["ledger-external-id-slow"],
    },
    Query {
        text: "How do I get the mobile app running on my machine?",
        targets: &["pocket-run-local"],
    },
    Query {
        text: "Who do I ask about the shape of tracking payloads coming from the app?",
        targets: &["nadia-petrova"],
    },
    Query { text: "Where do architecture write-ups belong?", targets: &["pref-adrs"] },
    Query { text: "Where do account pictures live?", targets: &["profile-service"] },
    Query {
        text: "A client wants a bogus bill erased completely — can I drop the row?",
        targets: &["ledger-soft-delete"],
    },
    Query {
        text: "The ops tool spits out a strange parse error mentioning '<' — what's going on?",
        targets: &["opsctl-sso-html"],
    },
    Query {
        text: "How can I peek at the most recent messages on the invoice stream?",
        targets: &["kafka-tail-billing"],
    },
    Query {
        text: "Who covers billing incidents while the tech lead is on holiday?",
        targets: &["sam-rivera"],
    },
    Query {
        text: "How should I pitch a proposed approach to the developer?",
        targets: &["pref-options-first"],
    },
    Query { text: "Where do I edit the wording of receipt emails?", targets: &["email-templates"] },
    Query {
        text: "Can I hotfix the app's JS bundle without waiting for Apple?",
        targets: &["pocket-no-ota"],
    },
    Query {
        text: "Tapping our URLs on Android lands in a web page rather than our app.",
        targets: &["pocket-android-deeplinks"],
    },
    Query {
        text: "What's the process for changing cloud resources?",
        targets: &["terraform-apply"],
    },
    Query {
        text: "Who has to okay bringing on an outside vendor that handles personal information?",
        targets: &["elena-fischer"],
    },
    Query { text: "What should I call new spec cases?", targets: &["pref-test-names"] },
    Query {
        text: "What happens to bills when the sales-tax vendor is unreachable?",
        targets: &["tax-avalara"],
    },
    Query {
        text: "Why does our ops tool ignore settings I export in my terminal?",
        targets: &["opsctl-config-file"],
    },
    Query {
        text: "The PDF renderer keeps getting killed for using too much RAM overnight.",
        targets: &["ledger-worker-oom"],
    },
    Query {
        text: "How do I replace a compromised credential for one of our backends?",
        targets: &["secrets-rotate"],
    },
    Query {
        text: "Apple won't take builds until someone agrees to updated terms — who can do that?",
        targets: &["rachel-adeyemi"],
    },
    Query {
        text: "Should I set up a call to talk this through with the developer?",
        targets: &["pref-async-updates"],
    },
    Query {
        text: "Where does the ops CLI keep my sign-in credential, and for how long is it good?",
        targets: &["opsctl-login-flow"],
    },
    Query {
        text: "How do API consumers pin themselves to a particular contract revision?",
        targets: &["api-date-versions"],
    },
    Query {
        text: "Ingestion blew up when the app team sent a new attribute in tracking messages.",
        targets: &["riverbed-new-field-crash"],
    },
    Query {
        text: "How do I receive payment-provider callbacks on my dev machine?",
        targets: &["stripe-listen"],
    },
    Query {
        text: "Who's our direct contact at the payment provider when funds get frozen?",
        targets: &["laura-brandt"],
    },
    Query {
        text: "What should a failure notice shown to people include?",
        targets: &["pref-actionable-errors"],
    },
    Query {
        text: "How long are bill documents retained, and can anyone tamper with them?",
        targets: &["invoice-pdf-storage"],
    },
    Query {
        text: "Can I swap the database for a lightweight embedded one in integration suites?",
        targets: &["real-postgres-tests"],
    },
    Query {
        text: "Yen bills came out a hundred times too large — what was wrong?",
        targets: &["ledger-jpy-factor"],
    },
    Query {
        text: "Crash reports from the app show mangled function names — fix?",
        targets: &["pocket-sourcemaps"],
    },
    Query {
        text: "Who needs a heads-up before I alter the shape of billing API responses?",
        targets: &["peter-novak"],
    },
    Query {
        text: "When I introduce a new toggle, what paperwork goes with it?",
        targets: &["pref-flag-removal"],
    },
    Query {
        text: "How much traffic can a single integrator send before being throttled?",
        targets: &["api-rate-limits"],
    },
    Query {
        text: "Are there periods when I shouldn't ship billing updates?",
        targets: &["deploy-freeze", "grace-kim"],
    },
];

/// Whether query `index` is in the held-out split (never tuned on): every third query.
pub fn held_out(index: usize) -> bool {
    index % 3 == 2
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::{NOTES, QUERIES, held_out};

    const KINDS: [&str; 6] = ["decision", "bug", "command", "person", "preference", "architecture"];

    /// Counts sentences by their terminal punctuation followed by a space.
    fn sentence_count(text: &str) -> usize {
        let text = text.trim().replace("e.g. ", "eg ").replace("i.e. ", "ie ");
        let chars: Vec<char> = text.chars().collect();
        let breaks = chars.windows(2).filter(|w| matches!(w[0], '.' | '!' | '?') && w[1] == ' ');
        1 + breaks.count()
    }

    #[test]
    fn has_enough_notes_and_queries() {
        assert!(NOTES.len() >= 150, "{} notes", NOTES.len());
        assert!(QUERIES.len() >= 100, "{} queries", QUERIES.len());
    }

    #[test]
    fn keys_are_unique() {
        let mut seen = HashSet::new();
        for note in NOTES {
            assert!(seen.insert(note.key), "duplicate key {}", note.key);
        }
    }

    #[test]
    fn every_target_exists() {
        let keys: HashSet<&str> = NOTES.iter().map(|n| n.key).collect();
        for query in QUERIES {
            assert!(!query.targets.is_empty(), "no target: {}", query.text);
            for target in query.targets {
                assert!(keys.contains(target), "unknown target {target}");
            }
        }
    }

    #[test]
    fn notes_are_one_to_four_sentences_of_a_known_kind() {
        for note in NOTES {
            assert!(!note.text.trim().is_empty(), "{} is empty", note.key);
            let n = sentence_count(note.text);
            assert!((1..=4).contains(&n), "{} has {n} sentences", note.key);
            assert!(KINDS.contains(&note.kind), "{} has kind {}", note.key, note.kind);
        }
    }

    #[test]
    fn queries_are_non_empty() {
        for query in QUERIES {
            assert!(!query.text.trim().is_empty());
        }
    }

    #[test]
    fn a_third_of_the_queries_are_held_out() {
        let held = (0..QUERIES.len()).filter(|&i| held_out(i)).count();
        assert_eq!(held, QUERIES.len() / 3);
    }
}
