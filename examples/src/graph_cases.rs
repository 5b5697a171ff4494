//! A frozen, blind evaluation set for multi-hop recall through the knowledge graph.
//!
//! It asks whether recall that expands through the graph (entities named by memories, relations
//! between entities, links between memories) finds answers that plain keyword and embedding
//! search misses. Each [`GraphWorld`] is what an agent stored in one project: free-text notes
//! with the entities it named, facts as subject/predicate/object, links between entities and
//! links between memories. Then come questions whose words match one memory, the bridge, while
//! the answer sits in another memory that shares few content words with the question and is
//! reached from the bridge only through a shared entity ([`Hop::Entity`]), an entity relation
//! or a fact ([`Hop::Relation`]), or a memory link ([`Hop::MemoryLink`]). Questions of
//! [`Hop::Single`] are controls answered by one memory whose words or meaning match: expansion
//! must not hurt them.
//!
//! There are two worlds in different domains: `shop-backend`, a web shop's backend team
//! (services, databases, queues, people, on-call, incidents, deploys, feature flags, vendors),
//! and `homelab-infra`, one person's home lab (machines, NAS, backups, DNS, VPN, containers,
//! certificates, the ISP, family members' devices). Each has about 125 notes, 19 facts, about
//! 20 links (9 of them between memories) and 30 questions: 10 entity hops, 6 relation hops,
//! 6 memory-link hops and 8 single-memory controls. Hub entities recur in many notes
//! (`checkout-api` in 31 and Priya in 16; `atlas` in 25 and Sam in 21), and many notes are
//! distractors that share words, entities or topics with a question without answering it.
//! In a relation or memory-link question the bridge and the answer name no common entity, so
//! only the relation, fact or link connects them. Two controls, one per world, are answered by
//! a fact rather than a note. Notes are listed in the order an agent would have stored them: a
//! correction after what it contradicts, a fix after its incident, a decision after the
//! measurement it rests on.
//!
//! `needs` lists the keys that together answer a question, bridge first; the answer is in the
//! last one, and a careful reader of every memory would answer the question from `needs` alone.
//! Overlap, measured roughly when the set was written (lowercase, split on non-alphanumerics,
//! drop stopwords, strip one of -ing, -ed, -es, -s): over the 44 multi-hop questions a question
//! shares on average 0.14 content words with its answer memory (38 share none, 6 share one)
//! and 2.2 with its bridge.
//!
//! The set was written blind: its author read no ranking, recall or graph code of ferrex
//! (nothing under `core/` or `node/`) and knew the `store` and `link` tools only by the shape of
//! their arguments. It is frozen: cases are not edited, added or dropped to suit the ranking;
//! write a new set instead.
//!
//! Split: within each hop kind, questions alternate between development and held out (the
//! first of each kind is development, the second held out, and so on), as marked by
//! [`Question::held_out`]. Tune only on development questions and report held-out results
//! separately.

/// One world: what an agent stored in one project, and the questions asked of it.
pub struct GraphWorld {
    pub name: &'static str,
    pub notes: &'static [Note],
    pub facts: &'static [Fact],
    pub links: &'static [Link],
    pub questions: &'static [Question],
}

/// A free-text memory and the entities the agent named with it (`store` with `entities`).
pub struct Note {
    pub key: &'static str,
    pub text: &'static str,
    pub entities: &'static [&'static str],
}

/// A fact (`store` with subject/predicate/object); subject and object are entity names when they
/// name one.
pub struct Fact {
    pub key: &'static str,
    pub subject: &'static str,
    pub predicate: &'static str,
    pub object: &'static str,
}

/// One end of a link.
pub enum End {
    Entity(&'static str),
    Memory(&'static str),
}

/// A `link`: between two entities (relation types like depends_on, part_of, owned_by, caused_by,
/// built_with, relates_to, or others), or between two memories by key (relates_to, derived_from,
/// contradicts, caused_by, fixed_by). Never an entity to a memory.
pub struct Link {
    pub from: End,
    pub to: End,
    pub relation: &'static str,
}

/// How a question's answer is reached from the memory its words match.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Hop {
    /// The bridge and the answer both name a shared entity.
    Entity,
    /// The bridge names X, the answer names Y, and an entity link or a fact joins X to Y.
    Relation,
    /// A link joins the bridge memory and the answer memory.
    MemoryLink,
    /// One memory answers; a control.
    Single,
}

/// A question; `needs` are the keys (of notes or facts) that together answer it, bridge first.
pub struct Question {
    pub query: &'static str,
    pub needs: &'static [&'static str],
    pub hop: Hop,
    pub held_out: bool,
}

