//! Rules of the source tree that ARCHITECTURE.md states, checked by reading
//! the sources (no binary needed).

use std::path::{Path, PathBuf};

/// The workspace root (this crate is `tests/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_owned()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A source file's product code: what is before its unit tests' module (a
/// `#[cfg(test)]` item elsewhere in the file is not that module).
fn product_code(text: &str) -> &str {
    text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default()
}

/// What only Unix (or only Linux) has: a product code path that uses one
/// must sit under a `cfg` that names its platform, beside its counterpart.
const UNIX_ONLY: &[&str] = &[
    "std::os::unix",
    "os::unix::",
    "signal::unix",
    "net::UnixStream",
    "net::UnixListener",
    "UnixStream",
    "UnixListener",
    "libc::",
    "/proc/",
    "/etc/hostname",
    "Command::new(\"sh\")",
];

/// For each line of `lines`, whether it is inside an item under a `cfg`
/// that names a platform (`#[cfg(unix)]`, `#[cfg(windows)]`,
/// `#[cfg(all(target_os = …))]`, `#[cfg(not(unix))]`…) or in either
/// branch of an `if cfg!(…)`: the attribute's item runs to the brace that
/// closes it, or to its `;`.
fn gated_lines(lines: &[&str]) -> Vec<bool> {
    let mut gated = Vec::with_capacity(lines.len());
    let mut depth: i64 = 0;
    // The depths at which gated blocks opened.
    let mut open: Vec<i64> = Vec::new();
    let mut pending = false;
    for line in lines {
        let code = line.split("//").next().unwrap_or("");
        let attribute = code.contains("#[cfg(") && !code.contains("#[cfg(test)]");
        if attribute || code.contains("cfg!(") {
            pending = true;
        }
        gated.push(pending || !open.is_empty());
        for (at, character) in code.char_indices() {
            match character {
                '{' => {
                    if pending {
                        open.push(depth);
                        pending = false;
                    }
                    depth += 1;
                }
                '}' => {
                    depth -= 1;
                    if open.last() == Some(&depth) {
                        open.pop();
                        // `if cfg!(…) { … } else { … }`: the other platform's branch.
                        pending = code[at..].contains("else");
                    }
                }
                ';' if pending && !attribute => pending = false,
                _ => {}
            }
        }
    }
    gated
}

