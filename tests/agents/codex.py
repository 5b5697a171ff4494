"""The real Codex CLI with ferrex (scripts/codex-cli runs this inside a
network namespace of its own, where only loopback exists).

One device runs a ferrex node and the real `codex exec`, its model a
scripted stand-in of the Responses API (standin.py --api openai) reached
through a custom model provider, in a temporary HOME whose
`~/.codex/config.toml` the person wrote, comments and all. `ferrex setup
codex` adds the MCP server to it and the hooks to `~/.codex/hooks.json`;
the person's comments and layout stay. In a first session the model finds
ferrex's `task` tool with Codex's tool search and starts a task (the MCP
tools are listed, a call succeeds). The person then stores notes with
`ferrex store`; in a second session the first request carries, from
ferrex's SessionStart hook, the task, and from its UserPromptSubmit hook
the note that answers the prompt, and not the one it does not ask about.
Codex runs a hook only once the person trusted it in /hooks; these runs
pass `--dangerously-bypass-hook-trust`, the flag Codex documents for a run
without that review. `ferrex setup codex --remove` gives back the person's
config.toml byte for byte, and nothing but the stand-in was contacted.

Prints the figures: the setup command and its time, the time from setup to
the first answered tool call, each `codex exec`, and each hook as ferrex's
hook log times it.
Usage: codex.py --ferrex BIN --codex BIN --models DIR --work DIR
"""

import argparse
import json
import time
from pathlib import Path

from common import Device, Standin, check_told, fail, say, timed, wait_for

TASK = "Upgrade the CI runners to Ubuntu 26.04"
NOTE_PORT = "The staging load balancer listens on port 8443 and forwards to the blue pool."
NOTE_LUNCH = "The team lunch on Fridays is at the noodle place on Keizersgracht."
START_PROMPT = "CODEX-START: start the CI runner upgrade task."
ASK_PROMPT = "CODEX-ASK: Which port does the staging load balancer listen on?"
SCRIPT = [
    {"prompt_contains": "CODEX-START", "turns": [
        {"tool_search": {"query": "ferrex task", "limit": 8}},
        {"tool_use": {"name": "mcp__ferrex__task", "input": {"action": "start", "title": TASK}}},
        {"text": "Started the runner upgrade task."},
    ]},
    {"prompt_contains": "CODEX-ASK", "turns": [{"text": "Port 8443."}]},
]
# The person's Codex settings: their comments, and the provider that is
# the stand-in, with what keeps Codex from reaching anywhere else
# (docs/research/codex-cli.md §5, §8).
CONFIG = """# My Codex settings: keep this comment.
model = "gpt-5.5"  # the one I use
model_provider = "standin"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false  # no plugin sync, please

[model_providers.standin]
name = "standin"
base_url = "http://127.0.0.1:{port}/v1"
env_key = "STANDIN_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 20000
"""


def developer_texts(body):
    """The texts of the developer messages of a request (where Codex puts a
    hook's additional context)."""
    return [part.get("text", "") for item in body.get("input") or []
            if item.get("type", "message") == "message" and item.get("role") == "developer"
            for part in item.get("content") or [] if isinstance(part, dict)]


