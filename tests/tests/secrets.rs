//! Credentials caught at the door, through MCP: refused by default with an
//! error that says what and where (never echoing it), stored with
//! `allow_secrets`, redacted in a namespace set to `redact`.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use ferrex_tests::TestHome;
use serde_json::json;

/// A Stripe-format live key, built here so that no key-shaped literal sits
/// in the source.
fn stripe_key() -> String {
    format!("sk_{}_{}", "live", "4eC39HqLyjWDarjtT1zdp7dc")
}

#[tokio::test]
async fn a_credential_is_refused_unless_allowed_and_redacted_where_asked() {
    let home = TestHome::with_config("[namespaces.vault]\nsecrets = \"redact\"\n");
    let client = home.client().await;
    let content = format!("The Stripe API key for production is {}.", stripe_key());

    let refused = client.call("store", json!({"content": content})).await.unwrap();
    let message = refused.expect_err("a credential must be refused");
    assert!(message.contains("stripe-secret-key"), "{message}");
    assert!(message.contains("characters 38–69"), "{message}");
    assert!(message.contains("allow_secrets"), "{message}");
    assert!(!message.contains(&stripe_key()), "the error must not echo the secret");
    let stats = client.ok("stats", json!({})).await;
    assert_eq!(stats["memories"], 0, "nothing was stored: {stats}");

    let fact = client
        .call(
            "store",
            json!({"subject": "billing", "predicate": "api key", "object": stripe_key()}),
        )
        .await
        .unwrap();
    assert!(fact.expect_err("a fact's object is screened too").contains("object"));

    let allowed = client.ok("store", json!({"content": content, "allow_secrets": true})).await;
    assert_eq!(allowed["status"], "stored");

    let redacted = client.ok("store", json!({"content": content, "namespace": "vault"})).await;
    assert_eq!(redacted["redacted"], json!([{"field": "content", "found": "stripe-secret-key"}]));
    let recalled = client
        .ok("recall", json!({"query": "Stripe API key for production", "namespace": "vault"}))
        .await;
    assert_eq!(
        recalled["results"][0]["content"], "The Stripe API key for production is [REDACTED].",
        "{recalled}"
    );
    client.close().await;
}
