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
    for krate in ["core", "embed", "sync", "node"] {
        for file in rust_files(&root.join(krate).join("src")) {
            let text = std::fs::read_to_string(&file).expect("a source file");
            // Unit tests run here, on Linux; product code is what is before them.
            let product = text.split("#[cfg(test)]").next().unwrap_or("");
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
