//! `ferrex context`: what an agent starting a session here is told — the
//! `context` tool's text, for the project of the current directory; and
//! `ferrex told`: what agents' sessions were told with their prompts, and
//! why.

use serde::Deserialize;

use super::memory::Arguments;
use crate::{
    base::{console::output, home::Home},
    surfaces::{bridge, control},
};
use ferrex_engine::answers::{
    telling::{TellAnswer, ToldAnswer},
    working::ContextAnswer,
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
        let answer = ContextAnswer::deserialize(&answer)?;
        match context_text(&answer) {
            Some(text) => output(&text),
            None => crate::base::console::report(&format!(
                "Nothing to tell a session in namespace {} yet: no open task, activity, decision \
                 or fact is recorded there.",
                answer.namespace
            )),
        }
    }
    Ok(())
}

/// Prints what an agent in the current directory would be told with
/// `prompt`, and every candidate with its figures, as text or `--json`.
pub async fn tell(
    home: &Home,
    prompt: String,
    session: Option<String>,
    namespace: Option<String>,
    json: bool,
) -> anyhow::Result<()> {
    let project = crate::base::project::of(std::env::current_dir().ok().as_deref(), home);
    drop(bridge::connect_or_start(home, &[]).await?);
    let arguments = Arguments::default()
        .set("prompt", Some(prompt))
        .set("session_id", session)
        .set("namespace", namespace)
        .value();
    let answer: TellAnswer = serde_json::from_value(
        control::call_in(&home.socket_file(), project.as_ref(), "tell", arguments).await?,
    )?;
    if json {
        output(&serde_json::to_string_pretty(&answer)?);
        return Ok(());
    }
    let mut text = if answer.text.is_empty() {
        format!(
            "Nothing would be told ({}).\n",
            answer.off.as_deref().unwrap_or("no memory cleared the bar")
        )
    } else {
        format!("{}\n\n({} of {} tokens)\n", answer.text, answer.tokens, answer.budget)
    };
    if !answer.considered.is_empty() {
        text.push_str(&format!("\nCandidates in {}:\n", answer.namespaces.join(", ")));
        for considered in &answer.considered {
            text.push_str(&format!(
                "  {}  similarity {:.3}, keywords {:.0}%: {}\n",
                considered.id,
                considered.why.similarity,
                considered.why.keywords * 100.0,
                considered.outcome
            ));
        }
    }
    output(text.trim_end());
    Ok(())
}

/// Prints what sessions were told (one session's with `session`), as text
/// or `--json`.
pub async fn told(home: &Home, session: Option<String>, json: bool) -> anyhow::Result<()> {
    drop(bridge::connect_or_start(home, &[]).await?);
    let arguments = Arguments::default().set("session_id", session.clone()).value();
    let answer: ToldAnswer =
        serde_json::from_value(control::call(&home.socket_file(), "told", arguments).await?)?;
    if json {
        output(&serde_json::to_string_pretty(&answer)?);
    } else if answer.sessions.is_empty() {
        crate::base::console::report(&match session {
            Some(session) => format!(
                "Session {session} was told nothing with its prompts that this node remembers \
                 (a session is remembered for a day)."
            ),
            None => "No session was told anything with its prompts in the last day.".to_owned(),
        });
    } else {
        output(&told_text(&answer));
    }
    Ok(())
}

/// What sessions were told, as a person reads it: per session, each told
/// memory's line, the prompt it came with and why.
fn told_text(answer: &ToldAnswer) -> String {
    let mut text = String::new();
    for session in &answer.sessions {
        text.push_str(&format!(
            "session {} (last told {})
",
            session.session_id, session.last
        ));
        for told in &session.told {
            text.push_str(&format!(
                "  {}  {}
",
                told.at, told.line
            ));
            match (&told.prompt, &told.why) {
                (Some(prompt), Some(why)) => text.push_str(&format!(
                    "      with the prompt {prompt:?}: similarity {:.2}, {:.0}% of its keywords ({})\n",
                    why.similarity,
                    why.keywords * 100.0,
                    why.rule.as_deref().unwrap_or("no rule"),
                )),
                _ => text.push_str("      shown in the session-start context\n"),
            }
        }
    }
    text.trim_end().to_owned()
}

/// The context as a person reads it: the text, a blank line, and its size
/// on a line of its own; `None` when there is nothing to tell a session (a
/// session is given nothing then).
fn context_text(answer: &ContextAnswer) -> Option<String> {
    let text = answer.text.trim_end();
    if text.is_empty() {
        return None;
    }
    let (tokens, budget) = (answer.tokens, answer.budget);
    let left_out = match answer.left_out {
        0 => String::new(),
        1 => "; 1 item left out".to_owned(),
        many => format!("; {many} items left out"),
    };
    Some(format!("{text}\n\n({tokens} of {budget} tokens, counted as characters / 4{left_out})"))
}

#[cfg(test)]
mod tests {
    use super::{ContextAnswer, context_text};

    fn context(text: &str, tokens: usize, left_out: usize) -> ContextAnswer {
        ContextAnswer {
            namespace: "github.com.acme.api".into(),
            project: None,
            text: text.into(),
            tokens,
            budget: 1000,
            sections: Vec::new(),
            left_out,
        }
    }

    #[test]
    fn the_size_stands_on_a_line_of_its_own_and_nothing_says_so() {
        let answer = context("# ferrex: where work stands\n\n## Open tasks\n- a", 12, 1);
        assert_eq!(
            context_text(&answer).unwrap(),
            "# ferrex: where work stands\n\n## Open tasks\n- a\n\n(12 of 1000 tokens, counted as \
             characters / 4; 1 item left out)"
        );
        assert_eq!(context_text(&context("", 0, 0)), None);
    }
}