def conversation(standin, prompt):
    return [body for body in standin.requests("/v1/responses")
            if any(prompt in json.dumps(item) for item in body.get("input") or []
                   if item.get("role") == "user")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--ferrex", "--codex", "--models", "--work"):
        parser.add_argument(name, required=True)
    options = parser.parse_args()
    work = Path(options.work)
    standin = Standin(work, "openai", SCRIPT)
    device = Device(work, "workstation", "git@github.com:acme/ci.git", "src/ci", options.models,
                    options.ferrex)
    codex_home = device.user / ".codex"
    codex_home.mkdir(parents=True)
    config = codex_home / "config.toml"
    config.write_text(CONFIG.format(port=standin.port))
    original = config.read_bytes()
    path = [Path(options.codex).parent]
    env = dict(standin.proxies(), CODEX_HOME=str(codex_home), STANDIN_API_KEY="sk-standin-offline")

    def setup(*args):
        return device.run([str(device.bin / "ferrex"), "setup", "codex", *args], path=path, env=env)

    def codex_exec(prompt):
        started = time.monotonic()
        result = device.run([options.codex, "exec", "--skip-git-repo-check", "--json",
                             "--dangerously-bypass-hook-trust",
                             "--dangerously-bypass-approvals-and-sandbox", prompt], path=path, env=env)
        (device.root / f"codex-{int(started * 1000)}.jsonl").write_text(result.stdout)
        return time.monotonic() - started, result

    try:
        set_up_at = time.time()
        done, setup_took = timed(setup)
        text = config.read_text()
        for kept in ("# My Codex settings: keep this comment.", '"gpt-5.5"  # the one I use',
                     "plugins = false  # no plugin sync, please"):
            if kept not in text:
                fail(f"setup lost the person's line {kept!r}:\n{text}")
        if "[mcp_servers.ferrex]" not in text or not (codex_home / "hooks.json").exists():
            fail(f"setup did not add the server and hooks: {done.stdout}\n{text}")
        listed = device.run([options.codex, "mcp", "list", "--json"], path=path, env=env).stdout
        if "ferrex" not in listed:
            fail(f"`codex mcp list` does not show ferrex: {listed}")
        # The node first: Codex waits about a second for MCP servers before
        # its first request (docs/research/codex-cli.md §11), and a node's
        # first start loads the model.
        device.ferrex("context")

        start_took, _ = codex_exec(START_PROMPT)
        started = conversation(standin, "CODEX-START")
        searched = [item for body in started for item in body.get("input") or []
                    if item.get("type") == "tool_search_output"]
        if not any("mcp__ferrex" in json.dumps(item) and '"task"' in json.dumps(item) for item in searched):
            fail(f"Codex's tool search did not list ferrex's task tool: {json.dumps(searched)[:2000]}")
        answered = [record for record in standin.records()
                    if "CODEX-START" in json.dumps(record["body"].get("input", []))
                    and any(item.get("type") == "function_call_output" and TASK in json.dumps(item)
                            for item in record["body"].get("input") or [])]
        if not answered:
            fail(f"the task tool's answer never reached the model: {json.dumps(started[-1:])[-3000:]}")
        first_call = answered[0]["at"] - set_up_at

        for note in (NOTE_PORT, NOTE_LUNCH):
            device.ferrex("store", note)
        wait_for("the notes were not recallable",
                 lambda: NOTE_PORT in device.ferrex("recall", "--json", "staging load balancer port").stdout)
        ask_took, _ = codex_exec(ASK_PROMPT)
        asked = conversation(standin, "CODEX-ASK")
        if not asked:
            fail("the second session sent the model nothing")
        contexts = developer_texts(asked[0])
        check_told(asked[0], contexts, TASK, NOTE_PORT, NOTE_LUNCH)

        _, remove_took = timed(setup, "--remove")
        if config.read_bytes() != original:
            fail(f"setup --remove did not give back the person's config.toml:\n{config.read_text()}")
        if "ferrex" in (codex_home / "hooks.json").read_text():
            fail(f"setup --remove left ferrex's hooks: {(codex_home / 'hooks.json').read_text()}")

        outside = standin.asked_elsewhere()
        if outside:
            fail(f"Codex asked for something besides the stand-in: {outside}")
        version = device.run([options.codex, "--version"], path=path, env=env).stdout.strip()
        say(f"{version}: `ferrex setup codex` {setup_took:.2f} s, `--remove` {remove_took:.2f} s")
        say(f"from the setup to the first answered tool call: {first_call:.2f} s")
        say(f"codex exec: the first session {start_took:.2f} s, the question {ask_took:.2f} s")
        say("hooks (ferrex's hook log): " + device.hook_line())
        say("the question's first request carried:\n" + "\n---\n".join(
            text for text in contexts if TASK in text or NOTE_PORT in text))
        say("passed: setup kept the person's config.toml, Codex listed and called ferrex's tool, the "
            "session-start context and the told note reached the first request, --remove gave the "
            "file back byte for byte, nothing but the stand-in was contacted")
    finally:
        device.ferrex("stop", check=False)
        standin.stop()


if __name__ == "__main__":
    main()
