//! Credentials caught at the door: text that holds an obvious secret (a
//! private key block, a well-known API key or token format, a password in a
//! URL, a random-looking value labelled as a key, token or password).
//!
//! No maintained crate offers this as a library that builds here (the
//! candidates are command-line tools, or need a newer Rust), so the rules
//! are a short table whose formats follow the token formats their issuers
//! publish and gitleaks' rule set (MIT), each tested with samples of the real
//! format and with look-alikes that must pass: commit hashes, UUIDs, base64
//! of ordinary text, digests, public keys, placeholders. GitHub and npm tokens
//! carry a CRC-32 of their random part, which is checked, so a placeholder
//! of the right length is not mistaken for a token.

use std::sync::LazyLock;

use regex::Regex;

/// What a rule found: its name, and where (byte offsets into the text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule, e.g. `github-token`.
    pub rule: &'static str,
    /// Byte offset of the first byte of the secret.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
}

/// What a store does with text that holds a credential (per namespace:
/// `memory.secrets`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SecretPolicy {
    /// Refuse the store with an error naming what was found and where.
    #[default]
    Refuse,
    /// Store `[REDACTED]` in the credential's place.
    Redact,
    /// Store it as it is.
    Allow,
}

impl std::str::FromStr for SecretPolicy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "refuse" => Ok(SecretPolicy::Refuse),
            "redact" => Ok(SecretPolicy::Redact),
            "allow" => Ok(SecretPolicy::Allow),
            other => Err(format!("must be refuse, redact or allow, not {other:?}")),
        }
    }
}

/// A credential removed from a stored memory: which field, which rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction {
    /// The field, as the request named it (`content`, `tags[1]`, …).
    pub field: String,
    /// The rule that found it.
    pub rule: &'static str,
}

/// Applies `policy` to every text field of a store request: refuses it (the
/// error names the field, the kind of credential and its place, never the
/// credential), redacts in place, or lets it through. Returns what was
/// redacted.
pub fn screen(
    request: &mut crate::StoreRequest,
    policy: SecretPolicy,
) -> Result<Vec<Redaction>, crate::FieldError> {
    if policy == SecretPolicy::Allow {
        return Ok(Vec::new());
    }
    let mut fields: Vec<(String, &mut String)> = Vec::new();
    match &mut request.content {
        crate::Content::Text(text) => fields.push(("content".into(), text)),
        crate::Content::Triple(triple) => {
            fields.push(("subject".into(), &mut triple.subject));
            fields.push(("predicate".into(), &mut triple.predicate));
            fields.push(("object".into(), &mut triple.object));
        }
    }
    if let Some(source) = &mut request.source {
        fields.push(("source".into(), source));
    }
    if let Some(context) = &mut request.context {
        fields.push(("context".into(), context));
    }
    for (index, tag) in request.tags.iter_mut().enumerate() {
        fields.push((format!("tags[{index}]"), tag));
    }
    for (index, entity) in request.entities.iter_mut().enumerate() {
        fields.push((format!("entities[{index}]"), entity));
    }
    let mut redactions = Vec::new();
    for (field, text) in fields {
        let findings = find(text);
        let Some(first) = findings.first() else { continue };
        if policy == SecretPolicy::Refuse {
            let chars_before = text[..first.start].chars().count();
            let length = text[first.start..first.end].chars().count();
            return Err(crate::FieldError::new(
                field,
                format!(
                    "holds what looks like a credential ({}, characters {}–{}); ferrex refuses \
                     to store credentials by default. Store it anyway with \"allow_secrets\": true, \
                     or set secrets = \"redact\" (stores [REDACTED] in its place) or \"allow\" \
                     under [memory] in ferrex.toml",
                    first.rule,
                    chars_before + 1,
                    chars_before + length,
                ),
            ));
        }
        redactions.extend(
            findings.iter().map(|finding| Redaction { field: field.clone(), rule: finding.rule }),
        );
        *text = redact(text, &findings);
    }
    Ok(redactions)
}

