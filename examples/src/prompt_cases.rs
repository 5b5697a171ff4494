//! A frozen set for telling memories with a prompt: what one repository's memory answers, and
//! what it does not.
//!
//! [`MEMORIES`] are 45 memories an agent working on one repository (`ledger`, a billing
//! service in Go) would have stored over months: decisions, conventions, people, commands,
//! failures and facts (some as subject–predicate–object triples, one of them superseded).
//!
//! [`ANSWERED`] are 37 prompts a developer would type in that repository, each answered by
//! one (or, where two memories both answer it, either) of the memories, worded as people ask
//! and not as the memory was stored. [`UNANSWERED`] are 25 ordinary coding prompts that no
//! memory answers, several of them in the repository's own vocabulary (SQL, invoices, tax,
//! endpoints), so that a bar which tells whatever shares a topic fails them.
//!
//! The set was written before any bar was chosen and before ferrex scored any of it. It is
//! frozen: do not edit it to suit the bar; write a new set instead.
//!
//! Split: prompt `i` of either list is held out when `i % 3 == 2` (see [`held_out`]). The bar
//! is chosen on the others; the held-out prompts are reported apart and never tuned on.

/// One memory of the repository.
#[derive(Debug, Clone, Copy)]
pub struct Memory {
    /// Stable key the prompts refer to.
    pub key: &'static str,
    /// decision, convention, person, command, failure or fact.
    pub kind: &'static str,
    /// The text, for everything but a triple.
    pub text: &'static str,
    /// A fact as subject, predicate, object (then `text` is empty).
    pub triple: Option<(&'static str, &'static str, &'static str)>,
}

/// A prompt and the memories that answer it (empty: none does).
#[derive(Debug, Clone, Copy)]
pub struct Prompt {
    /// What the developer types.
    pub text: &'static str,
    /// Keys of the memories that answer it.
    pub answers: &'static [&'static str],
}

/// Whether prompt `index` (of [`ANSWERED`] or [`UNANSWERED`]) is held out.
pub fn held_out(index: usize) -> bool {
    index % 3 == 2
}

const fn text(key: &'static str, kind: &'static str, text: &'static str) -> Memory {
    Memory { key, kind, text, triple: None }
}

const fn fact(
    key: &'static str,
    subject: &'static str,
    predicate: &'static str,
    object: &'static str,
) -> Memory {
    Memory { key, kind: "fact", text: "", triple: Some((subject, predicate, object)) }
}

