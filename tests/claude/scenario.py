"""The real Claude Code CLI, two devices, one memory (scripts/claude-code
runs this inside a network namespace of its own, where only loopback
exists).

A laptop and a desktop each run a ferrex node (paired with a ticket) and
the real `claude -p`, its model a scripted stand-in (standin.py), in a
temporary HOME per device that `ferrex setup claude-code` set up. On the
laptop the model runs a command that fails, loads ferrex's `task` tool
through ToolSearch and starts a task. On the desktop, in another checkout
of the same repository, the first request to the model must carry, from
ferrex's SessionStart hook, the laptop's task and the failed command, and
no ToolSearch line. The laptop's first request, with nothing recorded yet,
carries no context at all.

Then memory speaks first: the laptop stores notes in its clone with
`ferrex store`; on the desktop, a prompt one note answers carries that note
in the first request to the model (from the UserPromptSubmit hook, before
any tool call) and none of the notes it does not ask about; a follow-up in
the same session (`--resume`) is not told it again; an unrelated prompt is
told nothing. `ferrex setup claude-code --remove` then puts
the person's own settings back as they were, and nothing but the stand-in
was contacted (its proxy and DNS logs are empty).

Prints the figures: each `claude -p` run, each hook as ferrex's hook log
times it, and the context the desktop's first request carried, verbatim.
Usage: scenario.py --ferrex BIN --claude BIN --models DIR --work DIR
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TASK = "Migrate the users table to Postgres 16"
MISSING = "db/migrations/0042_users_pg16.sql"
LAPTOP_PROMPT = "DEVICE-LAPTOP: start the Postgres 16 migration of the users table."
DESKTOP_PROMPT = "DEVICE-DESKTOP: where did we leave the migration?"
# Notes the laptop stores in its clone; the desktop asks about the first.
NOTE_WEBHOOK = ("Billing webhooks from the payment provider are retried five times with a "
                "two minute backoff before they land in the dead-letter queue.")
NOTE_DEPLOY = "Production deploys are frozen from Thursday 18:00 UTC until Monday 09:00 UTC."
NOTE_CSS = "The marketing site's stylesheets are built with Tailwind 4 and purged in CI."
ASK_PROMPT = ("DEVICE-DESKTOP-ASK: How many times does the payment provider retry a failed "
              "billing webhook?")
FOLLOW_PROMPT = "DEVICE-DESKTOP-FOLLOW: and how often are failed billing webhooks retried again?"
OTHER_PROMPT = "DEVICE-DESKTOP-OTHER: rename the variable tmp to total in this function"
SCRIPT = [
    {"prompt_contains": "DEVICE-LAPTOP", "turns": [
        {"tool_use": {"name": "Bash", "input": {"command": f"ls {MISSING}",
                                                "description": "Look for the migration"}}},
        {"tool_use": {"name": "ToolSearch", "input": {"query": "select:mcp__ferrex__task"}}},
        {"tool_use": {"name": "mcp__ferrex__task", "input": {"action": "start", "title": TASK}}},
        {"text": "Started the migration task; the migration file does not exist yet."},
    ]},
    {"prompt_contains": "DEVICE-DESKTOP-ASK", "turns": [
        {"text": "Five times, two minutes apart."},
    ]},
    {"prompt_contains": "DEVICE-DESKTOP-OTHER", "turns": [
        {"text": "Renamed."},
    ]},
    {"prompt_contains": "DEVICE-DESKTOP", "turns": [
        {"text": "The laptop started the users table migration; its migration file is missing."},
    ]},
]
# What keeps Claude Code from calling anything but ANTHROPIC_BASE_URL
# (code.claude.com/docs/en/env-vars; docs/development.md says what each does).
QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
}


def fail(message):
    print(f"claude-code scenario: {message}", file=sys.stderr)
    sys.exit(1)


def say(message):
    print(f"claude-code scenario: {message}", file=sys.stderr)


class Device:
    """One device: its ferrex home, the person's HOME there, a checkout."""

    def __init__(self, work, name, remote, checkout, models):
        self.name = name
        self.root = work / name
        self.home = self.root / "ferrex"
        self.user = self.root / "user"
        self.repo = self.root / checkout
        for folder in (self.home, self.user / ".claude", self.repo / ".git", self.root / "tmp"):
            folder.mkdir(parents=True, exist_ok=True)
        (self.repo / ".git" / "config").write_text(
            f'[core]\n\tbare = false\n[remote "origin"]\n\turl = {remote}\n')
        (self.home / "ferrex.toml").write_text(
            f'[node]\nname = "{name}"\n[network]\nmode = "local"\nbind = "127.0.0.1:0"\n'
            f'[embed]\nmodel_dir = "{models}"\n')
        # The person's own Claude Code settings, which setup must keep.
        self.settings = {"theme": "dark", "hooks": {"PostToolUse": [
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "true"}]}]}}
        self.state = {"numStartups": 3, "mcpServers": {"other": {"command": "other-server"}}}
        (self.user / ".claude" / "settings.json").write_text(json.dumps(self.settings))
        (self.user / ".claude.json").write_text(json.dumps(self.state))

    def environment(self):
        return {
            "HOME": str(self.user), "USER": "tester", "LANG": "C.UTF-8", "TERM": "dumb",
            "SHELL": "/bin/bash", "TMPDIR": str(self.root / "tmp"),
            "XDG_CONFIG_HOME": str(self.user / ".config"),
            "XDG_CACHE_HOME": str(self.user / ".cache"),
            "XDG_DATA_HOME": str(self.user / ".local" / "share"),
            "XDG_STATE_HOME": str(self.user / ".local" / "state"),
        }