/// What a match must also pass to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Nothing more.
    None,
    /// The last six characters are the base-62 CRC-32 of the random part.
    Checksum,
    /// Not one of AWS's documented example keys.
    NotExample,
    /// The password (capture 1) is not a placeholder.
    NotPlaceholder,
    /// The value (capture 1) looks random, not like a word or a name.
    Random,
}

/// A right boundary that also works after `-` (where `\b` does not).
const END: &str = r"(?:[^A-Za-z0-9_-]|$)";

/// The rules: name, pattern, and the check a match must pass.
fn rules() -> Vec<(&'static str, String, Check)> {
    let rule = |name, pattern: &str, check| (name, pattern.to_owned(), check);
    vec![
        rule(
            "private-key",
            r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d",
            Check::None,
        ),
        rule(
            "aws-access-key-id",
            r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}\b",
            Check::NotExample,
        ),
        rule("github-token", r"\bgh[opusr]_[A-Za-z0-9]{36}\b", Check::Checksum),
        rule(
            "github-fine-grained-token",
            r"\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b",
            Check::None,
        ),
        rule(
            "gitlab-token",
            r"\bgl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent)-[A-Za-z0-9_-]{20,}",
            Check::None,
        ),
        rule(
            "slack-token",
            r"\bxox[abposre]-[0-9]{6,}-[A-Za-z0-9-]{8,}|\bxapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]{32,}|\bxoxe(?:\.xox[bp])?-[0-9]-[A-Za-z0-9]{100,}",
            Check::None,
        ),
        rule(
            "slack-webhook",
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{40,}",
            Check::None,
        ),
        rule(
            "stripe-secret-key",
            r"\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{20,247}\b|\bwhsec_[A-Za-z0-9]{32,}\b",
            Check::None,
        ),
        rule(
            "openai-api-key",
            r"\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20})T3BlbkFJ[A-Za-z0-9_-]{20,}|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}",
            Check::None,
        ),
        rule(
            "anthropic-api-key",
            r"\bsk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{80,}",
            Check::None,
        ),
        rule("google-api-key", &format!(r"\bAIza[A-Za-z0-9_-]{{35}}{END}"), Check::None),
        rule(
            "json-web-token",
            r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}",
            Check::None,
        ),
        rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", Check::Checksum),
        rule("twilio-api-key", r"\bSK[0-9a-f]{32}\b", Check::None),
        rule(
            "sendgrid-api-key",
            &format!(r"\bSG\.[A-Za-z0-9_-]{{22}}\.[A-Za-z0-9_-]{{43}}{END}"),
            Check::None,
        ),
        rule("huggingface-token", r"\bhf_[A-Za-z]{34}\b", Check::None),
        rule("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", Check::None),
        rule("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", Check::None),
        rule("azure-storage-key", r"AccountKey=[A-Za-z0-9+/]{86}==", Check::None),
        rule(
            "age-secret-key",
            r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
            Check::None,
        ),
        rule(
            "password-in-url",
            r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@\[\]]{0,64}:([^\s/?#@]{1,128})@[A-Za-z0-9._-]+",
            Check::NotPlaceholder,
        ),
        rule(
            "labelled-secret",
            r#"(?i)\b(?:[a-z0-9]+[_.-])*(?:api[_.-]?key|apikey|secret|token|passw(?:or)?d|passwd|access[_.-]?key|private[_.-]?key|auth[_.-]?(?:token|key))(?:[_.-][a-z0-9]+)*["']?\s*(?::=|=>|->|[:=]|\s+is\s+)\s*["'`]?([A-Za-z0-9+/_.~!@#$%^&*=-]{16,})"#,
            Check::Random,
        ),
    ]
}

struct Rule {
    name: &'static str,
    regex: Regex,
    check: Check,
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    rules()
        .into_iter()
        .filter_map(|(name, pattern, check)| {
            // Every pattern is a constant checked by the tests; one that did
            // not compile would only switch its rule off.
            Regex::new(&pattern).ok().map(|regex| Rule { name, regex, check })
        })
        .collect()
});

