//! `ferrex context`: what an agent starting a session here is told — the
//! `context` tool's text, for the project of the current directory.

use super::memory::Arguments;
use crate::{
    base::{console::output, home::Home},
    surfaces::{bridge, control},
};

/// Prints the session-start context of the current directory's project
/// (or of `namespace`), as text or `--json`.
pub async fn context(
    home: &Home,
    namespace: Option<String>,
    budget: Option<u32>,
    json: bool,
) -> anyhow::Result<()> {
    let project = crate::base::project::of(std::env::current_dir().ok().as_deref(), home);
    drop(bridge::connect_or_start(home, &[]).await?);
    let arguments = Arguments::default().set("namespace", namespace).set("budget", budget).value();
    let answer =
        control::call_in(&home.socket_file(), project.as_ref(), "context", arguments).await?;
    if json {
        output(&serde_json::to_string_pretty(&answer)?);
    } else {
        output(answer["text"].as_str().unwrap_or_default());
        if let (Some(tokens), Some(budget)) = (answer["tokens"].as_u64(), answer["budget"].as_u64())
        {
            let left_out = answer["left_out"].as_u64().unwrap_or(0);
            crate::base::console::report(&format!(
                "({tokens} of {budget} tokens, counted as characters / 4{})",
                if left_out > 0 { format!("; {left_out} items left out") } else { String::new() }
            ));
        }
    }
    Ok(())
}