def ferrex(options, device, *args, cwd=None, check=True):
    environment = dict(device.environment(), PATH=os.environ["PATH"])
    result = subprocess.run([options.ferrex, "--home", str(device.home), *args],
                            cwd=cwd or device.repo, env=environment, capture_output=True,
                            text=True, timeout=180)
    if check and result.returncode != 0:
        fail(f"ferrex {' '.join(args)} on the {device.name}: {result.stderr}")
    return result


def claude(options, device, prompt, port, resume=None):
    """Runs `claude -p PROMPT` in the device's checkout (resuming session
    `resume`); its wall time and the session's id."""
    base = f"http://127.0.0.1:{port}"
    environment = dict(
        device.environment(), **QUIET,
        PATH=f"{Path(options.claude).parent}:/usr/bin:/bin",
        ANTHROPIC_BASE_URL=base, ANTHROPIC_API_KEY="sk-ant-standin-0000",
        HTTPS_PROXY=base, HTTP_PROXY=base, https_proxy=base, http_proxy=base,
        NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost",
    )
    started = time.monotonic()
    resuming = ["--resume", resume] if resume else []
    result = subprocess.run(
        [options.claude, "-p", prompt, *resuming, "--output-format", "stream-json", "--verbose",
         "--allowedTools", "Bash ToolSearch mcp__ferrex__task"],
        cwd=device.repo, env=environment, capture_output=True, text=True, timeout=180,
        stdin=subprocess.DEVNULL)
    took = time.monotonic() - started
    (device.root / f"claude-{int(started)}.jsonl").write_text(result.stdout)
    if result.returncode != 0:
        fail(f"claude -p on the {device.name} exited {result.returncode}: {result.stderr[-2000:]}")
    final = [json.loads(line) for line in result.stdout.splitlines() if '"type":"result"' in line]
    if not final or final[-1].get("is_error"):
        fail(f"claude -p on the {device.name} did not finish well: {result.stdout[-2000:]}")
    return took, final[-1].get("session_id")


