//! Projects: the namespace an agent's calls default to, found from where it
//! works, and the same on every device.
//!
//! A repository's remote names it wherever it is checked out: `https://`,
//! `ssh://` and `git@host:` spellings of one remote, with or without
//! credentials, a port or `.git`, give one name. The node finds the remote
//! (it reads files); turning it into a name and a namespace is pure, here.

use crate::Namespace;

/// A project: its name for people, and the namespace its memories live in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// `github.com/acme/api`, or a repository's folder name, or a
    /// configured name.
    pub name: String,
    /// Where its memories are: the name in namespace characters.
    pub namespace: Namespace,
}

impl Project {
    /// The project called `name` (any text; a namespace is made of it).
    /// `None` when nothing of `name` is left as a namespace.
    pub fn named(name: &str) -> Option<Project> {
        let namespace = namespace_of(name)?;
        Some(Project { name: name.to_owned(), namespace })
    }

    /// The project of a repository's remote URL, normalised (see
    /// [`normalise_remote`]).
    pub fn of_remote(url: &str) -> Option<Project> {
        Project::named(&normalise_remote(url)?)
    }
}

/// A remote URL as `host/path`: no scheme, credentials, port or `.git`,
/// the host in lower case. `git@github.com:acme/api.git`,
/// `https://user:token@github.com/acme/api` and
/// `ssh://git@github.com:22/acme/api.git/` all give `github.com/acme/api`.
/// A local path (`/srv/git/api.git`, `file:///srv/git/api`) keeps its path.
pub fn normalise_remote(url: &str) -> Option<String> {
    let url = url.trim();
    if url.is_empty() {
        return None;
    }
    let (rest, had_scheme) = match url.find("://") {
        Some(at) => (&url[at + 3..], true),
        None => (url, false),
    };
    let local = url.starts_with("file://")
        || (!had_scheme && (rest.starts_with('/') || rest.starts_with('.')));
    let (host, path) = if local {
        ("", rest)
    } else if had_scheme {
        match rest.split_once('/') {
            Some((authority, path)) => (authority, path),
            None => (rest, ""),
        }
    } else {
        // scp-like: [user@]host:path
        match rest.split_once(':') {
            Some((authority, path)) => (authority, path),
            None => ("", rest),
        }
    };
    let host = host.rsplit_once('@').map_or(host, |(_, host)| host);
    let host = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    let mut path = path.trim_matches('/');
    while let Some(stripped) = path.strip_suffix(".git") {
        path = stripped.trim_end_matches('/');
    }
    let host = host.to_ascii_lowercase();
    let joined = match (host.is_empty(), path.is_empty()) {
        (true, true) => return None,
        (true, false) => path.to_owned(),
        (false, true) => host,
        (false, false) => format!("{host}/{path}"),
    };
    Some(joined)
}

/// The namespace a project name lives in: `/` becomes `.`, any other
/// character a namespace may not hold becomes `-`, runs of those collapse;
/// a name longer than a namespace may be keeps its end and a hash of the
/// whole (so two long names stay apart).
pub fn namespace_of(name: &str) -> Option<Namespace> {
    let mut out = String::with_capacity(name.len());
    for c in name.trim().chars() {
        let mapped = match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '_' | '.' | '-' => c,
            '/' => '.',
            _ => '-',
        };
        if matches!(mapped, '-' | '.') && out.ends_with(mapped) {
            continue;
        }
        out.push(mapped);
    }
    let trimmed = out.trim_matches(|c| c == '.' || c == '-');
    if trimmed.is_empty() {
        return None;
    }
    let name = if trimmed.len() > Namespace::MAX_CHARS {
        // FNV-1a: stable everywhere, and enough to tell two long names apart.
        let hash = trimmed.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
        });
        let keep = Namespace::MAX_CHARS - 9;
        let tail = &trimmed[trimmed.len() - keep..];
        format!("{:08x}-{}", hash as u32, tail.trim_start_matches(['.', '-']))
    } else {
        trimmed.to_owned()
    };
    Namespace::parse(&name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_remote_spelled_every_way_is_one_name() {
        for url in [
            "git@github.com:acme/api.git",
            "https://github.com/acme/api",
            "https://github.com/acme/api.git",
            "https://user:secret-token@github.com/acme/api.git",
            "ssh://git@github.com:22/acme/api.git/",
            "ssh://git@GitHub.com/acme/api",
            "git://github.com/acme/api.git",
            "  https://github.com/acme/api/  ",
        ] {
            assert_eq!(normalise_remote(url).as_deref(), Some("github.com/acme/api"), "{url}");
        }
    }

    #[test]
    fn other_remotes() {
        let cases = [
            ("/srv/git/api.git", Some("srv/git/api")),
            ("file:///srv/git/api", Some("srv/git/api")),
            ("gitlab.example.org:group/sub/app.git", Some("gitlab.example.org/group/sub/app")),
            ("", None),
            ("https://", None),
        ];
        for (url, expected) in cases {
            assert_eq!(normalise_remote(url).as_deref(), expected, "{url}");
        }
    }

    #[test]
    fn credentials_never_reach_the_name() {
        let project = Project::of_remote("https://alice:ghp_abcdef123456@github.com/acme/api.git")
            .expect("a project");
        assert!(!project.name.contains("alice") && !project.name.contains("ghp_"));
        assert_eq!(project.namespace.as_str(), "github.com.acme.api");
    }

    #[test]
    fn namespaces_of_names() {
        let cases = [
            ("github.com/acme/api", Some("github.com.acme.api")),
            ("my project (v2)", Some("my-project-v2")),
            ("api", Some("api")),
            ("///", None),
            ("日本", None),
        ];
        for (name, expected) in cases {
            assert_eq!(namespace_of(name).as_ref().map(Namespace::as_str), expected, "{name}");
        }
    }

    #[test]
    fn long_names_keep_their_end_and_stay_apart() {
        let a = format!("github.com/{}/api-a", "x".repeat(80));
        let b = format!("github.com/{}/api-b", "y".repeat(80));
        let (a, b) = (namespace_of(&a).expect("a"), namespace_of(&b).expect("b"));
        assert!(a.as_str().ends_with("api-a") && b.as_str().ends_with("api-b"));
        assert_ne!(a, b);
        assert!(a.as_str().len() <= Namespace::MAX_CHARS);
        let c = format!("github.com/{}/api-a", "z".repeat(80));
        assert_ne!(namespace_of(&c).expect("c"), a, "same tail, different names");
    }
}