/// The repository's memories, in the order they are stored (a superseded fact before the one
/// that replaces it).
pub const MEMORIES: &[Memory] = &[
    // ---- decisions ----
    text(
        "webhook-retries",
        "decision",
        "Billing webhooks from the payment provider are retried five times with a two minute backoff before they land in the dead-letter queue.",
    ),
    text(
        "uuid-keys",
        "decision",
        "Primary keys in the ledger database are UUIDv7; bigserial ids leaked our invoice volume to customers.",
    ),
    text(
        "no-orm",
        "decision",
        "We decided against an ORM for the ledger service: queries are hand-written SQL in internal/store and sqlc generates the Go bindings.",
    ),
    text(
        "money-cents",
        "decision",
        "Money amounts are stored as integer minor units (cents) in BIGINT columns, never as floats or NUMERIC.",
    ),
    text(
        "deploy-freeze",
        "decision",
        "Production deploys are frozen from Thursday 18:00 UTC until Monday 09:00 UTC.",
    ),
    text(
        "flag-cleanup",
        "decision",
        "Feature flags live in LaunchDarkly, and a flag older than 90 days must be removed in the next sprint.",
    ),
    text(
        "api-versioning",
        "decision",
        "The public API is versioned in the URL path (/v1, /v2); a breaking change needs a new version and six months of overlap with the old one.",
    ),
    text(
        "idempotency",
        "decision",
        "Every POST to /v2/charges requires an Idempotency-Key header; the keys are kept for 24 hours in Redis.",
    ),
    // ---- conventions ----
    text(
        "commit-style",
        "convention",
        "Commit messages follow Conventional Commits (feat:, fix:, chore:) and the pull request title must match, because release-please builds the changelog from them.",
    ),
    text(
        "error-wrapping",
        "convention",
        "In Go code, wrap errors with fmt.Errorf and %w, naming the operation that failed; never log an error and also return it.",
    ),
    text(
        "integration-tests",
        "convention",
        "Integration tests live in tests/integration behind the integration build tag and run against a Postgres started by docker compose.",
    ),
    text(
        "migrations",
        "convention",
        "Database migrations are goose files in db/migrations, one change per file, and each must stay compatible with the previous release.",
    ),
    text(
        "structured-logs",
        "convention",
        "Service code logs with the slog JSON handler and a request_id on every line; fmt.Println is not allowed outside cmd/.",
    ),
    text(
        "branch-names",
        "convention",
        "Branch names are type/TICKET-short-description, for example fix/LED-412-vat-rounding.",
    ),
    // ---- people ----
    text(
        "priya-provider",
        "person",
        "Priya Raman owns the payment provider integration and reviews every change under internal/provider.",
    ),
    text(
        "marco-oncall",
        "person",
        "Marco leads billing on-call in December; page him through the ledger-primary PagerDuty schedule.",
    ),
    text(
        "hanna-dba",
        "person",
        "Questions about the ledger's Postgres cluster go to Hanna from the platform team, in #platform-db.",
    ),
    text(
        "dev-security",
        "person",
        "Anything that touches card data needs a review from Dev Patel of the security team before it merges, because it is in PCI scope.",
    ),
    text(
        "lena-vat",
        "person",
        "Lena wrote the tax module and is the only one who knows the VAT reverse-charge rules for EU business customers.",
    ),
    // ---- commands ----
    text(
        "make-dev",
        "command",
        "make dev starts Postgres and Redis with docker compose and runs the API on port 8080 with hot reload.",
    ),
    text(
        "make-sqlc",
        "command",
        "After changing a query in internal/store/queries run make sqlc; CI fails when the generated Go files are stale.",
    ),
    text(
        "make-seed",
        "command",
        "make seed loads fixture customers and invoices into the local database, wiping the ledger tables first.",
    ),
    text(
        "dlq-replay",
        "command",
        "Dead-lettered webhooks are replayed with go run ./cmd/dlq replay --since 2h; running it twice is safe because the handlers are idempotent.",
    ),
    text(
        "k6-load",
        "command",
        "Load tests run with k6 run loadtest/charges.js against staging only, never against production.",
    ),
    text(
        "argocd-rollback",
        "command",
        "ledger-api is deployed by ArgoCD; roll back with argocd app rollback ledger-api followed by the revision number.",
    ),
    // ---- failures ----
    text(
        "clock-flake",
        "failure",
        "The invoice due-date tests were flaky because they called time.Now; they now take the clock from internal/clock, whose fake is frozen at 2024-01-15.",
    ),
    text(
        "recon-deadlock",
        "failure",
        "The nightly reconciliation job deadlocked because it updated accounts in random order; accounts are now always locked sorted by id.",
    ),
    text(
        "export-oom",
        "failure",
        "The CSV export was killed for exceeding its 512Mi memory limit when a customer exported a year of invoices; it now streams rows instead of building the file in memory.",
    ),
    text(
        "double-charge",
        "failure",
        "The double charge in March happened because a retry after a timeout created a second charge without an idempotency key.",
    ),
    text(
        "alpine-certs",
        "failure",
        "Calls to the provider's sandbox failed with x509: certificate signed by unknown authority in the Alpine image until ca-certificates was installed in the Dockerfile.",
    ),
    text(
        "vat-rounding",
        "failure",
        "VAT was off by a cent on large invoices because it was rounded on the invoice total; it must be rounded per line item, half-even.",
    ),
    text(
        "redis-timeout",
        "failure",
        "During a Redis failover the client's default 3 second read timeout made every request hang and the API fell over; the timeout is now 200 ms behind a circuit breaker.",
    ),
    // ---- facts ----
    fact("go-version", "ledger-api", "built_with", "Go 1.23"),
    fact("postgres-14", "ledger database", "version", "PostgreSQL 14"),
    fact("postgres-16", "ledger database", "version", "PostgreSQL 16"),
    fact("staging-url", "ledger staging", "url", "https://staging.ledger.acme.internal"),
    fact("metrics-port", "ledger-api metrics endpoint", "port", "9102"),
    fact("rate-limit", "public API", "rate_limit", "100 requests per second per API key"),
    fact("provider", "ledger-api", "payment_provider", "Stripe"),
    text(
        "invoice-numbers",
        "fact",
        "Invoice numbers are per-tenant sequences formatted INV-YYYY-NNNNNN, allocated in the same transaction as the invoice.",
    ),
    text(
        "retention",
        "fact",
        "Invoices and ledger entries are kept for ten years for tax law; soft-deleted customers are purged after 30 days.",
    ),
    text(
        "currencies",
        "fact",
        "Only EUR, USD and GBP are supported; adding a currency needs a new exchange-rate feed in internal/fx.",
    ),
    text(
        "sqs-queue",
        "fact",
        "Incoming webhook events are queued in the ledger-webhooks SQS queue and processed by ledger-worker.",
    ),
    text(
        "utc-times",
        "fact",
        "Every timestamp is stored in UTC as timestamptz; the web app converts it to the tenant's time zone.",
    ),
    text(
        "vault-secrets",
        "fact",
        "Secrets come from Vault at secret/ledger/<env>; they never go into .env files in the repository.",
    ),
];