#[test]
fn no_product_code_path_is_unix_only_without_its_counterpart() {
    let root = root();
    let mut unguarded = Vec::new();
    let mut gated_uses = 0;
    for krate in ["core", "embed", "sync", "engine", "node"] {
        for file in rust_files(&root.join(krate).join("src")) {
            let text = std::fs::read_to_string(&file).expect("a source file");
            // Unit tests run here, on Linux.
            let product = product_code(&text);
            let lines: Vec<&str> = product.lines().collect();
            let gated = gated_lines(&lines);
            for (index, line) in lines.iter().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if UNIX_ONLY.iter().any(|needle| code.contains(needle)) {
                    if gated[index] {
                        gated_uses += 1;
                    } else {
                        let relative = file.strip_prefix(&root).unwrap_or(&file);
                        unguarded.push(format!(
                            "{}:{}: {}",
                            relative.display(),
                            index + 1,
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    assert!(unguarded.is_empty(), "Unix-only calls outside a cfg:\n{}", unguarded.join("\n"));
    assert!(gated_uses > 0, "the check found no gated use at all: is it reading the sources?");
}

/// The module of each source file of the crate whose sources are in `src`
/// (`engine::store` for `engine/store.rs`, `engine` for `engine/mod.rs`,
/// the crate root `""`), with its text: comments and the unit tests at the
/// end of the file left out.
fn modules(src: &Path) -> Vec<(String, String)> {
    rust_files(src)
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(src).expect("under src").with_extension("");
            let mut parts: Vec<String> = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|last| ["mod", "lib", "main"].contains(&last.as_str())) {
                parts.pop();
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            let code: Vec<&str> = product_code(&text)
                .lines()
                .map(|line| line.split("//").next().unwrap_or_default())
                .collect();
            (parts.join("::"), code.join("\n"))
        })
        .collect()
}

/// The paths a `use` tree names, its groups expanded: `a::{b, c::{d, e}}`
/// is `a::b`, `a::c::d` and `a::c::e`.
fn use_paths(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect();
    let Some(open) = tree.find('{') else { return vec![tree] };
    let close = tree.rfind('}').filter(|close| *close > open).unwrap_or(tree.len());
    let (prefix, body) = (&tree[..open], &tree[open + 1..close]);
    let mut items = Vec::new();
    let (mut depth, mut item) = (0, String::new());
    for character in body.chars() {
        match character {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(character);
    }
    items.push(item);
    items
        .iter()
        .filter(|item| !item.is_empty())
        .flat_map(|item| use_paths(item))
        .map(|path| format!("{prefix}{path}"))
        .collect()
}

/// For each module of the crate in `src`, the other modules of the crate
/// it uses (by `use` trees, grouped ones included, and by `crate::` and
/// `super::` paths anywhere in its code), never its own ancestors (a child
/// reads what its parent declares).
fn module_uses(
    src: &Path,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let modules = modules(src);
    let names: std::collections::BTreeSet<&str> =
        modules.iter().map(|(name, _)| name.as_str()).collect();
    let mut uses = std::collections::BTreeMap::new();
    for (module, code) in &modules {
        let mut paths: Vec<String> = Vec::new();
        for statement in code.split("use ").skip(1) {
            let tree = statement.split(';').next().unwrap_or_default();
            paths.extend(use_paths(tree));
        }
        for anchor in ["crate::", "super::", "self::"] {
            for (at, _) in code.match_indices(anchor) {
                // Only where a path starts (not `super::` inside
                // `super::super::`, nor the end of another name).
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let rest = &code[at..];
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .unwrap_or(rest.len());
                paths.push(rest[..end].to_owned());
            }
        }
        let parent: Vec<&str> = module.split("::").filter(|part| !part.is_empty()).collect();
        let mut used = std::collections::BTreeSet::new();
        for path in paths {
            let segments: Vec<&str> = if let Some(rest) = path.strip_prefix("crate::") {
                rest.split("::").collect()
            } else if path.starts_with("super::") || path.starts_with("self::") {
                // Each `super` is one module up from this one.
                let mut base = parent.clone();
                let mut rest = path.as_str();
                loop {
                    if let Some(after) = rest.strip_prefix("super::") {
                        base.pop();
                        rest = after;
                    } else if let Some(after) = rest.strip_prefix("self::") {
                        rest = after;
                    } else {
                        break;
                    }
                }
                base.extend(rest.split("::"));
                base
            } else {
                continue;
            };
            // The longest prefix that is a module of the crate.
            for length in (1..=segments.len()).rev() {
                let candidate = segments[..length].join("::");
                // The crate root is every module's ancestor.
                if !candidate.is_empty() && names.contains(candidate.as_str()) {
                    let ancestor = module.starts_with(&format!("{candidate}::"));
                    if candidate != *module && !ancestor {
                        used.insert(candidate);
                    }
                    break;
                }
            }
        }
        uses.insert(module.clone(), used);
    }
    uses
}

/// The modules that use each other in a circle, each circle sorted.
fn circles(
    uses: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Vec<Vec<String>> {
    // A module is in a circle with every module that reaches it and that
    // it reaches.
    let reach = |from: &str| {
        let mut seen = std::collections::BTreeSet::new();
        let mut pending = vec![from.to_owned()];
        while let Some(module) = pending.pop() {
            for next in uses.get(&module).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    pending.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: std::collections::BTreeMap<&String, std::collections::BTreeSet<String>> =
        uses.keys().map(|module| (module, reach(module))).collect();
    let mut found: std::collections::BTreeSet<Vec<String>> = std::collections::BTreeSet::new();
    for (module, reached) in &reaches {
        if !reached.contains(*module) {
            continue;
        }
        let circle: Vec<String> = reached
            .iter()
            .filter(|other| reaches.get(other).is_some_and(|back| back.contains(*module)))
            .cloned()
            .collect();
        found.insert(circle);
    }
    found.into_iter().collect()
}

#[test]
fn the_module_reader_sees_grouped_uses_and_paths() {
    assert_eq!(
        use_paths("crate::{engine::{Engine, Reach}, base::clock}"),
        ["crate::engine::Engine", "crate::engine::Reach", "crate::base::clock"]
    );
    let uses = module_uses(&root().join("node/src"));
    let of = |module: &str| uses.get(module).cloned().unwrap_or_default();
    // `use crate::{…}` groups, `super::` and inline `crate::` paths.
    assert!(of("surfaces::views").contains("surfaces::mcp::args"), "{:?}", of("surfaces::views"));
    assert!(of("lifecycle::daemon").contains("base::allocator"), "{:?}", of("lifecycle::daemon"));
    let uses = module_uses(&root().join("engine/src"));
    let of = |module: &str| uses.get(module).cloned().unwrap_or_default();
    assert!(of("engine::store").contains("derived::index"), "{:?}", of("engine::store"));
    // `super::super::` climbs two modules; `self::` stays.
    let planted = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir_all(planted.path().join("a/b")).expect("folders");
    for (file, text) in [
        ("a/b/c.rs", "use super::super::d::Thing;\n"),
        ("a/b/mod.rs", "use self::c::Other;\n"),
        ("a/d.rs", ""),
        ("a/mod.rs", ""),
    ] {
        std::fs::write(planted.path().join(file), text).expect("a planted module");
    }
    let uses = module_uses(planted.path());
    assert_eq!(uses.get("a::b::c").cloned().unwrap_or_default(), ["a::d".to_owned()].into());
    assert_eq!(uses.get("a::b").cloned().unwrap_or_default(), ["a::b::c".to_owned()].into());
}

#[test]
fn no_crate_has_an_import_circle() {
    for krate in ["core", "sync", "embed", "engine", "node", "tests"] {
        let found = circles(&module_uses(&root().join(krate).join("src")));
        assert!(found.is_empty(), "{krate} has import circles: {found:?}");
    }
}

/// The modules of the crate in `src` that import a layer above their own,
/// `layers` listed from the top.
fn upward_imports(src: &Path, layers: &[&str]) -> Vec<String> {
    let rank =
        |module: &str| layers.iter().position(|layer| module.split("::").next() == Some(layer));
    let mut upward = Vec::new();
    for (module, used) in module_uses(src) {
        let Some(from) = rank(&module) else { continue };
        for other in used {
            if rank(&other).is_some_and(|to| to < from) {
                upward.push(format!("{module} → {other}"));
            }
        }
    }
    upward
}

#[test]
fn each_layer_uses_only_the_layers_below_it() {
    // ARCHITECTURE.md: the binary's `main.rs` → `cli/` → `lifecycle/` →
    // `surfaces/` → `base/`, over the engine library (a crate of its own,
    // so the compiler keeps it from reaching up), whose `answers` →
    // `engine/` → `formats/` → `derived/` → `base/`.
    let binary =
        upward_imports(&root().join("node/src"), &["cli", "lifecycle", "surfaces", "base"]);
    assert!(binary.is_empty(), "the binary imports against the layer order: {binary:?}");
    let library = upward_imports(
        &root().join("engine/src"),
        &["answers", "engine", "formats", "derived", "base"],
    );
    assert!(library.is_empty(), "the engine imports against the layer order: {library:?}");
    // The reader sees an upward import when there is one.
    let planted = tempfile::tempdir().expect("a temporary folder");
    for (file, text) in [("base.rs", "use crate::engine::Engine;\n"), ("engine.rs", "")] {
        std::fs::write(planted.path().join(file), text).expect("a planted module");
    }
    assert_eq!(upward_imports(planted.path(), &["engine", "base"]), ["base → engine"]);
}

/// The names in the `[dependencies]` table of `krate`'s manifest.
fn dependencies(krate: &str) -> Vec<String> {
    let manifest =
        std::fs::read_to_string(root().join(krate).join("Cargo.toml")).expect("a manifest");
    manifest
        .split("\n[dependencies]\n")
        .nth(1)
        .unwrap_or_default()
        .split("\n[")
        .next()
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split(['.', '=', ' ']).next())
        .filter(|name| !name.is_empty() && !name.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

#[test]
fn core_does_no_io_and_sync_knows_no_sqlite() {
    // Core is pure decisions: no files, sockets, processes, databases,
    // runtimes or documents.
    let io = ["tokio", "rusqlite", "iroh", "automerge", "notify", "axum", "ort", "fastembed"];
    let core = dependencies("core");
    assert!(core.contains(&"regex".to_owned()), "the manifest reader found {core:?}");
    assert!(core.iter().all(|name| !io.contains(&name.as_str())), "core depends on {core:?}");
    for (module, code) in modules(&root().join("core/src")) {
        for call in ["std::fs", "std::net", "std::process", "File::", "SystemTime::now"] {
            assert!(!code.contains(call), "core's {module} uses {call}");
        }
    }
    let sync = dependencies("sync");
    assert!(sync.contains(&"automerge".to_owned()), "the manifest reader found {sync:?}");
    assert!(!sync.iter().any(|name| name.contains("sqlite")), "sync depends on {sync:?}");
}

#[test]
fn the_sync_decisions_do_no_io() {
    // What ARCHITECTURE.md says decides without I/O: the session core, what
    // a session admits, the access policy, when to dial, and the
    // membership rules. Time comes in as an argument; no task, lock,
    // socket, file or clock.
    let pure = ["session::core", "admission", "policy", "link", "membership"];
    let io = [
        "tokio",
        "iroh::endpoint",
        "Endpoint",
        "Connection",
        "std::fs",
        "File::",
        "TcpStream",
        "UdpSocket",
        "Instant::now",
        "SystemTime::now",
        "std::thread",
        "spawn",
        "Mutex",
        "RwLock",
        "std::process",
    ];
    let modules = modules(&root().join("sync/src"));
    for name in pure {
        let (_, code) = modules
            .iter()
            .find(|(module, _)| module == name)
            .unwrap_or_else(|| panic!("sync has no module {name}"));
        assert!(code.contains("fn "), "the module reader found no code in {name}");
        for call in io {
            assert!(!code.contains(call), "sync's {name} uses {call}");
        }
    }
}

#[test]
fn only_node_knows_mcp_and_clap_and_only_the_engine_sqlite() {
    for krate in ["core", "embed", "sync", "engine"] {
        let names = dependencies(krate);
        assert!(!names.is_empty(), "the manifest reader found nothing in {krate}");
        for outside in ["rmcp", "clap", "axum"] {
            assert!(!names.iter().any(|name| name == outside), "{krate} depends on {outside}");
        }
        if krate != "engine" {
            assert!(
                !names.iter().any(|name| name.contains("sqlite")),
                "{krate} depends on SQLite: {names:?}"
            );
        }
    }
    assert!(dependencies("node").contains(&"rmcp".to_owned()), "the manifest reader missed rmcp");
}

#[test]
fn the_libraries_return_typed_errors_and_anyhow_stays_in_binaries_and_tests() {
    // Every library crate's public API says how it failed with an enum a
    // caller matches by kind; `anyhow` is for the binary (node) and for
    // tests, and the engine's `testing` feature (a test's engine) only.
    for krate in ["core", "embed", "sync", "engine"] {
        let manifest =
            std::fs::read_to_string(root().join(krate).join("Cargo.toml")).expect("a manifest");
        let anyhow = manifest
            .split("\n[dependencies]\n")
            .nth(1)
            .and_then(|table| table.split("\n[").next())
            .and_then(|table| table.lines().find(|line| line.starts_with("anyhow")));
        if let Some(line) = anyhow {
            assert!(
                krate == "engine" && line.contains("optional = true"),
                "{krate} depends on anyhow: {line}"
            );
        }
        for file in rust_files(&root().join(krate).join("src")) {
            let path = file.strip_prefix(root()).expect("under the root").display().to_string();
            if path == "engine/src/testing.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("a source file");
            let mut previous = "";
            for (number, line) in product_code(&text).lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                // A boxed error of any kind says nothing a caller can match;
                // the one allowed is the watcher's callback, whose error is
                // the binary's watcher's, unknown to the engine.
                let boxed = code.contains("Box<dyn std::error::Error")
                    && !format!("{previous}{code}").contains("pub type WatchFolder");
                assert!(!code.contains("anyhow") && !boxed, "{path}:{}: {line}", number + 1);
                previous = code;
            }
        }
    }
}

/// The paths of source files a document names in backticks.
fn source_paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|quoted| {
            !quoted.contains(char::is_whitespace)
                && [".rs", ".py", ".sh"].iter().any(|end| quoted.ends_with(end))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_source_file_the_map_names_is_there_from_the_root() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("the map");
    let paths = source_paths(&map);
    assert!(paths.len() > 100, "the reader found {} paths", paths.len());
    let missing: Vec<&String> = paths.iter().filter(|path| !root().join(path).is_file()).collect();
    assert!(missing.is_empty(), "ARCHITECTURE.md names files that are not there: {missing:?}");
}