static PLACEHOLDER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\*+|x+|password|pass|secret|changeme|redacted|\[redacted\]|%[a-z0-9_]+%|\{\{.*\}\}|your_[a-z0-9_]+)$",
    )
    .ok()
});

fn is_placeholder(value: &str) -> bool {
    PLACEHOLDER.as_ref().is_some_and(|regex| regex.is_match(value))
        || value.contains("your_")
        || value.contains("process.env")
        || value.contains("environ")
}

/// The base-62 form of a CRC-32, six characters, as GitHub and npm tokens
/// end with.
fn base62_checksum(body: &str) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut value = crc32fast::hash(body.as_bytes());
    let mut digits = Vec::new();
    while value > 0 {
        digits.push(ALPHABET[(value % 62) as usize]);
        value /= 62;
    }
    while digits.len() < 6 {
        digits.push(b'0');
    }
    digits.reverse();
    String::from_utf8_lossy(&digits).into_owned()
}

/// Bits per character of `value`'s character distribution.
fn entropy(value: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for character in value.chars() {
        *counts.entry(character).or_insert(0usize) += 1;
    }
    let length = value.chars().count() as f64;
    counts
        .values()
        .map(|count| {
            let share = *count as f64 / length;
            -share * share.log2()
        })
        .sum()
}

/// Whether a labelled value looks like a generated secret: long, mixing
/// letters and digits, with many different characters, and not a
/// placeholder or a reference to an environment variable.
fn looks_random(value: &str) -> bool {
    let value = value.trim_end_matches('=');
    // Paths, addresses and URLs are not secrets, however mixed.
    let path_or_address = value.starts_with(['/', '~', '.'])
        || value.contains("://")
        || (value.contains('@') && value.rsplit('@').next().is_some_and(|host| host.contains('.')));
    value.len() >= 16
        && !path_or_address
        && !is_placeholder(value)
        && value.chars().any(|character| character.is_ascii_digit())
        && value.chars().any(|character| character.is_ascii_alphabetic())
        && entropy(value) >= 3.0
}

fn passes(check: Check, whole: &str, captured: Option<&str>) -> bool {
    match check {
        Check::None => true,
        Check::Checksum => {
            let (body, sum) = whole.split_at(whole.len() - 6);
            body.get(4..).is_some_and(|random| base62_checksum(random) == sum)
        }
        Check::NotExample => !whole.ends_with("EXAMPLE"),
        Check::NotPlaceholder => captured.is_some_and(|value| !is_placeholder(value)),
        Check::Random => captured.is_some_and(looks_random),
    }
}

/// Every credential found in `text`, in order of position.
pub fn find(text: &str) -> Vec<Finding> {
    let mut found = Vec::new();
    for rule in RULES.iter() {
        for captures in rule.regex.captures_iter(text) {
            let Some(whole) = captures.get(0) else { continue };
            let captured = captures.get(1);
            if !passes(rule.check, whole.as_str(), captured.map(|value| value.as_str())) {
                continue;
            }
            // The secret itself: the captured value when the rule has one
            // (the password, the labelled value), else the whole match.
            let span = captured.unwrap_or(whole);
            let overlaps = found
                .iter()
                .any(|other: &Finding| other.start < span.end() && span.start() < other.end);
            if !overlaps {
                found.push(Finding { rule: rule.name, start: span.start(), end: span.end() });
            }
        }
    }
    found.sort_by_key(|finding| finding.start);
    found
}

/// `text` with every credential [`find`] finds in it replaced by
/// `[REDACTED]` (the text as it is when there is none).
pub fn redact_found(text: &str) -> String {
    redact(text, &find(text))
}

