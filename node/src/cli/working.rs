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
        match context_text(&answer) {
            Some(text) => output(&text),
            None => crate::base::console::report(&format!(
                "Nothing to tell a session in namespace {} yet: no open task, activity, decision \
                 or fact is recorded there.",
                answer["namespace"].as_str().unwrap_or("?")
            )),
        }
    }
    Ok(())
}

/// The context as a person reads it: the text, a blank line, and its size
/// on a line of its own; `None` when there is nothing to tell a session (a
/// session is given nothing then).
fn context_text(answer: &serde_json::Value) -> Option<String> {
    let text = answer["text"].as_str().unwrap_or_default().trim_end();
    if text.is_empty() {
        return None;
    }
    let tokens = answer["tokens"].as_u64().unwrap_or(0);
    let budget = answer["budget"].as_u64().unwrap_or(0);
    let left_out = match answer["left_out"].as_u64().unwrap_or(0) {
        0 => String::new(),
        1 => "; 1 item left out".to_owned(),
        many => format!("; {many} items left out"),
    };
    Some(format!("{text}\n\n({tokens} of {budget} tokens, counted as characters / 4{left_out})"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::context_text;

    #[test]
    fn the_size_stands_on_a_line_of_its_own_and_nothing_says_so() {
        let answer = json!({"text": "# ferrex: where work stands\n\n## Open tasks\n- a", "tokens": 12,
            "budget": 1000, "left_out": 1, "namespace": "github.com.acme.api"});
        assert_eq!(
            context_text(&answer).unwrap(),
            "# ferrex: where work stands\n\n## Open tasks\n- a\n\n(12 of 1000 tokens, counted as \
             characters / 4; 1 item left out)"
        );
        let empty = json!({"text": "", "tokens": 0, "budget": 1000, "left_out": 0});
        assert_eq!(context_text(&empty), None);
    }
}
