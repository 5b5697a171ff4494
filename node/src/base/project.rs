//! Finding the project an agent works in from its working directory: the
//! repository's remote (`origin`, else the first), else the repository
//! root's folder name, else the configured `project.name`. Git's own files
//! are read (no `git` process): `.git` as a directory, or as a file naming
//! the directory (worktrees and submodules), whose `commondir` leads to the
//! shared `config`.

use std::path::{Path, PathBuf};

use ferrex_core::project::Project;

use crate::base::{config::Config, home::Home};

/// The project of an agent working in `dir` (when known), for the node of
/// `home`: its repository's, else the `project.name` that home's
/// configuration sets (a configuration that does not load sets none: the
/// node reports it when it starts).
pub fn of(dir: Option<&Path>, home: &Home) -> Option<Project> {
    let configured = Config::load(&home.config_file(), std::env::vars(), &[])
        .ok()
        .and_then(|config| config.project);
    match dir {
        Some(dir) => find(dir, configured.as_deref()),
        None => configured.as_deref().and_then(Project::named),
    }
}

/// The project of `dir`, or of `configured` (a name) when `dir` is in no
/// repository.
pub fn find(dir: &Path, configured: Option<&str>) -> Option<Project> {
    match repository_root(dir) {
        Some((root, git_dir)) => remote_url(&git_dir)
            .and_then(|url| Project::of_remote(&url))
            .or_else(|| Project::named(&root.file_name()?.to_string_lossy())),
        None => configured.and_then(Project::named),
    }
}

/// The repository holding `dir`: its root and its git directory.
fn repository_root(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut at = Some(dir);
    while let Some(current) = at {
        let dot_git = current.join(".git");
        if dot_git.is_dir() {
            return Some((current.to_owned(), dot_git));
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.lines().find_map(|line| line.strip_prefix("gitdir:"))?.trim();
            return Some((current.to_owned(), current.join(target)));
        }
        at = current.parent();
    }
    None
}

/// The URL of remote `origin`, else of the first remote, in the config of
/// `git_dir` (or of the directory its `commondir` names).
fn remote_url(git_dir: &Path) -> Option<String> {
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(relative) => git_dir.join(relative.trim()),
        Err(_) => git_dir.to_owned(),
    };
    let config = std::fs::read_to_string(common.join("config")).ok()?;
    let remotes = remotes(&config);
    remotes
        .iter()
        .find(|(name, _)| name == "origin")
        .or_else(|| remotes.first())
        .map(|(_, url)| url.clone())
}

/// `(name, url)` of each `[remote "name"]` section with a `url`, in order.
fn remotes(config: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut section: Option<String> = None;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line
                .strip_prefix("[remote")
                .and_then(|rest| rest.trim().strip_suffix(']'))
                .map(|name| name.trim().trim_matches('"').to_owned());
            continue;
        }
        let Some(name) = &section else { continue };
        let Some((key, value)) = line.split_once('=') else { continue };
        if key.trim().eq_ignore_ascii_case("url")
            && !found.iter().any(|(known, _): &(String, String)| known == name)
        {
            found.push((name.clone(), value.trim().trim_matches('"').to_owned()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(root: &Path, config: &str) {
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), config).unwrap();
    }

    const CONFIG: &str = "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://github.com/other/api.git\n[remote \"origin\"]\n\turl = git@github.com:acme/api.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n";

    #[test]
    fn one_repository_at_two_paths_is_one_project() {
        let dir = tempfile::tempdir().unwrap();
        let laptop = dir.path().join("home/alice/src/api");
        let desktop = dir.path().join("work/checkouts/acme-api");
        repo(&laptop, CONFIG);
        repo(
            &desktop,
            &CONFIG.replace("git@github.com:acme/api.git", "https://github.com/acme/api"),
        );
        std::fs::create_dir_all(desktop.join("src/deep")).unwrap();
        let a = find(&laptop, None).unwrap();
        let b = find(&desktop.join("src/deep"), Some("ignored")).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.name, "github.com/acme/api");
    }

    #[test]
    fn without_origin_the_first_remote_then_the_folder_then_the_configured_name() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("one");
        repo(&first, "[remote \"upstream\"]\n\turl = https://github.com/other/api.git\n");
        assert_eq!(find(&first, None).unwrap().name, "github.com/other/api");
        let local = dir.path().join("My Notes");
        repo(&local, "[core]\n\tbare = false\n");
        assert_eq!(find(&local, None).unwrap().namespace.as_str(), "My-Notes");
        let outside = dir.path().join("plain");
        std::fs::create_dir_all(&outside).unwrap();
        assert_eq!(find(&outside, None), None);
        assert_eq!(
            find(&outside, Some("side project")).unwrap().namespace.as_str(),
            "side-project"
        );
    }

    #[test]
    fn a_worktree_reads_its_main_repository_config() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        repo(&main, CONFIG);
        let worktree_git = main.join(".git/worktrees/feature");
        std::fs::create_dir_all(&worktree_git).unwrap();
        std::fs::write(worktree_git.join("commondir"), "../..\n").unwrap();
        let feature = dir.path().join("feature");
        std::fs::create_dir_all(&feature).unwrap();
        std::fs::write(feature.join(".git"), format!("gitdir: {}\n", worktree_git.display()))
            .unwrap();
        assert_eq!(find(&feature, None).unwrap().name, "github.com/acme/api");
    }
}