/// Prompts one of the memories answers.
pub const ANSWERED: &[Prompt] = &[
    Prompt {
        text: "How many times does the payment provider retry a failed billing webhook?",
        answers: &["webhook-retries"],
    },
    Prompt { text: "can I ship this to prod on friday afternoon?", answers: &["deploy-freeze"] },
    Prompt {
        text: "what column type should the amount get in the new refunds table",
        answers: &["money-cents"],
    },
    Prompt {
        text: "who should review my change to the stripe client code",
        answers: &["priya-provider"],
    },
    Prompt {
        text: "the sandbox calls fail with a certificate error inside the container, any idea why?",
        answers: &["alpine-certs"],
    },
    Prompt { text: "how do I get the api running on my machine", answers: &["make-dev"] },
    Prompt {
        text: "I edited a SQL query and now CI complains the generated code is out of date",
        answers: &["make-sqlc"],
    },
    Prompt { text: "which postgres version are we running?", answers: &["postgres-16"] },
    Prompt { text: "how do I undo a bad deploy of the api", answers: &["argocd-rollback"] },
    Prompt {
        text: "write a migration that adds a refunds table",
        answers: &["migrations", "money-cents", "uuid-keys"],
    },
    Prompt {
        text: "the reconciliation job hung again last night, what do we know about that?",
        answers: &["recon-deadlock"],
    },
    Prompt { text: "what should my commit message look like", answers: &["commit-style"] },
    Prompt {
        text: "add a POST endpoint for creating refunds",
        answers: &["idempotency", "api-versioning"],
    },
    Prompt { text: "who's on call for billing this month", answers: &["marco-oncall"] },
    Prompt { text: "what should I call the branch for ticket LED-530", answers: &["branch-names"] },
    Prompt {
        text: "exporting invoices crashes the pod for our biggest customers",
        answers: &["export-oom"],
    },
    Prompt { text: "why do the due date tests fail at random", answers: &["clock-flake"] },
    Prompt {
        text: "where do I put the stripe api key for local development",
        answers: &["vault-secrets"],
    },
    Prompt { text: "can we start accepting Japanese yen?", answers: &["currencies"] },
    Prompt { text: "how long do we have to keep invoice data around", answers: &["retention"] },
    Prompt { text: "which port does prometheus scrape on the api", answers: &["metrics-port"] },
    Prompt { text: "what's the staging address", answers: &["staging-url"] },
    Prompt {
        text: "how do I resend the webhooks that failed overnight",
        answers: &["dlq-replay", "webhook-retries"],
    },
    Prompt { text: "I want to benchmark the charges endpoint", answers: &["k6-load"] },
    Prompt { text: "how many requests can an API client make", answers: &["rate-limit"] },
    Prompt { text: "should I use gorm for the new reports package?", answers: &["no-orm"] },
    Prompt {
        text: "how should the handler report a database error",
        answers: &["error-wrapping", "structured-logs"],
    },
    Prompt { text: "totals on big invoices are a cent off", answers: &["vat-rounding"] },
    Prompt {
        text: "who understands the reverse charge logic for business customers",
        answers: &["lena-vat"],
    },
    Prompt { text: "how are invoice numbers generated", answers: &["invoice-numbers"] },
    Prompt {
        text: "what happens to a webhook event after we receive it",
        answers: &["sqs-queue", "webhook-retries"],
    },
    Prompt {
        text: "redis went down for a minute and took the whole API with it",
        answers: &["redis-timeout"],
    },
    Prompt { text: "can I delete the old checkout_v2 flag?", answers: &["flag-cleanup"] },
    Prompt {
        text: "do I need anyone to sign off before storing the card fingerprint",
        answers: &["dev-security"],
    },
    Prompt {
        text: "we want to rename a field in the charges response",
        answers: &["api-versioning"],
    },
    Prompt { text: "how do I get some test data into my local db", answers: &["make-seed"] },
    Prompt {
        text: "who can I ask about autovacuum settings on the ledger database",
        answers: &["hanna-dba"],
    },
];