/// `text` with every finding replaced by `[REDACTED]`.
pub fn redact(text: &str, findings: &[Finding]) -> String {
    let mut redacted = String::with_capacity(text.len());
    let mut at = 0;
    for finding in findings {
        if finding.start < at {
            continue;
        }
        redacted.push_str(&text[at..finding.start]);
        redacted.push_str("[REDACTED]");
        at = finding.end;
    }
    redacted.push_str(&text[at..]);
    redacted
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic generator of format-valid fake secrets (no secret
    /// literal lives in this file, and none is real).
    struct Fake(u64);

    impl Fake {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn of(&mut self, length: usize, alphabet: &str) -> String {
            let alphabet: Vec<char> = alphabet.chars().collect();
            (0..length).map(|_| alphabet[(self.next() % alphabet.len() as u64) as usize]).collect()
        }

        fn alnum(&mut self, length: usize) -> String {
            self.of(length, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        }

        fn checksummed(&mut self, prefix: &str) -> String {
            let body = self.alnum(30);
            format!("{prefix}{body}{}", base62_checksum(&body))
        }
    }

    const URL_SAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    const HEX: &str = "0123456789abcdef";

    fn caught(text: &str) -> Vec<&'static str> {
        find(text).into_iter().map(|finding| finding.rule).collect()
    }

    #[test]
    fn real_formats_are_caught_by_their_rule() {
        let mut fake = Fake(0x9e37_79b9_7f4a_7c15);
        let base64url = |value: &str| {
            // Base64url of a JSON object, without padding (as JWTs are).
            const TABLE: &[u8] =
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            let bytes = value.as_bytes();
            let mut out = String::new();
            for chunk in bytes.chunks(3) {
                let n = chunk
                    .iter()
                    .enumerate()
                    .fold(0u32, |n, (i, b)| n | (*b as u32) << (16 - 8 * i));
                for i in 0..=chunk.len() {
                    out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
                }
            }
            out
        };
        let jwt = format!(
            "{}.{}.{}",
            base64url(r#"{"alg":"HS256","typ":"JWT"}"#),
            base64url(r#"{"sub":"1234567890","name":"Fake User","iat":1700000000}"#),
            fake.of(43, URL_SAFE)
        );
        let cases: Vec<(&str, String)> = vec![
            ("private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----".into()),
            ("private-key", "here: -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA".into()),
            ("private-key", "-----BEGIN ENCRYPTED PRIVATE KEY-----".into()),
            ("aws-access-key-id", format!("aws_access_key_id = AKIA{}", fake.of(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"))),
            ("github-token", format!("token {}", fake.checksummed("ghp_"))),
            ("github-token", fake.checksummed("gho_")),
            ("github-fine-grained-token", format!("github_pat_{}_{}", fake.alnum(22), fake.alnum(59))),
            ("gitlab-token", format!("glpat-{}", fake.of(20, URL_SAFE))),
            ("slack-token", format!("xoxb-{}-{}-{}", fake.of(12, "0123456789"), fake.of(13, "0123456789"), fake.alnum(24))),
            ("slack-webhook", format!("https://hooks.slack.com/services/T{}/B{}/{}", fake.of(8, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), fake.of(10, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), fake.alnum(24))),
            ("stripe-secret-key", format!("The Stripe API key for production is sk_live_{}", fake.alnum(24))),
            ("stripe-secret-key", format!("rk_live_{}", fake.alnum(99))),
            ("openai-api-key", format!("sk-proj-{}T3BlbkFJ{}", fake.of(58, URL_SAFE), fake.of(58, URL_SAFE))),
            ("openai-api-key", format!("sk-{}T3BlbkFJ{}", fake.alnum(20), fake.alnum(20))),
            ("anthropic-api-key", format!("sk-ant-api03-{}AA", fake.of(93, URL_SAFE))),
            ("google-api-key", format!("key=AIza{}", fake.of(35, URL_SAFE))),
            ("json-web-token", jwt),
            ("npm-token", fake.checksummed("npm_")),
            ("twilio-api-key", format!("SK{}", fake.of(32, HEX))),
            ("sendgrid-api-key", format!("SG.{}.{}", fake.of(22, URL_SAFE), fake.of(43, URL_SAFE))),
            ("huggingface-token", format!("hf_{}", fake.of(34, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))),
            ("digitalocean-token", format!("dop_v1_{}", fake.of(64, HEX))),
            ("age-secret-key", format!("AGE-SECRET-KEY-1{}", fake.of(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"))),
            ("password-in-url", format!("postgres://app:{}@db.internal:5432/prod", fake.alnum(16))),
            ("password-in-url", "https://bob:hunter2@example.com/x".into()),
            ("password-in-url", format!("redis://:{}@cache:6379", fake.alnum(12))),
            ("slack-token", format!("xoxe.xoxp-1-{}", fake.alnum(146))),
            ("labelled-secret", format!("api_key = \"{}\"", fake.alnum(32))),
            ("labelled-secret", format!("DB_PASSWORD={}", fake.alnum(20))),
            ("labelled-secret", format!("{{\"client_secret\": \"{}\"}}", fake.of(40, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_~."))),
            ("labelled-secret", format!("auth_token: {}", fake.of(40, HEX))),
            ("labelled-secret", format!("the deploy token is {}7{}", fake.alnum(12), fake.alnum(11))),
        ];
        for (rule, text) in &cases {
            assert_eq!(caught(text), [*rule], "{text}");
        }
    }

    #[test]
    fn look_alikes_pass() {
        let mut fake = Fake(42);
        let cases: Vec<String> = vec![
            "Fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b (see a94a8fe)".into(),
            "request id 550e8400-e29b-41d4-a716-446655440000 failed".into(),
            "payload was SGVsbG8gd29ybGQsIHRoaXMgaXMgYW4gb3JkaW5hcnkgc2VudGVuY2UgaGVyZS4=".into(),
            "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".into(),
            "digest=sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".into(),
            "Keys start with sk- or sk-proj-; we use sk-learn and risk-free sk-8 tooling".into(),
            "sk-1234567890abcdef".into(),
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx".into(),
            // A token of the right shape whose checksum is wrong.
            format!("ghp_{}", fake.alnum(36)),
            "AKIAIOSFODNN7EXAMPLE".into(),
            format!("pk_live_{}", fake.alnum(24)),
            "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq".into(),
            "-----BEGIN CERTIFICATE-----".into(),
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG9rZXlfbm90X3NlY3JldF9qdXN0X2Zvcm1hdHRpbmc user@host".into(),
            "the header eyJhbGciOiJIUzI1NiJ9 is base64".into(),
            "https://user@github.com/org/repo.git and git@github.com:org/repo.git".into(),
            "postgres://app:${PGPASSWORD}@db:5432/x".into(),
            "http://localhost:8080/path?a=b@c".into(),
            "mail alice@example.com".into(),
            "password: hunter2".into(),
            "api_key = \"your_api_key_here\"".into(),
            "OPENAI_API_KEY=process.env.OPENAI_API_KEY".into(),
            "max_tokens: 4096, token_limit = 128000".into(),
            "secret_name: PROJECT_NAME_ALIAS_VALUE".into(),
            "The secret: always rotate credentials quarterly".into(),
            "token = os.environ['GITHUB_TOKEN']".into(),
            "Tokens are rotated by the auth service every 90 days.".into(),
            "Author: alice.smith1985@example.com".into(),
            "tokenizer: bert-base-uncased-v2".into(),
            "pwd: /home/alice/projects/app2".into(),
            "oauth_redirect=/api/v2/callback/google".into(),
            "credentials_file: ~/.aws/credentials2".into(),
            "secret_santa: draw names on 2026-12-01 at noon".into(),
            "token_budget = 128000 per request".into(),
        ];
        for text in &cases {
            assert_eq!(caught(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn findings_name_where_the_secret_is_and_redaction_removes_only_it() {
        let mut fake = Fake(7);
        let key = format!("sk_live_{}", fake.alnum(24));
        let text = format!("Production uses {key} since May.");
        let findings = find(&text);
        assert_eq!(findings.len(), 1);
        assert_eq!(&text[findings[0].start..findings[0].end], key);
        assert_eq!(redact(&text, &findings), "Production uses [REDACTED] since May.");
        let url = "postgres://app:s3cr3tPassw0rdXYZ@db:5432/prod";
        let findings = find(url);
        assert_eq!(redact(url, &findings), "postgres://app:[REDACTED]@db:5432/prod");
    }

    #[test]
    fn every_rule_compiles() {
        assert_eq!(RULES.len(), rules().len());
        assert!(PLACEHOLDER.is_some());
        assert_eq!(base62_checksum("123456789").len(), 6);
    }

    /// Written after the rules and their tuning, and never tuned on: how
    /// the rules do on notes they were not shaped by. Reported in the
    /// closing note of issue 10; each miss is named.
    #[test]
    fn held_out_notes_written_after_the_rules() {
        let mut fake = Fake(0xdead_beef_cafe_f00d);
        let jwt = format!(
            "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSIsImV4cCI6MTcwMDAwMDAwMH0.{}",
            fake.of(86, URL_SAFE)
        );
        let positives: Vec<String> = vec![
            format!(
                "export AWS_ACCESS_KEY_ID=AKIA{}",
                fake.of(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
            ),
            format!("git clone https://deploy:{}@gitlab.example.com/team/app.git", fake.alnum(20)),
            format!("mongodb+srv://admin:{}@cluster0.example.net/db", fake.alnum(16)),
            format!("Authorization: Bearer {jwt}"),
            format!(
                "SLACK_BOT_TOKEN=xoxb-{}-{}-{}",
                fake.of(11, "0123456789"),
                fake.of(12, "0123456789"),
                fake.alnum(24)
            ),
            "\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\"".into(),
            format!("client_secret = {}9{}", fake.of(16, HEX), fake.of(15, HEX)),
            format!("ANTHROPIC_API_KEY=sk-ant-api03-{}AA", fake.of(93, URL_SAFE)),
            format!("npm config set //registry.npmjs.org/:_authToken {}", fake.checksummed("npm_")),
            format!("the stripe key rk_test_{}", fake.alnum(24)),
            "password: Xk9#mP2$vL8@qR4!zT".into(),
            format!("the maps api key is AIza{}", fake.of(35, URL_SAFE)),
        ];
        let negatives = [
            "Rotate the API key every 90 days; the old key stays valid for 24 hours.",
            "token_count_per_batch: 512 tokens max",
            "docker image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "Run git log --oneline 1a2b3c4d..5e6f7a8b to compare the releases",
            "password reset links expire after 30 minutes",
            "The secret sauce is the retry with jitter.",
            "The bucket is arn:aws:s3:::ferrex-backups-eu in eu-central-1",
            "ssh -i ~/.ssh/id_ed25519 deploy@build-host",
            "DATABASE_URL=postgres://localhost:5432/app",
            "api_key_header: X-Api-Key",
            "Use secrets.token_urlsafe(32) to make a token.",
            "The build id is 20261123-abcdef0123456789",
            "Base64 of the config: eyJuYW1lIjoiZmVycmV4In0=",
            "auth_provider: github-oauth-app-v2",
            "tokenizer_path = /opt/models/tokenizer.json",
        ];
        let missed: Vec<&String> = positives.iter().filter(|text| find(text).is_empty()).collect();
        let flagged: Vec<(&str, Vec<&'static str>)> = negatives
            .iter()
            .map(|text| (*text, caught(text)))
            .filter(|(_, rules)| !rules.is_empty())
            .collect();
        assert_eq!(
            (missed.len(), flagged.len()),
            (0, 0),
            "missed {missed:#?}\nflagged {flagged:#?}"
        );
    }
}