/// The two worlds: `shop-backend` and `homelab-infra`.
pub const WORLDS: &[GraphWorld] = &[
    GraphWorld {
        name: "shop-backend",
        notes: &[
            Note {
                key: "n001",
                text: "checkout-api tests: run `docker compose up -d postgres redis` before `make \
                       test`, or the repository tests hang.",
                entities: &["checkout-api"],
            },
            Note {
                key: "n002",
                text: "Priya: the storefront (Next.js) belongs to the web team; don't change their \
                       repo.",
                entities: &["Priya"],
            },
            Note {
                key: "n003",
                text: "checkout-api rate limits at Cloudflare: 20 req/s per session, 200 per IP.",
                entities: &["checkout-api", "Cloudflare"],
            },
            Note {
                key: "n004",
                text: "Dana wants Stripe webhook handlers idempotent by event id; processed ids \
                       are kept 7 days.",
                entities: &["Dana", "Stripe"],
            },
            Note {
                key: "n005",
                text: "Olu: refunds over 500 EUR need manual approval in admin-portal.",
                entities: &["Olu", "admin-portal"],
            },
            Note {
                key: "n006",
                text: "INC-219 was run by Dana as incident commander, with Olu doing customer \
                       comms.",
                entities: &["INC-219", "Dana", "Olu"],
            },
            Note {
                key: "n007",
                text: "auth-gateway access tokens live 15 min; refresh tokens 30 days, rotated on \
                       use.",
                entities: &["auth-gateway"],
            },
            Note {
                key: "n008",
                text: "Replay dead letters with `kubectl exec deploy/order-worker -- ./bin/replay \
                       --topic order-events.dlq --since 2h`.",
                entities: &["order-worker", "order-events"],
            },
            Note {
                key: "n009",
                text: "Product photos are served by Cloudflare Images; originals sit in the S3 \
                       bucket larkspur-media.",
                entities: &["Cloudflare"],
            },
            Note {
                key: "n010",
                text: "Twilio alphanumeric sender for the UK is LARKSPUR; the US uses a verified \
                       toll-free number.",
                entities: &["Twilio"],
            },
            Note {
                key: "n011",
                text: "Argo CD: to go back to an earlier build, pick the previous revision in the \
                       shop-prod app history and hit Rollback; turn auto-sync off first.",
                entities: &["Argo CD", "shop-prod"],
            },
            Note {
                key: "n012",
                text: "Sentry project checkout-api samples 10% of traces and keeps 100% of errors; \
                       Priya triages it daily.",
                entities: &["Sentry", "checkout-api", "Priya"],
            },
            Note {
                key: "n013",
                text: "catalog-indexer runs every 15 min as a k8s CronJob; batches over 5k rows \
                       are dropped silently, so removals never reach the index.",
                entities: &["catalog-indexer"],
            },
            Note {
                key: "n014",
                text: "Only US orders go through Avalara; EU VAT comes from a static rate table \
                       inside pricing-svc.",
                entities: &["Avalara", "pricing-svc"],
            },
            Note {
                key: "n015",
                text: "checkout-api reads flags through the LaunchDarkly Go SDK with streaming on; \
                       flags default to off if LaunchDarkly is unreachable.",
                entities: &["checkout-api", "LaunchDarkly"],
            },
            Note {
                key: "n016",
                text: "PgBouncer runs in transaction mode, so prepared statements are off in \
                       checkout-api's pgx config.",
                entities: &["PgBouncer", "checkout-api"],
            },
            Note {
                key: "n017",
                text: "search-svc keeps showing products that were removed hours ago, mostly after \
                       bulk catalog deletes.",
                entities: &["search-svc"],
            },
            Note {
                key: "n018",
                text: "auth-gateway terminates customer logins and issues the storefront's session \
                       JWTs.",
                entities: &["auth-gateway"],
            },
            Note {
                key: "n019",
                text: "Datadog monitors are Terraform in infra/monitors; don't click-create them \
                       in the UI.",
                entities: &["Datadog"],
            },
            Note {
                key: "n020",
                text: "Search relevance tuning is Lena's side project; the synonyms file is \
                       search-svc/config/synonyms.txt.",
                entities: &["Lena", "search-svc"],
            },
            Note {
                key: "n021",
                text: "Elasticsearch cluster es-catalog is on 7.17; moving to 8.x waits on \
                       replacing the olivere Go client.",
                entities: &["Elasticsearch", "es-catalog"],
            },
            Note {
                key: "n022",
                text: "Dana is the payments lead and wants a design doc before any change to \
                       capture timing.",
                entities: &["Dana"],
            },
            Note {
                key: "n023",
                text: "pricing-svc reviews and pages go to Kenji; he wrote most of its discount \
                       engine.",
                entities: &["pricing-svc", "Kenji"],
            },
            Note {
                key: "n024",
                text: "checkout-api is on Go 1.22; bumping it needs Priya's OK.",
                entities: &["checkout-api", "Priya"],
            },
            Note {
                key: "n025",
                text: "Priya asked that checkout-api error responses never echo Stripe decline \
                       codes verbatim.",
                entities: &["Priya", "checkout-api", "Stripe"],
            },
            Note {
                key: "n026",
                text: "GitHub Actions builds an image on every push and tags it with the short \
                       SHA.",
                entities: &["GitHub Actions"],
            },
            Note {
                key: "n027",
                text: "Priya prefers table-driven tests and real Postgres over mocks; use \
                       testcontainers.",
                entities: &["Priya", "Postgres"],
            },
            Note {
                key: "n028",
                text: "pricing-svc returns gross prices for EU countries and net prices for the \
                       US.",
                entities: &["pricing-svc"],
            },
            Note {
                key: "n029",
                text: "Refunds go through payments-svc POST /refunds; partial refunds allowed, at \
                       most 3 per order.",
                entities: &["payments-svc"],
            },
            Note {
                key: "n030",
                text: "Our rep at EasyPost is Rachel Kim; she can lift rate limits and sort out \
                       invoice disputes.",
                entities: &["EasyPost", "Rachel Kim"],
            },
            Note {
                key: "n031",
                text: "Fulfilment runs in order-worker; it is the slowest consumer and falls \
                       behind first under load.",
                entities: &["order-worker"],
            },
            Note {
                key: "n032",
                text: "admin-portal is a Rails app that calls checkout-api's internal API with a \
                       service account.",
                entities: &["admin-portal", "checkout-api"],
            },
            Note {
                key: "n033",
                text: "gift-cards flag is internal-only for now; Sofia wants it live for the \
                       holiday season.",
                entities: &["gift-cards", "Sofia"],
            },
            Note {
                key: "n034",
                text: "INC-231: checkout-api p99 jumped to 9 s for two hours on Black Friday \
                       evening.",
                entities: &["INC-231", "checkout-api"],
            },
            Note {
                key: "n035",
                text: "checkout-api migrations run as a Helm pre-upgrade hook with golang-migrate.",
                entities: &["checkout-api", "Helm"],
            },
            Note {
                key: "n036",
                text: "INC-219: some customers were charged twice when payments-svc retried Stripe \
                       calls after a 30 s timeout.",
                entities: &["INC-219", "payments-svc", "Stripe"],
            },
            Note {
                key: "n037",
                text: "orders-db: the PgBouncer pool (80) fills long before CPU does; watch \
                       cl_waiting in Datadog.",
                entities: &["orders-db", "PgBouncer", "Datadog"],
            },
            Note {
                key: "n038",
                text: "Lunch peak (12:00-13:30 CET) runs about 3x baseline traffic; checkout-api \
                       HPA max is 24 pods.",
                entities: &["checkout-api"],
            },
            Note {
                key: "n039",
                text: "checkout-api returns 502 when any upstream call takes over 3 s; seen at the \
                       lunch peak twice this month.",
                entities: &["checkout-api"],
            },
            Note {
                key: "n040",
                text: "Priya hands over on-call on Mondays at 10:00 and posts open issues in \
                       #checkout.",
                entities: &["Priya"],
            },
            Note {
                key: "n041",
                text: "order-events schema is Avro, registered in the schema registry as \
                       order-events-value.",
                entities: &["order-events"],
            },
            Note {
                key: "n042",
                text: "Marco rewrote inventory-svc in Go in March; the old Python version is \
                       archived under legacy/inventory.",
                entities: &["Marco", "inventory-svc"],
            },
            Note {
                key: "n043",
                text: "Keycloak admin console is only reachable over the VPN; Lena holds the admin \
                       role.",
                entities: &["Keycloak", "Lena"],
            },
            Note {
                key: "n044",
                text: "cart-service is Node 20 with Fastify; Kenji and Priya both review it.",
                entities: &["cart-service", "Kenji", "Priya"],
            },
            Note {
                key: "n045",
                text: "sharp benchmark: per-request resize p95 480 ms at 50 rps on 2 vCPU, vs 12 \
                       ms serving pre-rendered files from the Cloudflare cache.",
                entities: &["Cloudflare"],
            },
            Note {
                key: "n046",
                text: "Avalara sandbox rate-limits at 10 rps; pricing-svc integration tests stub \
                       it unless AVALARA_LIVE=1.",
                entities: &["Avalara", "pricing-svc"],
            },
            Note {
                key: "n047",
                text: "Sofia runs the Thursday product review; bring flag rollout numbers.",
                entities: &["Sofia"],
            },
            Note {
                key: "n048",
                text: "inventory-svc serves gRPC on 9090; checkout-api calls Reserve with a 2 s \
                       deadline.",
                entities: &["inventory-svc", "checkout-api"],
            },
            Note {
                key: "n049",
                text: "cart-service keeps shopper carts in Redis (session-cache) so they survive \
                       pod restarts.",
                entities: &["cart-service", "session-cache", "Redis"],
            },
            Note {
                key: "n050",
                text: "Stock counts in inventory-svc sync from the warehouse ERP every 5 min, so \
                       they are eventually consistent.",
                entities: &["inventory-svc"],
            },
            Note {
                key: "n051",
                text: "Release train: Tuesdays and Thursdays at 10:00 CET; Marco cuts the tags.",
                entities: &["Marco"],
            },
            Note {
                key: "n052",
                text: "payments-svc now sends an idempotency key (order_id + attempt) on every \
                       Stripe charge call.",
                entities: &["payments-svc", "Stripe"],
            },
            Note {
                key: "n053",
                text: "INC-240: inventory-svc oversold 40 pairs in the limited sneaker drop; the \
                       reservation TTL was too short.",
                entities: &["INC-240", "inventory-svc"],
            },
            Note {
                key: "n054",
                text: "Product page cache TTL at Cloudflare is 5 min; pricing-svc purges the page \
                       on a price change.",
                entities: &["Cloudflare", "pricing-svc"],
            },
            Note {
                key: "n055",
                text: "internal-tools team (lead: Olu) takes requests in #internal-tools-help; \
                       open a Jira ticket first.",
                entities: &["internal-tools", "Olu"],
            },
            Note {
                key: "n056",
                text: "INC-212: orders stuck in pending for 40 min; the order-worker consumer \
                       group stalled after a rebalance.",
                entities: &["INC-212", "order-worker"],
            },
            Note {
                key: "n057",
                text: "checkout-api SLO: p95 under 400 ms for POST /orders, measured at the \
                       ingress.",
                entities: &["checkout-api"],
            },
            Note {
                key: "n058",
                text: "session-cache runs on cache.r6g.large with two replicas in eu-west-1.",
                entities: &["session-cache"],
            },
            Note {
                key: "n059",
                text: "Black Friday plan: freeze non-critical deploys from Wednesday and pre-scale \
                       checkout-api to 30 pods.",
                entities: &["checkout-api"],
            },
            Note {
                key: "n060",
                text: "admin-portal roles: viewer, agent, supervisor; only supervisors can issue \
                       refunds.",
                entities: &["admin-portal"],
            },
            Note {
                key: "n061",
                text: "Priya's rule: every new checkout-api endpoint takes an Idempotency-Key \
                       header.",
                entities: &["Priya", "checkout-api"],
            },
            Note {
                key: "n062",
                text: "INC-226: notif-worker sent shipping emails twice for 300 orders after a \
                       redeploy wiped its dedupe store.",
                entities: &["INC-226", "notif-worker"],
            },
            Note {
                key: "n063",
                text: "Postmortems live in Notion under Engineering/Incidents; Dana runs the \
                       weekly review.",
                entities: &["Dana"],
            },
            Note {
                key: "n064",
                text: "pricing-svc calls Avalara on every cart change to work out sales tax per \
                       line item.",
                entities: &["pricing-svc", "Avalara"],
            },
            Note {
                key: "n065",
                text: "Argo CD has two apps, shop-prod and shop-staging; staging auto-syncs from \
                       main.",
                entities: &["Argo CD", "shop-prod"],
            },
            Note {
                key: "n066",
                text: "one-click-reorder has been at 100% since June; delete the flag code in Q3.",
                entities: &["one-click-reorder"],
            },
            Note {
                key: "n067",
                text: "checkout-api alerts page the PagerDuty schedule checkout-primary (Priya, \
                       Marco, Kenji).",
                entities: &["checkout-api", "PagerDuty", "Priya", "Marco", "Kenji"],
            },
            Note {
                key: "n068",
                text: "orders-db is Postgres 15.4 on RDS, db.r6g.xlarge, multi-AZ.",
                entities: &["orders-db", "Postgres"],
            },
            Note {
                key: "n069",
                text: "The redesigned one-page payment screen ships behind the LaunchDarkly flag \
                       new-checkout-flow.",
                entities: &["new-checkout-flow", "LaunchDarkly"],
            },
            Note {
                key: "n070",
                text: "Sofia is PM for checkout and payments and signs off on every flag rollout.",
                entities: &["Sofia"],
            },
            Note {
                key: "n071",
                text: "checkout-api exposes /healthz for liveness and /readyz, which checks \
                       orders-db and session-cache.",
                entities: &["checkout-api", "orders-db", "session-cache"],
            },
            Note {
                key: "n072",
                text: "notif-worker consumes order-events and sends order confirmation emails \
                       through Postmark.",
                entities: &["notif-worker", "order-events", "Postmark"],
            },
            Note {
                key: "n073",
                text: "Retro: a pricing-svc release at 17:40 broke discount codes all weekend and \
                       on-call had no idea it had gone out.",
                entities: &["pricing-svc"],
            },
            Note {
                key: "n074",
                text: "orders-db-ro is the reporting replica of orders-db; never point \
                       checkout-api at it.",
                entities: &["orders-db", "checkout-api"],
            },
            Note {
                key: "n075",
                text: "checkout-api 502s in the Cloudflare dashboard are often client aborts; \
                       check the origin status as well.",
                entities: &["checkout-api", "Cloudflare"],
            },
            Note {
                key: "n076",
                text: "notif-worker sends the out-for-delivery and delivered SMS through Twilio.",
                entities: &["notif-worker", "Twilio"],
            },
            Note {
                key: "n077",
                text: "notif-worker dedupes on (order_id, template) for 24 h so retries don't \
                       double-send.",
                entities: &["notif-worker"],
            },
            Note {
                key: "n078",
                text: "Postmark bounce webhooks hit checkout-api at /hooks/postmark; hard bounces \
                       flag the customer email as invalid.",
                entities: &["Postmark", "checkout-api"],
            },
            Note {
                key: "n079",
                text: "Priya: new checkout-api tables use UUIDv7 primary keys.",
                entities: &["Priya", "checkout-api"],
            },
            Note {
                key: "n080",
                text: "order-worker buys the shipping label from EasyPost as soon as the payment \
                       is captured.",
                entities: &["order-worker", "EasyPost"],
            },
            Note {
                key: "n081",
                text: "Priya owns checkout-api and reviews every PR that touches the order state \
                       machine.",
                entities: &["Priya", "checkout-api"],
            },
            Note {
                key: "n082",
                text: "Cloudflare cache key for /p/* ignores the CF-IPCountry header, so whichever \
                       country hits a page first decides what gets cached for everyone.",
                entities: &["Cloudflare"],
            },
            Note {
                key: "n083",
                text: "search-svc answers product search and autocomplete by querying \
                       Elasticsearch.",
                entities: &["search-svc", "Elasticsearch"],
            },
            Note {
                key: "n084",
                text: "cart-service merges a guest cart into the account cart on login, keeping \
                       the higher quantity.",
                entities: &["cart-service"],
            },
            Note {
                key: "n085",
                text: "payments-svc alerts route to the PagerDuty schedule payments-primary; Dana, \
                       Olu and Marco rotate weekly.",
                entities: &["payments-svc", "PagerDuty", "Dana", "Olu", "Marco"],
            },
            Note {
                key: "n086",
                text: "Priya and Dana agreed pre-orders are captured at shipment, not at order \
                       time.",
                entities: &["Priya", "Dana"],
            },
            Note {
                key: "n087",
                text: "Rule: no prod deploys after 15:00 on Fridays or during sale events.",
                entities: &[],
            },
            Note {
                key: "n088",
                text: "checkout-api releases are semver tags cut from main; release notes go in \
                       CHANGELOG.md.",
                entities: &["checkout-api"],
            },
            Note {
                key: "n089",
                text: "Kafka is Amazon MSK, 3 brokers on 3.5; topic changes go through topics.tf.",
                entities: &["Kafka"],
            },
            Note {
                key: "n090",
                text: "payments-svc stores only Stripe PaymentIntent ids, never card data; PCI \
                       scope is SAQ A.",
                entities: &["payments-svc", "Stripe"],
            },
            Note {
                key: "n091",
                text: "session-cache eviction policy is volatile-lru, so carts without a TTL are \
                       never evicted.",
                entities: &["session-cache"],
            },
            Note {
                key: "n092",
                text: "Marco maintains the deploy repo and the GitHub Actions workflows.",
                entities: &["Marco", "GitHub Actions"],
            },
            Note {
                key: "n093",
                text: "Twilio spend is capped at $800 a month on the shop-prod subaccount; sending \
                       stops once it's hit.",
                entities: &["Twilio"],
            },
            Note {
                key: "n094",
                text: "order-events Kafka topic: 12 partitions, replication factor 3, retention 72 \
                       h.",
                entities: &["order-events", "Kafka"],
            },
            Note {
                key: "n095",
                text: "Kenji built the coupon stacking rules: at most one percentage coupon plus \
                       free shipping.",
                entities: &["Kenji"],
            },
            Note {
                key: "n096",
                text: "new-checkout-flow sits at 25% in prod; EU stays excluded until the cookie \
                       banner fix ships.",
                entities: &["new-checkout-flow"],
            },
            Note {
                key: "n097",
                text: "Stripe Radar rules: block when the CVC check fails, send to review above \
                       2000 EUR.",
                entities: &["Stripe"],
            },
            Note {
                key: "n098",
                text: "If inventory-svc crash-loops: scale order-worker to 0 first, then restart \
                       its pods; reservations replay from Kafka.",
                entities: &["inventory-svc", "order-worker", "Kafka"],
            },
            Note {
                key: "n099",
                text: "checkout-api is the Go service the storefront calls to create orders; it \
                       fans out to cart-service, pricing-svc and payments-svc.",
                entities: &["checkout-api", "cart-service", "pricing-svc", "payments-svc"],
            },
            Note {
                key: "n100",
                text: "INC-204: admin-portal down 20 min after a bad Keycloak client change; \
                       reverted the realm config.",
                entities: &["INC-204", "admin-portal", "Keycloak"],
            },
            Note {
                key: "n101",
                text: "Priya wants a CHANGELOG entry in every checkout-api PR; CI fails without \
                       one.",
                entities: &["Priya", "checkout-api"],
            },
            Note {
                key: "n102",
                text: "catalog-db is Postgres 14 on RDS, separate from orders-db, and belongs to \
                       the merch team.",
                entities: &["catalog-db", "Postgres", "orders-db"],
            },
            Note {
                key: "n103",
                text: "Finance sync (May), Sofia: a second sign-off is now only required above \
                       1000 EUR.",
                entities: &["Sofia"],
            },
            Note {
                key: "n104",
                text: "Abandoned-cart reminders are sent by notif-worker 24 h after the last cart \
                       change.",
                entities: &["notif-worker"],
            },
            Note {
                key: "n105",
                text: "Elasticsearch snapshots go to the S3 bucket shop-es-snapshots daily at \
                       02:00.",
                entities: &["Elasticsearch"],
            },
            Note {
                key: "n106",
                text: "Raised max.poll.interval.ms to 10 min and moved the label purchase out of \
                       the poll loop.",
                entities: &[],
            },
            Note {
                key: "n107",
                text: "Lena is the SRE lead and owns the EKS cluster and the Terraform.",
                entities: &["Lena"],
            },
            Note {
                key: "n108",
                text: "Reservation TTL in inventory-svc raised from 5 to 15 min and made \
                       configurable per product drop.",
                entities: &["inventory-svc"],
            },
            Note {
                key: "n109",
                text: "Priya is on holiday 12-23 Aug; Marco owns checkout-api while she's away.",
                entities: &["Priya", "Marco", "checkout-api"],
            },
            Note {
                key: "n110",
                text: "payments-svc pins Stripe API version 2023-10-16; bump it only together with \
                       the webhook handler tests.",
                entities: &["payments-svc", "Stripe"],
            },
            Note {
                key: "n111",
                text: "Keycloak realm export drops custom password policies; reapply them manually \
                       after any restore.",
                entities: &["Keycloak"],
            },
            Note {
                key: "n112",
                text: "notif-worker output lands in the Datadog index workers-prod, not app-prod; \
                       filter on service:notif-worker.",
                entities: &["notif-worker", "Datadog"],
            },
            Note {
                key: "n113",
                text: "payments-svc receives Stripe webhooks at /hooks/stripe; the alert \
                       stripe-webhook-errors fires above 1% 5xx.",
                entities: &["payments-svc", "Stripe"],
            },
            Note {
                key: "n114",
                text: "Decision (Priya, May): product thumbnails are pre-generated at upload by \
                       admin-portal, not resized per request.",
                entities: &["Priya", "admin-portal"],
            },
            Note {
                key: "n115",
                text: "Customer password reset emails come from Keycloak, not from notif-worker.",
                entities: &["Keycloak", "notif-worker"],
            },
            Note {
                key: "n116",
                text: "Rate limiting uses its own Redis, ratelimit-cache, separate from \
                       session-cache.",
                entities: &["Redis", "ratelimit-cache", "session-cache"],
            },
            Note {
                key: "n117",
                text: "The orders table in orders-db (written by checkout-api) has 180M rows, \
                       partitioned by month since January.",
                entities: &["orders-db", "checkout-api"],
            },
            Note {
                key: "n118",
                text: "PagerDuty escalation: primary 5 min, secondary 10 min, then Lena as SRE \
                       lead.",
                entities: &["PagerDuty", "Lena"],
            },
            Note {
                key: "n119",
                text: "Priya asked me to run `make lint` before pushing any checkout-api change.",
                entities: &["Priya", "checkout-api"],
            },
            Note {
                key: "n120",
                text: "admin-portal is the back-office UI support agents use for refunds and order \
                       edits.",
                entities: &["admin-portal"],
            },
            Note {
                key: "n121",
                text: "The nightly catalog reindex had been moved to 18:00 UTC and maxed out \
                       catalog-db CPU during the peak.",
                entities: &["catalog-db"],
            },
            Note {
                key: "n122",
                text: "Staging storefront lives at staging.larkspur-shop.dev and is reset nightly \
                       from an anonymised prod dump.",
                entities: &[],
            },
            Note {
                key: "n123",
                text: "Olu writes the public status page updates during incidents.",
                entities: &["Olu"],
            },
            Note {
                key: "n124",
                text: "German shoppers sometimes see product prices without VAT on cached pages.",
                entities: &[],
            },
            Note {
                key: "n125",
                text: "checkout-api validates shipping addresses with EasyPost's verify endpoint \
                       before taking payment.",
                entities: &["checkout-api", "EasyPost"],
            },
            Note {
                key: "n126",
                text: "checkout-api order states: created -> priced -> authorized -> captured -> \
                       fulfilled; cancel is allowed until captured.",
                entities: &["checkout-api"],
            },
            Note {
                key: "n127",
                text: "order-worker retries EasyPost label purchases 5 times with backoff, then \
                       parks the order in needs-label.",
                entities: &["order-worker", "EasyPost"],
            },
        ],
        facts: &[
            Fact { key: "f01", subject: "checkout-api", predicate: "owned_by", object: "Priya" },
            Fact {
                key: "f02",
                subject: "checkout-api",
                predicate: "deployed_with",
                object: "Argo CD",
            },
            Fact { key: "f03", subject: "orders-db", predicate: "hosted_on", object: "Amazon RDS" },
            Fact { key: "f04", subject: "pricing-svc", predicate: "written_in", object: "Kotlin" },
            Fact {
                key: "f05",
                subject: "cart-service",
                predicate: "written_in",
                object: "TypeScript",
            },
            Fact { key: "f06", subject: "payments-svc", predicate: "owned_by", object: "Dana" },
            Fact { key: "f07", subject: "Datadog", predicate: "log_retention", object: "15 days" },
            Fact { key: "f08", subject: "search-svc", predicate: "owned_by", object: "Marco" },
            Fact {
                key: "f09",
                subject: "notif-worker",
                predicate: "sends_email_via",
                object: "Postmark",
            },
            Fact { key: "f10", subject: "session-cache", predicate: "engine", object: "Redis 7" },
            Fact { key: "f11", subject: "inventory-svc", predicate: "written_in", object: "Go" },
            Fact {
                key: "f12",
                subject: "admin-portal",
                predicate: "written_in",
                object: "Ruby on Rails",
            },
            Fact { key: "f13", subject: "Kafka", predicate: "hosted_on", object: "Amazon MSK" },
            Fact { key: "f14", subject: "INC-219", predicate: "severity", object: "SEV1" },
            Fact { key: "f15", subject: "INC-231", predicate: "severity", object: "SEV2" },
            Fact { key: "f16", subject: "Lena", predicate: "role", object: "SRE lead" },
            Fact { key: "f17", subject: "order-events", predicate: "partitions", object: "12" },
            Fact { key: "f18", subject: "Stripe", predicate: "account_region", object: "EU" },
            Fact {
                key: "f19",
                subject: "catalog-indexer",
                predicate: "schedule",
                object: "every 15 minutes",
            },
        ],
        links: &[
            Link {
                from: End::Entity("checkout-api"),
                to: End::Entity("orders-db"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("checkout-api"),
                to: End::Entity("payments-svc"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("checkout-api"),
                to: End::Entity("inventory-svc"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("checkout-api"),
                to: End::Entity("pricing-svc"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("admin-portal"),
                to: End::Entity("internal-tools"),
                relation: "owned_by",
            },
            Link {
                from: End::Entity("order-worker"),
                to: End::Entity("order-events"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("notif-worker"),
                to: End::Entity("order-events"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("search-svc"),
                to: End::Entity("catalog-indexer"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("catalog-indexer"),
                to: End::Entity("catalog-db"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("auth-gateway"),
                to: End::Entity("Keycloak"),
                relation: "built_with",
            },
            Link {
                from: End::Entity("payments-svc"),
                to: End::Entity("Stripe"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("INC-219"),
                to: End::Entity("payments-svc"),
                relation: "caused_by",
            },
            Link { from: End::Memory("n056"), to: End::Memory("n106"), relation: "fixed_by" },
            Link { from: End::Memory("n114"), to: End::Memory("n045"), relation: "derived_from" },
            Link { from: End::Memory("n034"), to: End::Memory("n121"), relation: "caused_by" },
            Link { from: End::Memory("n124"), to: End::Memory("n082"), relation: "relates_to" },
            Link { from: End::Memory("n103"), to: End::Memory("n005"), relation: "contradicts" },
            Link { from: End::Memory("n087"), to: End::Memory("n073"), relation: "derived_from" },
            Link { from: End::Memory("n036"), to: End::Memory("n052"), relation: "fixed_by" },
            Link { from: End::Memory("n062"), to: End::Memory("n077"), relation: "relates_to" },
            Link { from: End::Memory("n053"), to: End::Memory("n108"), relation: "fixed_by" },
        ],
        questions: &[
            // Entity (10)
            Question {
                query: "Who should I talk to about the service that calculates sales tax?",
                needs: &["n064", "n023"],
                hop: Hop::Entity,
                held_out: false,
            },
            Question {
                query: "Where do I find the logs for the job that emails order confirmations?",
                needs: &["n072", "n112"],
                hop: Hop::Entity,
                held_out: true,
            },
            Question {
                query: "Who led the response when shoppers got billed twice?",
                needs: &["n036", "n006"],
                hop: Hop::Entity,
                held_out: false,
            },
            Question {
                query: "What share of shoppers sees the redesigned payment screen at the moment?",
                needs: &["n069", "n096"],
                hop: Hop::Entity,
                held_out: true,
            },
            Question {
                query: "Which release of the engine behind product search are we on?",
                needs: &["n083", "n021"],
                hop: Hop::Entity,
                held_out: false,
            },
            Question {
                query: "Who is our contact at the company we buy shipping labels from?",
                needs: &["n080", "n030"],
                hop: Hop::Entity,
                held_out: true,
            },
            Question {
                query: "What instance type is the store that holds shopping carts?",
                needs: &["n049", "n058"],
                hop: Hop::Entity,
                held_out: false,
            },
            Question {
                query: "Who gets woken up when the card processor's webhooks start failing?",
                needs: &["n113", "n085"],
                hop: Hop::Entity,
                held_out: true,
            },
            Question {
                query: "What's the recovery procedure when the service Marco rewrote in Go falls \
                        over?",
                needs: &["n042", "n098"],
                hop: Hop::Entity,
                held_out: false,
            },
            Question {
                query: "Is there a limit on what the delivery text messages can cost us?",
                needs: &["n076", "n093"],
                hop: Hop::Entity,
                held_out: true,
            },
            // Relation (6)
            Question {
                query: "Checkout keeps throwing 502s at lunchtime - which dependency usually \
                        chokes first?",
                needs: &["n039", "n037"],
                hop: Hop::Relation,
                held_out: false,
            },
            Question {
                query: "A new support agent needs into the back-office refund tool - where do I \
                        ask?",
                needs: &["n120", "n055"],
                hop: Hop::Relation,
                held_out: true,
            },
            Question {
                query: "If fulfilment lags over a long weekend, how long until unprocessed \
                        messages are gone for good?",
                needs: &["n031", "n094"],
                hop: Hop::Relation,
                held_out: false,
            },
            Question {
                query: "How do I revert a bad release of the checkout API?",
                needs: &["n088", "n011"],
                hop: Hop::Relation,
                held_out: true,
            },
            Question {
                query: "Search still shows items we took down yesterday - what should have cleaned \
                        them out?",
                needs: &["n017", "n013"],
                hop: Hop::Relation,
                held_out: false,
            },
            Question {
                query: "We rebuilt the customer login gateway from a backup - is there anything to \
                        redo by hand?",
                needs: &["n018", "n111"],
                hop: Hop::Relation,
                held_out: true,
            },
            // MemoryLink (6)
            Question {
                query: "What did we change so orders stopped piling up in pending?",
                needs: &["n056", "n106"],
                hop: Hop::MemoryLink,
                held_out: false,
            },
            Question {
                query: "What numbers convinced us to pre-generate product thumbnails?",
                needs: &["n114", "n045"],
                hop: Hop::MemoryLink,
                held_out: true,
            },
            Question {
                query: "What was behind the Black Friday checkout slowdown?",
                needs: &["n034", "n121"],
                hop: Hop::MemoryLink,
                held_out: false,
            },
            Question {
                query: "Why do shoppers in Germany sometimes get prices without VAT?",
                needs: &["n124", "n082"],
                hop: Hop::MemoryLink,
                held_out: true,
            },
            Question {
                query: "Above what amount does a refund need manual approval?",
                needs: &["n005", "n103"],
                hop: Hop::MemoryLink,
                held_out: false,
            },
            Question {
                query: "Where did the rule against late Friday deploys come from?",
                needs: &["n087", "n073"],
                hop: Hop::MemoryLink,
                held_out: true,
            },
            // Single (8)
            Question {
                query: "How do I reprocess order events that ended up in the dead-letter queue?",
                needs: &["n008"],
                hop: Hop::Single,
                held_out: false,
            },
            Question {
                query: "Which Postgres version is the orders database running?",
                needs: &["n068"],
                hop: Hop::Single,
                held_out: true,
            },
            Question {
                query: "Where is the staging storefront, and how fresh is its data?",
                needs: &["n122"],
                hop: Hop::Single,
                held_out: false,
            },
            Question {
                query: "How long does Datadog keep our logs?",
                needs: &["f07"],
                hop: Hop::Single,
                held_out: true,
            },
            Question {
                query: "Who is the product manager for checkout?",
                needs: &["n070"],
                hop: Hop::Single,
                held_out: false,
            },
            Question {
                query: "How do I run the checkout API test suite locally?",
                needs: &["n001"],
                hop: Hop::Single,
                held_out: true,
            },
            Question {
                query: "Which Stripe API version are we pinned to?",
                needs: &["n110"],
                hop: Hop::Single,
                held_out: false,
            },
            Question {
                query: "On which days do regular releases go out?",
                needs: &["n051"],
                hop: Hop::Single,
                held_out: true,
            },
        ],
    },
    GraphWorld {
        name: "homelab-infra",
        notes: &[
            Note {
                key: "n001",
                text: "The office smart plugs are IKEA Zigbee, paired to Home Assistant.",
                entities: &["Home Assistant"],
            },
            Note {
                key: "n002",
                text: "Jellyfin transcodes with VAAPI on atlas's Radeon iGPU, passed through to \
                       docker01.",
                entities: &["Jellyfin", "atlas", "docker01"],
            },
            Note {
                key: "n003",
                text: "The Home Assistant companion app on Maya's and Sam's phones does presence \
                       detection.",
                entities: &["Home Assistant", "Maya", "Sam"],
            },
            Note {
                key: "n004",
                text: "March: Ava's iPad could not install or update apps for a week.",
                entities: &["Ava", "Ava's iPad"],
            },
            Note {
                key: "n005",
                text: "Jellyfin film and series libraries point at tank/media, passed into \
                       docker01 with virtiofs.",
                entities: &["Jellyfin", "tank", "docker01"],
            },
            Note {
                key: "n006",
                text: "fio 4k random read: 310k IOPS on the two-way mirror vs 190k on a three-SSD \
                       RAIDZ1; resilver took 4 min vs 38 min.",
                entities: &[],
            },
            Note {
                key: "n007",
                text: "atlas runs Proxmox VE 8.2; updates come from the no-subscription repo.",
                entities: &["atlas", "Proxmox"],
            },
            Note {
                key: "n008",
                text: "The Backblaze B2 bill is about $6 a month; a lifecycle rule keeps hidden \
                       file versions for 30 days.",
                entities: &["Backblaze B2"],
            },
            Note {
                key: "n009",
                text: "Proxmox web UI is at atlas.lab.hollis.net on port 8006.",
                entities: &["Proxmox", "atlas"],
            },
            Note {
                key: "n010",
                text: "docker01 is backed up nightly at 02:30 by pbs to datastore main, keeping 7 \
                       daily and 4 weekly.",
                entities: &["docker01", "pbs"],
            },
            Note {
                key: "n011",
                text: "mc01 backs up Leo's Minecraft world to vault every 6 hours.",
                entities: &["mc01", "Leo", "vault"],
            },
            Note {
                key: "n012",
                text: "Sam keeps a printed copy of the recovery steps in the desk drawer.",
                entities: &["Sam"],
            },
            Note {
                key: "n013",
                text: "The Brother scanner has a fixed IP, 192.168.10.60, and a 300 dpi PDF \
                       profile named Paperless.",
                entities: &["Brother scanner"],
            },
            Note {
                key: "n014",
                text: "Pi-hole: `pihole restartdns` on piglet restarts DNS; if gravity is corrupt, \
                       run `pihole -g`.",
                entities: &["Pi-hole", "piglet"],
            },
            Note {
                key: "n015",
                text: "Home Assistant drives the hallway lights and the kids' bedroom blinds.",
                entities: &["Home Assistant"],
            },
            Note {
                key: "n016",
                text: "tank is at 87% after the last scrub; ZFS gets sluggish past 90%, so plan \
                       more disks before summer.",
                entities: &["tank"],
            },
            Note {
                key: "n017",
                text: "The UPS signals vault over USB; vault tells atlas through NUT to shut down \
                       at 20% battery.",
                entities: &["vault", "atlas", "NUT"],
            },
            Note {
                key: "n018",
                text: "Paperless-ngx picks up scanned household documents from \
                       docker01:/srv/paperless/consume, fed by the Brother scanner.",
                entities: &["Paperless-ngx", "docker01", "Brother scanner"],
            },
            Note {
                key: "n019",
                text: "edge firewall: VLAN 30 may only reach DNS and NTP over UDP; every other \
                       outbound UDP packet is dropped.",
                entities: &["edge", "VLAN 30"],
            },
            Note {
                key: "n020",
                text: "outpost keeps a WireGuard tunnel to edge so external checks can reach LAN \
                       services.",
                entities: &["outpost", "WireGuard", "edge"],
            },
            Note {
                key: "n021",
                text: "restic prune runs on the 1st of each month: keep 14 daily, 8 weekly, 12 \
                       monthly.",
                entities: &["restic"],
            },
            Note {
                key: "n022",
                text: "restic backs up Sam's laptop kestrel every night at 23:00 when it's on the \
                       home network.",
                entities: &["restic", "Sam", "kestrel"],
            },
            Note {
                key: "n023",
                text: "The SONOFF ZBDongle-E has to sit on a USB 2 port on an extension lead; on \
                       USB 3 the Zigbee mesh keeps dropping devices.",
                entities: &["ZBDongle-E"],
            },
            Note {
                key: "n024",
                text: "Nextcloud background jobs run every 5 min from a systemd timer on docker01, \
                       not AJAX.",
                entities: &["Nextcloud", "docker01"],
            },
            Note {
                key: "n025",
                text: "Living-room Apple TV plays Jellyfin through Infuse; direct play only, no \
                       transcoding.",
                entities: &["Apple TV", "Jellyfin"],
            },
            Note {
                key: "n026",
                text: "Phone photos: Immich for Sam and Maya; the kids' phones back up to iCloud \
                       instead.",
                entities: &["Immich", "Sam", "Maya"],
            },
            Note {
                key: "n027",
                text: "Prometheus keeps 30 days on mon; node_exporter runs on atlas and piglet, \
                       and vault is scraped over SNMP.",
                entities: &["Prometheus", "mon", "atlas", "piglet", "vault"],
            },
            Note {
                key: "n028",
                text: "Outage 3 Nov: after the power cut every *.lab site refused connections \
                       until Sam restarted docker01 by hand.",
                entities: &["Sam", "docker01"],
            },
            Note {
                key: "n029",
                text: "Maya wants the Nextcloud family calendar shared read-only with Grandma.",
                entities: &["Maya", "Nextcloud", "Grandma"],
            },
            Note {
                key: "n030",
                text: "Home Assistant backs itself up to vault every night with the Samba Backup \
                       add-on.",
                entities: &["Home Assistant", "vault"],
            },
            Note {
                key: "n031",
                text: "Immich is the family photo app; phones auto-upload over home Wi-Fi only.",
                entities: &["Immich"],
            },
            Note {
                key: "n032",
                text: "The free Zen router is in a drawer; edge does PPPoE directly.",
                entities: &["Zen", "edge"],
            },
            Note {
                key: "n033",
                text: "piglet has a DHCP reservation at 192.168.10.3 on edge and also serves NTP \
                       to the LAN.",
                entities: &["piglet", "edge"],
            },
            Note {
                key: "n034",
                text: "The random freezes on atlas were the Realtek NIC driver; an Intel i226 card \
                       went in during April and they stopped.",
                entities: &["atlas"],
            },
            Note {
                key: "n035",
                text: "Sonos needs mDNS between VLAN 10 and VLAN 20; the mdns-repeater plugin on \
                       edge handles it.",
                entities: &["VLAN 10", "VLAN 20", "edge"],
            },
            Note {
                key: "n036",
                text: "pbs verify job runs on Saturdays; garbage collection runs daily at 05:00.",
                entities: &["pbs"],
            },
            Note {
                key: "n037",
                text: "Nextcloud's data directory is on vault, NFS-mounted into docker01.",
                entities: &["Nextcloud", "vault", "docker01"],
            },
            Note {
                key: "n038",
                text: "Ripped Blu-rays go under tank/media/movies, one folder per film with the \
                       year.",
                entities: &["tank"],
            },
            Note {
                key: "n039",
                text: "Caddyfile is /srv/compose/caddy/Caddyfile on docker01; reload with `docker \
                       exec caddy caddy reload`.",
                entities: &["Caddy", "docker01"],
            },
            Note {
                key: "n040",
                text: "Immich external library: Sam's old DSLR photos at vault:/volume1/archive, \
                       read-only.",
                entities: &["Immich", "Sam", "vault"],
            },
            Note {
                key: "n041",
                text: "Vaultwarden holds the family's shared logins; Sam and Maya are organisation \
                       owners.",
                entities: &["Vaultwarden", "Sam", "Maya"],
            },
            Note {
                key: "n042",
                text: "vault's Hyper Backup task offsite-b2 runs Sundays at 03:00 to the Backblaze \
                       B2 bucket hollis-vault; versions kept 90 days.",
                entities: &["vault", "Hyper Backup", "Backblaze B2"],
            },
            Note {
                key: "n043",
                text: "Immich keeps the family photo library on vault, in the share \
                       /volume1/photos.",
                entities: &["Immich", "vault"],
            },
            Note {
                key: "n044",
                text: "edge DHCP hands out piglet as the only DNS server on every VLAN.",
                entities: &["edge", "piglet"],
            },
            Note {
                key: "n045",
                text: "VLAN 20 is for media devices: the Sonos speakers and the living-room TV.",
                entities: &["VLAN 20"],
            },
            Note {
                key: "n046",
                text: "Nextcloud Talk has no high-performance backend installed; fine for up to \
                       four callers.",
                entities: &["Nextcloud"],
            },
            Note {
                key: "n047",
                text: "Change tado schedules in Home Assistant, not the tado app, or they get \
                       overwritten.",
                entities: &["tado", "Home Assistant"],
            },
            Note {
                key: "n048",
                text: "Sam prefers alerts through the Telegram bot, not email; email only for the \
                       weekly summary.",
                entities: &["Sam", "Telegram"],
            },
            Note {
                key: "n049",
                text: "Guest Wi-Fi Hollis-Guest is VLAN 40, 192.168.40.0/24, with client isolation \
                       on.",
                entities: &["VLAN 40"],
            },
            Note {
                key: "n050",
                text: "Grafana dashboard atlas-overview shows CPU temperature, ZFS ARC hit rate \
                       and disk temperatures.",
                entities: &["Grafana", "atlas"],
            },
            Note {
                key: "n051",
                text: "The Proxmox firewall is off on atlas; edge does all the filtering.",
                entities: &["Proxmox", "atlas", "edge"],
            },
            Note {
                key: "n052",
                text: "vault's DSM certificate is a separate Let's Encrypt cert that DSM renews \
                       itself.",
                entities: &["vault", "Let's Encrypt"],
            },
            Note {
                key: "n053",
                text: "Caddy terminates TLS for every *.lab.hollis.net site on docker01 and gets \
                       certificates with the DNS-01 challenge.",
                entities: &["Caddy", "docker01"],
            },
            Note {
                key: "n054",
                text: "Never reboot atlas during Maya's work calls, weekdays 09:00-17:00 - Sam's \
                       request.",
                entities: &["atlas", "Maya", "Sam"],
            },
            Note {
                key: "n055",
                text: "atlas BIOS: SVM and IOMMU on, C-states capped at C6 while chasing random \
                       freezes.",
                entities: &["atlas"],
            },
            Note {
                key: "n056",
                text: "Leo's Switch has a DHCP reservation, 192.168.30.22, so its traffic is easy \
                       to spot in edge's logs.",
                entities: &["Leo", "edge"],
            },
            Note {
                key: "n057",
                text: "Leo has a Minecraft server LXC on atlas (mc01), whitelist only, 4 GB RAM.",
                entities: &["Leo", "atlas", "mc01"],
            },
            Note {
                key: "n058",
                text: "Pi-hole kids group blocks YouTube, Roblox and TikTok domains from 20:00 to \
                       07:00 via a cron job on piglet.",
                entities: &["Pi-hole", "kids group", "piglet"],
            },
            Note {
                key: "n059",
                text: "outpost is a Hetzner CX22 in Falkenstein, paid yearly; it renews each \
                       March.",
                entities: &["outpost", "Hetzner"],
            },
            Note {
                key: "n060",
                text: "coturn on outpost needs 3478/udp and 49160-49200/udp open in the Hetzner \
                       firewall; only 3478 was open.",
                entities: &["coturn", "outpost", "Hetzner"],
            },
            Note {
                key: "n061",
                text: "Grandma's video calls in the family Nextcloud Talk room drop after about a \
                       minute.",
                entities: &["Grandma", "Nextcloud"],
            },
            Note {
                key: "n062",
                text: "Uptime Kuma checks every lab service from outside every 60 s and messages \
                       Sam on Telegram when one fails.",
                entities: &["Uptime Kuma", "Sam", "Telegram"],
            },
            Note {
                key: "n063",
                text: "sw-lounge is a UniFi USW-Lite-8 behind the TV with its uplink on port 8.",
                entities: &["sw-lounge"],
            },
            Note {
                key: "n064",
                text: "Tailscale is only on outpost and atlas, as a way into atlas when WireGuard \
                       is down.",
                entities: &["Tailscale", "outpost", "atlas"],
            },
            Note {
                key: "n065",
                text: "Heating schedule is a Home Assistant automation using the tado integration; \
                       weekday warm-up at 06:30.",
                entities: &["Home Assistant", "tado"],
            },
            Note {
                key: "n066",
                text: "January: the Paperless-ngx admin page was reachable from outside for three \
                       weeks; spotted it in a Shodan scan.",
                entities: &["Paperless-ngx"],
            },
            Note {
                key: "n067",
                text: "atlas hardware: Ryzen 7 5700G, 64 GB ECC, two 1 TB NVMe in a ZFS mirror \
                       (rpool).",
                entities: &["atlas", "rpool"],
            },
            Note {
                key: "n068",
                text: "Proxmox boot order: VM 101 now starts second, with a 120 s delay so the NAS \
                       shares are mounted first.",
                entities: &["Proxmox"],
            },
            Note {
                key: "n069",
                text: "Apple TV is wired to sw-lounge port 5, untagged VLAN 20; its Wi-Fi is \
                       switched off.",
                entities: &["Apple TV", "sw-lounge", "VLAN 20"],
            },
            Note {
                key: "n070",
                text: "ZFS scrub on tank runs on the first Sunday of each month at 01:00 from the \
                       zfsutils cron.",
                entities: &["tank"],
            },
            Note {
                key: "n071",
                text: "Fibre is Zen FTTP 900/100; the Openreach ONT sits in the hall cupboard next \
                       to piglet.",
                entities: &["Zen", "piglet"],
            },
            Note {
                key: "n072",
                text: "Sam's rule: no port forwards on edge except WireGuard on 51820/udp.",
                entities: &["Sam", "edge", "WireGuard"],
            },
            Note {
                key: "n073",
                text: "atlas idles at about 65 W; the whole rack draws around 110 W.",
                entities: &["atlas"],
            },
            Note {
                key: "n074",
                text: "Authelia uses TOTP for Sam and Maya; the kids get no external access.",
                entities: &["Authelia", "Sam", "Maya"],
            },
            Note {
                key: "n075",
                text: "Sam: the NAS (vault) fans bother Maya at night, so keep them on Quiet mode.",
                entities: &["Sam", "vault", "Maya"],
            },
            Note {
                key: "n076",
                text: "atlas is the Proxmox host; every VM and LXC in the lab runs on it.",
                entities: &["atlas", "Proxmox"],
            },
            Note {
                key: "n077",
                text: "Pi-hole forwards to Quad9 and Cloudflare over DoH through cloudflared.",
                entities: &["Pi-hole", "Cloudflare"],
            },
            Note {
                key: "n078",
                text: "Immich machine learning is pinned to 2 CPUs so face recognition doesn't \
                       starve Jellyfin.",
                entities: &["Immich", "Jellyfin"],
            },
            Note {
                key: "n079",
                text: "Sam's laptop kestrel is a Framework 13 running Fedora.",
                entities: &["Sam", "kestrel"],
            },
            Note {
                key: "n080",
                text: "Hyper Backup integrity check runs monthly; the last one passed on 2 June.",
                entities: &["Hyper Backup"],
            },
            Note {
                key: "n081",
                text: "Maya can restart the Jellyfin stack herself through a Portainer account Sam \
                       limited to it.",
                entities: &["Maya", "Jellyfin", "Portainer", "Sam"],
            },
            Note {
                key: "n082",
                text: "Pi-hole was blocking Apple's CDN hosts (mzstatic.com) once the OISD list \
                       was added; allowlisted them.",
                entities: &["Pi-hole"],
            },
            Note {
                key: "n083",
                text: "August heatwave: drives hit 52C, so it's switched to Cool for good.",
                entities: &[],
            },
            Note {
                key: "n084",
                text: "mon is an LXC on atlas running Prometheus and Grafana; dashboards are \
                       provisioned from git.",
                entities: &["mon", "atlas", "Prometheus", "Grafana"],
            },
            Note {
                key: "n085",
                text: "hass is excluded from pbs because Home Assistant makes its own backups.",
                entities: &["hass", "pbs", "Home Assistant"],
            },
            Note {
                key: "n086",
                text: "Paperless-ngx OCR languages are eng+deu for Grandma's German letters.",
                entities: &["Paperless-ngx", "Grandma"],
            },
            Note {
                key: "n087",
                text: "edge is OPNsense on a Protectli VP2420; the main LAN 192.168.10.0/24 is \
                       VLAN 10.",
                entities: &["edge", "OPNsense", "VLAN 10"],
            },
            Note {
                key: "n088",
                text: "Maya's MacBook Air backs up with Time Machine to vault over SMB.",
                entities: &["Maya", "vault"],
            },
            Note {
                key: "n089",
                text: "A second Uptime Kuma on mon does LAN-only checks.",
                entities: &["Uptime Kuma", "mon"],
            },
            Note {
                key: "n090",
                text: "Vaultwarden is reachable only on the LAN and over WireGuard, never \
                       publicly.",
                entities: &["Vaultwarden", "WireGuard"],
            },
            Note {
                key: "n091",
                text: "Sam wants every new service as a docker compose stack on docker01, not as \
                       its own LXC.",
                entities: &["Sam", "docker01"],
            },
            Note {
                key: "n092",
                text: "pbs is an LXC on atlas; its datastore main is an NFS share on vault.",
                entities: &["pbs", "atlas", "vault"],
            },
            Note {
                key: "n093",
                text: "Two U6-Lite access points, landing and office; the UniFi controller runs on \
                       docker01.",
                entities: &["docker01"],
            },
            Note {
                key: "n094",
                text: "The Cloudflare API credential for DNS edits is scoped to zone hollis.net \
                       and is valid until Sept 2025; make a new one before then.",
                entities: &["Cloudflare"],
            },
            Note {
                key: "n095",
                text: "DSM auto-update is off on vault; Sam applies DSM updates by hand once a \
                       month.",
                entities: &["vault", "Sam"],
            },
            Note {
                key: "n096",
                text: "immich-db is Postgres 14 with pgvecto-rs; only move its image tag when the \
                       upstream release notes say so.",
                entities: &["immich-db"],
            },
            Note {
                key: "n097",
                text: "The Backblaze B2 bucket hollis-vault has object lock off; versioning is \
                       handled by Hyper Backup.",
                entities: &["Backblaze B2", "Hyper Backup"],
            },
            Note {
                key: "n098",
                text: "Zen gives a static IPv4 and a /48 of IPv6; IPv6 is off on the LAN for now.",
                entities: &["Zen"],
            },
            Note {
                key: "n099",
                text: "If piglet dies, switch edge's DHCP DNS option to edge itself; Unbound is \
                       running there as a fallback.",
                entities: &["piglet", "edge"],
            },
            Note {
                key: "n100",
                text: "Re-running Immich face recognition after the upgrade took 9 hours on atlas.",
                entities: &["Immich", "atlas"],
            },
            Note {
                key: "n101",
                text: "Rule: nothing is exposed to the internet unless it sits behind Authelia.",
                entities: &["Authelia"],
            },
            Note {
                key: "n102",
                text: "Jellyfin accounts: Sam and Maya are admins; the kids' profiles are limited \
                       to rating 12.",
                entities: &["Jellyfin", "Sam", "Maya"],
            },
            Note {
                key: "n103",
                text: "Maya's iPhone reaches Nextcloud from outside through the WireGuard peer \
                       maya-phone.",
                entities: &["Maya", "Nextcloud", "WireGuard", "maya-phone"],
            },
            Note {
                key: "n104",
                text: "Sam wants pinned image tags in compose files, never :latest.",
                entities: &["Sam"],
            },
            Note {
                key: "n105",
                text: "On atlas, rpool holds the root filesystem and VM disks live on local-zfs.",
                entities: &["atlas", "rpool"],
            },
            Note {
                key: "n106",
                text: "Ava's iPad has a fixed lease, 192.168.30.41, on edge.",
                entities: &["Ava", "Ava's iPad", "edge"],
            },
            Note {
                key: "n107",
                text: "Caddy used the Let's Encrypt staging CA while testing; switched to \
                       production in May.",
                entities: &["Caddy", "Let's Encrypt"],
            },
            Note {
                key: "n108",
                text: "vault is a Synology DS920+ with four 8 TB drives in SHR-1.",
                entities: &["vault"],
            },
            Note {
                key: "n109",
                text: "Sam's ssh config on kestrel: alias a for atlas, d for docker01.",
                entities: &["Sam", "kestrel", "atlas", "docker01"],
            },
            Note {
                key: "n110",
                text: "Zen support: call the fault line, option 2, and quote service ref \
                       ZEN-448120; they want the ONT light colours first.",
                entities: &["Zen"],
            },
            Note {
                key: "n111",
                text: "Leo's Switch sits on the IoT VLAN 30 because it would not join the WPA3 \
                       network.",
                entities: &["Leo", "VLAN 30"],
            },
            Note {
                key: "n112",
                text: "Ad blocking for the whole house is Pi-hole on piglet, the Raspberry Pi 4 in \
                       the hall cupboard.",
                entities: &["Pi-hole", "piglet"],
            },
            Note {
                key: "n113",
                text: "docker01 is VM 101 on atlas: 6 vCPU, 16 GB RAM, Debian 12.",
                entities: &["docker01", "atlas"],
            },
            Note {
                key: "n114",
                text: "Internal hostnames live under lab.hollis.net; Pi-hole answers them locally \
                       and Cloudflare holds no public records for them.",
                entities: &["Pi-hole", "Cloudflare"],
            },
            Note {
                key: "n115",
                text: "atlas kernel is pinned to 6.5 because 6.8 broke the iGPU passthrough.",
                entities: &["atlas"],
            },
            Note {
                key: "n116",
                text: "tank is a RAIDZ2 of six 8 TB HDDs in atlas's hot-swap bays.",
                entities: &["tank", "atlas"],
            },
            Note {
                key: "n117",
                text: "maya-phone peer config needs DNS = 192.168.10.3 and AllowedIPs \
                       192.168.10.0/24, otherwise hostnames only resolve on the LAN.",
                entities: &["maya-phone"],
            },
            Note {
                key: "n118",
                text: "Decision: rpool on atlas stays a two-disk NVMe mirror rather than RAIDZ1.",
                entities: &["atlas", "rpool"],
            },
            Note {
                key: "n119",
                text: "IoT VLAN 30 holds the tado bridge, the Hue bridge and the robot vacuum.",
                entities: &["VLAN 30", "tado"],
            },
            Note {
                key: "n120",
                text: "Grandma has a Galaxy Tab A8 with just Nextcloud Talk and the photo frame \
                       app on it.",
                entities: &["Grandma", "Nextcloud"],
            },
            Note {
                key: "n121",
                text: "The kids' devices share VLAN 30 with IoT for now; Sam wants a separate kids \
                       VLAN eventually.",
                entities: &["VLAN 30", "Sam"],
            },
            Note {
                key: "n122",
                text: "Container updates on docker01: `cd /srv/compose && docker compose pull && \
                       docker compose up -d`, Sunday mornings.",
                entities: &["docker01"],
            },
            Note {
                key: "n123",
                text: "Home Assistant OS is VM 104 (hass) on atlas, 2 vCPU and 4 GB RAM.",
                entities: &["Home Assistant", "hass", "atlas"],
            },
            Note {
                key: "n124",
                text: "WireGuard on edge listens on 51820/udp; peers are kestrel, maya-phone and \
                       sam-phone.",
                entities: &["WireGuard", "edge", "kestrel", "maya-phone"],
            },
        ],
        facts: &[
            Fact { key: "f01", subject: "atlas", predicate: "runs", object: "Proxmox VE 8.2" },
            Fact { key: "f02", subject: "Immich", predicate: "uses_database", object: "immich-db" },
            Fact {
                key: "f03",
                subject: "vault",
                predicate: "protected_by",
                object: "APC Back-UPS 700",
            },
            Fact { key: "f04", subject: "vault", predicate: "model", object: "Synology DS920+" },
            Fact { key: "f05", subject: "piglet", predicate: "runs", object: "Pi-hole" },
            Fact { key: "f06", subject: "edge", predicate: "runs", object: "OPNsense" },
            Fact { key: "f07", subject: "docker01", predicate: "vm_id", object: "101" },
            Fact { key: "f08", subject: "Jellyfin", predicate: "runs_on", object: "docker01" },
            Fact { key: "f09", subject: "Maya", predicate: "laptop", object: "MacBook Air" },
            Fact { key: "f10", subject: "Leo", predicate: "console", object: "Nintendo Switch" },
            Fact { key: "f11", subject: "kestrel", predicate: "model", object: "Framework 13" },
            Fact { key: "f12", subject: "edge", predicate: "hardware", object: "Protectli VP2420" },
            Fact {
                key: "f13",
                subject: "tank",
                predicate: "layout",
                object: "RAIDZ2 of six 8 TB disks",
            },
            Fact { key: "f14", subject: "Caddy", predicate: "runs_on", object: "docker01" },
            Fact {
                key: "f15",
                subject: "Uptime Kuma",
                predicate: "check_interval",
                object: "60 s",
            },
            Fact { key: "f16", subject: "Authelia", predicate: "runs_on", object: "docker01" },
            Fact { key: "f17", subject: "Grandma", predicate: "tablet", object: "Galaxy Tab A8" },
            Fact { key: "f18", subject: "Home Assistant", predicate: "version", object: "2024.6" },
            Fact { key: "f19", subject: "coturn", predicate: "runs_on", object: "outpost" },
        ],
        links: &[
            Link {
                from: End::Entity("Caddy"),
                to: End::Entity("Cloudflare"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("Home Assistant"),
                to: End::Entity("ZBDongle-E"),
                relation: "depends_on",
            },
            Link {
                from: End::Entity("Uptime Kuma"),
                to: End::Entity("outpost"),
                relation: "runs_on",
            },
            Link {
                from: End::Entity("Ava's iPad"),
                to: End::Entity("kids group"),
                relation: "member_of",
            },
            Link {
                from: End::Entity("restic"),
                to: End::Entity("Backblaze B2"),
                relation: "stores_to",
            },
            Link { from: End::Entity("docker01"), to: End::Entity("atlas"), relation: "part_of" },
            Link { from: End::Entity("hass"), to: End::Entity("atlas"), relation: "part_of" },
            Link { from: End::Entity("pbs"), to: End::Entity("vault"), relation: "depends_on" },
            Link {
                from: End::Entity("Nextcloud"),
                to: End::Entity("vault"),
                relation: "depends_on",
            },
            Link { from: End::Entity("Jellyfin"), to: End::Entity("tank"), relation: "depends_on" },
            Link { from: End::Entity("WireGuard"), to: End::Entity("edge"), relation: "part_of" },
            Link { from: End::Memory("n028"), to: End::Memory("n068"), relation: "fixed_by" },
            Link { from: End::Memory("n004"), to: End::Memory("n082"), relation: "caused_by" },
            Link { from: End::Memory("n118"), to: End::Memory("n006"), relation: "derived_from" },
            Link { from: End::Memory("n083"), to: End::Memory("n075"), relation: "contradicts" },
            Link { from: End::Memory("n061"), to: End::Memory("n060"), relation: "relates_to" },
            Link { from: End::Memory("n101"), to: End::Memory("n066"), relation: "derived_from" },
            Link { from: End::Memory("n055"), to: End::Memory("n034"), relation: "relates_to" },
            Link { from: End::Memory("n017"), to: End::Memory("n028"), relation: "relates_to" },
            Link { from: End::Memory("n080"), to: End::Memory("n042"), relation: "relates_to" },
        ],
        questions: &[
            // Entity (10)
            Question {
                query: "Are the family pictures copied anywhere outside the house, and how often?",
                needs: &["n043", "n042"],
                hop: Hop::Entity,
                held_out: false,
            },
            Question {
                query: "What IP does the box that blocks ads for the house have?",
                needs: &["n112", "n033"],
                hop: Hop::Entity,
                held_out: true,
            },
            Question {
                query: "Why can't Leo play online with his friends on the Switch?",
                needs: &["n111", "n019"],
                hop: Hop::Entity,
                held_out: false,
            },
            Question {
                query: "Are we about to run out of room where the films are kept?",
                needs: &["n005", "n016"],
                hop: Hop::Entity,
                held_out: true,
            },
            Question {
                query: "Which machine does the heating schedule actually run on?",
                needs: &["n065", "n123"],
                hop: Hop::Entity,
                held_out: false,
            },
            Question {
                query: "Away from home, Maya can only reach the file server by IP, not by its name \
                        - what's missing?",
                needs: &["n103", "n117"],
                hop: Hop::Entity,
                held_out: true,
            },
            Question {
                query: "Who do I phone when the fibre drops, and what will they ask for?",
                needs: &["n071", "n110"],
                hop: Hop::Entity,
                held_out: false,
            },
            Question {
                query: "If the scanned paperwork got wiped, how far back could I recover it?",
                needs: &["n018", "n010"],
                hop: Hop::Entity,
                held_out: true,
            },
            Question {
                query: "How is the living-room film box connected to the network?",
                needs: &["n025", "n069"],
                hop: Hop::Entity,
                held_out: false,
            },
            Question {
                query: "What CPU does the Proxmox host have?",
                needs: &["n076", "n067"],
                hop: Hop::Entity,
                held_out: true,
            },
            // Relation (6)
            Question {
                query: "Certificate renewals for the lab sites started failing - what might have \
                        lapsed?",
                needs: &["n053", "n094"],
                hop: Hop::Relation,
                held_out: false,
            },
            Question {
                query: "The blinds and lights keep ignoring automations - is there a known \
                        hardware gotcha?",
                needs: &["n015", "n023"],
                hop: Hop::Relation,
                held_out: true,
            },
            Question {
                query: "I want to update the photo app's database container - anything to watch \
                        out for?",
                needs: &["n031", "n096"],
                hop: Hop::Relation,
                held_out: false,
            },
            Question {
                query: "Where is the outside uptime monitoring hosted, and when does it need \
                        paying for?",
                needs: &["n062", "n059"],
                hop: Hop::Relation,
                held_out: true,
            },
            Question {
                query: "Why does Ava's tablet stop playing videos after eight in the evening?",
                needs: &["n106", "n058"],
                hop: Hop::Relation,
                held_out: false,
            },
            Question {
                query: "What does the offsite storage for my laptop backups cost?",
                needs: &["n022", "n008"],
                hop: Hop::Relation,
                held_out: true,
            },
            // MemoryLink (6)
            Question {
                query: "What did we change so the lab sites come back by themselves after a power \
                        cut?",
                needs: &["n028", "n068"],
                hop: Hop::MemoryLink,
                held_out: false,
            },
            Question {
                query: "Why couldn't Ava get new games on her tablet back in March?",
                needs: &["n004", "n082"],
                hop: Hop::MemoryLink,
                held_out: true,
            },
            Question {
                query: "What measurements was the pool layout decision on atlas based on?",
                needs: &["n118", "n006"],
                hop: Hop::MemoryLink,
                held_out: false,
            },
            Question {
                query: "Which fan setting should the NAS be on?",
                needs: &["n075", "n083"],
                hop: Hop::MemoryLink,
                held_out: true,
            },
            Question {
                query: "Why do Grandma's video calls keep cutting out?",
                needs: &["n061", "n060"],
                hop: Hop::MemoryLink,
                held_out: false,
            },
            Question {
                query: "Why does everything we expose publicly have to go through Authelia?",
                needs: &["n101", "n066"],
                hop: Hop::MemoryLink,
                held_out: true,
            },
            // Single (8)
            Question {
                query: "How do I update the containers on docker01?",
                needs: &["n122"],
                hop: Hop::Single,
                held_out: false,
            },
            Question {
                query: "What port is the Proxmox web interface on?",
                needs: &["n009"],
                hop: Hop::Single,
                held_out: true,
            },
            Question {
                query: "What subnet does the guest Wi-Fi use?",
                needs: &["n049"],
                hop: Hop::Single,
                held_out: false,
            },
            Question {
                query: "Which UPS protects vault?",
                needs: &["f03"],
                hop: Hop::Single,
                held_out: true,
            },
            Question {
                query: "When do the ZFS scrubs run?",
                needs: &["n070"],
                hop: Hop::Single,
                held_out: false,
            },
            Question {
                query: "Should alerts for Sam go out by email?",
                needs: &["n048"],
                hop: Hop::Single,
                held_out: true,
            },
            Question {
                query: "How do I restart Pi-hole's DNS?",
                needs: &["n014"],
                hop: Hop::Single,
                held_out: false,
            },
            Question {
                query: "Do the internal hostnames have public DNS records?",
                needs: &["n114"],
                hop: Hop::Single,
                held_out: true,
            },
        ],
    },
];