/// Ordinary coding prompts that no memory answers.
pub const UNANSWERED: &[Prompt] = &[
    Prompt { text: "rename the variable tmp to invoiceTotal in this function", answers: &[] },
    Prompt { text: "explain what this regex does: ^[A-Z]{3}-\\d+$", answers: &[] },
    Prompt { text: "fix the typo in the README heading", answers: &[] },
    Prompt { text: "write a unit test for the parseAmount function", answers: &[] },
    Prompt { text: "add a dark mode toggle to the settings page", answers: &[] },
    Prompt { text: "convert this for loop into a map call", answers: &[] },
    Prompt { text: "what does the -race flag do in go test", answers: &[] },
    Prompt { text: "sort these imports alphabetically", answers: &[] },
    Prompt {
        text: "why does TypeScript say type string is not assignable to type number here",
        answers: &[],
    },
    Prompt { text: "add pagination to the customers list endpoint", answers: &[] },
    Prompt { text: "generate a .gitignore for a Go project", answers: &[] },
    Prompt { text: "summarize the changes in the last commit", answers: &[] },
    Prompt { text: "make the pay button bigger on mobile", answers: &[] },
    Prompt { text: "what's the difference between a slice and an array in go", answers: &[] },
    Prompt { text: "refactor this function to return early", answers: &[] },
    Prompt { text: "add a docstring to the computeTax function", answers: &[] },
    Prompt { text: "upgrade lodash to the latest version", answers: &[] },
    Prompt { text: "a bash one-liner to count the lines in all .go files", answers: &[] },
    Prompt { text: "delete the unused helper functions in utils.go", answers: &[] },
    Prompt {
        text: "help me write a SQL query that finds customers with no invoices",
        answers: &[],
    },
    Prompt { text: "how do I center a div", answers: &[] },
    Prompt { text: "print the current git branch", answers: &[] },
    Prompt { text: "translate this error message into French", answers: &[] },
    Prompt { text: "continue", answers: &[] },
    Prompt { text: "yes, go ahead", answers: &[] },
];