def requests_of(logs, prompt, anywhere=False):
    """The requests to the model of the conversation opened by `prompt`
    (with `anywhere`, of every conversation that holds it)."""
    found = []
    for line in (logs / "requests.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["path"].split("?")[0] == "/v1/messages":
            messages = record["body"].get("messages") or []
            held = messages if anywhere else messages[:1]
            if messages and prompt in json.dumps(held):
                found.append(record["body"])
    return found


def told_contexts(body):
    """Every text the UserPromptSubmit hook added to a request: Claude Code
    2.1.332 puts each after "UserPromptSubmit hook additional context:" in
    a message of role system, as it does SessionStart's."""
    marker = "UserPromptSubmit hook additional context:"
    found = []
    for message in body.get("messages") or []:
        content = message.get("content")
        texts = [content] if isinstance(content, str) else [
            block.get("text", "") for block in content or [] if isinstance(block, dict)]
        for text in texts:
            for part in text.split(marker)[1:]:
                found.append(part.split("\n\nToday's date", 1)[0].strip())
    return found


def session_context(body):
    """What the SessionStart hook added to a request, or None."""
    marker = "SessionStart hook additional context:"
    for message in body.get("messages") or []:
        content = message.get("content")
        texts = [content] if isinstance(content, str) else [
            block.get("text", "") for block in content or [] if isinstance(block, dict)]
        for text in texts:
            if marker in text:
                return text.split(marker, 1)[1].split("\n\n# Environment", 1)[0].strip()
    return None


def hook_times(device):
    """(event, ms) of every hook the device ran, from ferrex's hook log."""
    times = []
    log = device.home / "logs" / "hook.log"
    for line in log.read_text().splitlines() if log.exists() else []:
        if "hook done" in line:
            fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
            times.append((fields.get("event", "?"), int(fields.get("ms", "0"))))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--ferrex", "--claude", "--models", "--work"):
        parser.add_argument(name, required=True)
    options = parser.parse_args()
    work = Path(options.work)
    logs = work / "standin"
    script = work / "script.json"
    script.write_text(json.dumps(SCRIPT))
    port_file = work / "standin.port"
    standin = subprocess.Popen(
        [sys.executable, str(HERE / "standin.py"), "--script", str(script), "--log-dir", str(logs),
         "--port-file", str(port_file), "--dns-port", "53"], stderr=open(work / "standin.err", "w"))
    laptop = Device(work, "laptop", "git@github.com:acme/api.git", "src/api", options.models)
    desktop = Device(work, "desktop", "https://alice@github.com/acme/api", "checkouts/acme-api",
                     options.models)
    try:
        deadline = time.monotonic() + 10
        while not port_file.exists():
            if time.monotonic() > deadline or standin.poll() is not None:
                fail(f"the stand-in did not start: {(work / 'standin.err').read_text()}")
            time.sleep(0.05)
        port = int(port_file.read_text())

        for device in (laptop, desktop):
            ferrex(options, device, "setup", "claude-code")
        ticket = ferrex(options, desktop, "invite").stdout.strip()
        ferrex(options, laptop, "join", ticket)

        laptop_took, _ = claude(options, laptop, LAPTOP_PROMPT, port)
        first = requests_of(logs, "DEVICE-LAPTOP")
        if not first:
            fail("the laptop's session sent the model nothing")
        if session_context(first[0]) is not None:
            fail(f"the laptop had nothing recorded, yet its session was given: {session_context(first[0])}")
        loaded = [body for body in first if "mcp__ferrex__task" in json.dumps(body.get("tools", []))]
        if not loaded:
            fail("ferrex's task tool was never offered to the model after ToolSearch loaded it")

        # The desktop's node has the laptop's session once it shows in its context.
        deadline = time.monotonic() + 90
        while True:
            shown = ferrex(options, desktop, "context").stdout
            if TASK in shown and MISSING in shown:
                break
            if time.monotonic() > deadline:
                fail(f"the desktop never heard of the laptop's session; its context: {shown!r}")
            time.sleep(0.25)

        desktop_took, _ = claude(options, desktop, DESKTOP_PROMPT, port)
        asked = requests_of(logs, "DEVICE-DESKTOP")
        if not asked:
            fail("the desktop's session sent the model nothing")
        context = session_context(asked[0])
        if context is None:
            fail("the desktop's first request carried no SessionStart context")
        for needle in (TASK, MISSING, "No such file"):
            if needle not in context:
                fail(f"the desktop's first request lacks {needle!r}: {context}")
        if "ToolSearch" in context:
            fail(f"the context records Claude Code's ToolSearch as work: {context}")

        # Memory speaks first: notes the laptop stored reach the desktop's
        # prompt that they answer, and nothing else.
        for note in (NOTE_WEBHOOK, NOTE_DEPLOY, NOTE_CSS):
            ferrex(options, laptop, "store", note)
        deadline = time.monotonic() + 90
        while True:
            found = ferrex(options, desktop, "recall", "--json", "tailwind purged dead-letter freeze").stdout
            if all(note in found for note in (NOTE_WEBHOOK, NOTE_DEPLOY, NOTE_CSS)):
                break
            if time.monotonic() > deadline:
                fail(f"the desktop never got the laptop's notes: {found[-2000:]}")
            time.sleep(0.25)
        ask_took, session = claude(options, desktop, ASK_PROMPT, port)
        asked = requests_of(logs, "DEVICE-DESKTOP-ASK")
        if not asked:
            fail("the desktop's question sent the model nothing")
        told = "\n".join(told_contexts(asked[0]))
        if NOTE_WEBHOOK not in told:
            fail(f"the first request of the desktop's question lacks the note that answers it: {json.dumps(asked[0]['messages'])[-3000:]}")
        for other in (NOTE_DEPLOY, NOTE_CSS):
            if other in json.dumps(asked[0]):
                fail(f"the desktop's question was told a note it does not ask about: {other}")
        if any(block.get("type") == "tool_use" for message in asked[0]["messages"]
               for block in (message.get("content") if isinstance(message.get("content"), list) else [])):
            fail("the told note came after a tool call, not with the prompt")
        follow_took, _ = claude(options, desktop, FOLLOW_PROMPT, port, resume=session)
        followed = [body for body in requests_of(logs, "DEVICE-DESKTOP-FOLLOW", anywhere=True)]
        if not followed:
            fail("the follow-up sent the model nothing")
        # The resumed conversation may replay the first turn's context;
        # told again, the note would be there twice.
        again = [text for text in told_contexts(followed[0]) if NOTE_WEBHOOK in text]
        if len(again) > 1:
            fail(f"the follow-up in the same session was told again: {again}")
        told_json = json.loads(ferrex(options, desktop, "told", "--session", session, "--json").stdout)
        lines = [entry["line"] for one in told_json["sessions"] for entry in one["told"]]
        if sum(NOTE_WEBHOOK[:60] in line for line in lines) != 1:
            fail(f"`ferrex told` should list the note once for the session: {lines}")
        other_took, _ = claude(options, desktop, OTHER_PROMPT, port)
        other = requests_of(logs, "DEVICE-DESKTOP-OTHER")
        if not other or told_contexts(other[0]):
            fail(f"an unrelated prompt was told something: {other and told_contexts(other[0])}")

        ferrex(options, laptop, "setup", "claude-code", "--remove")
        settings = json.loads((laptop.user / ".claude" / "settings.json").read_text())
        state = json.loads((laptop.user / ".claude.json").read_text())
        # Claude Code keeps its own state in .claude.json too: what the
        # person had is back, ferrex's server is gone, the rest is its own.
        kept = all(state.get(key) == value for key, value in laptop.state.items())
        if settings != laptop.settings or not kept:
            fail(f"setup --remove left the settings changed: {settings} {state}")

        for name in ("proxy.jsonl", "dns.jsonl"):
            asked_elsewhere = (logs / name).read_text().strip()
            if asked_elsewhere:
                fail(f"Claude Code asked for something besides the stand-in ({name}): {asked_elsewhere}")

        say(f"claude -p on the laptop: {laptop_took:.2f} s; on the desktop: {desktop_took:.2f} s; "
            f"the question {ask_took:.2f} s, its follow-up {follow_took:.2f} s, "
            f"the unrelated prompt {other_took:.2f} s")
        say("the desktop's question was told:\n" + told)
        for device in (laptop, desktop):
            times = ", ".join(f"{event} {ms} ms" for event, ms in hook_times(device))
            say(f"hooks on the {device.name} (ferrex's hook log): {times}")
        say("the desktop's first request carried:\n" + context)
        say("passed: the desktop's first turn knew the laptop's task and failed command; "
            "its question was told the laptop's note that answers it, its follow-up nothing "
            "again, an unrelated prompt nothing; setup --remove restored the settings; "
            "nothing but the stand-in was contacted")
    finally:
        for device in (laptop, desktop):
            ferrex(options, device, "stop", check=False)
        standin.terminate()
        standin.wait(timeout=10)


if __name__ == "__main__":
    main()
