"""The real Claude Code CLI with ferrex's plugin, two devices, one memory
(scripts/claude-code runs this inside a network namespace of its own, where
only loopback exists).

A laptop and a desktop each run a ferrex node (paired with a ticket) and
the real `claude -p`, its model a scripted stand-in (standin.py --api
anthropic), in a temporary HOME per device where the person installed
ferrex's plugin with Claude Code's own commands (`claude plugin marketplace
add CHECKOUT`, `claude plugin install ferrex@ferrex`) and no `ferrex
setup`. On the laptop the model runs a command that fails, loads the
plugin's `task` tool through ToolSearch and starts a task. On the desktop,
in another checkout of the same repository, the first request to the model
must carry, from the plugin's SessionStart hook, the laptop's task and the
failed command, and no ToolSearch line. The laptop's first request, with
nothing recorded yet, carries no context at all.

Then memory speaks first: the laptop stores notes with `ferrex store`; on
the desktop, a prompt one note answers carries that note in the first
request (from the plugin's UserPromptSubmit hook, before any tool call) and
none of the notes it does not ask about; a follow-up in the same session
(`--resume`) is not told it again; an unrelated prompt is told nothing.

`claude plugin validate --strict` passes on the marketplace and the plugin.
Then ferrex installed both ways: beside the plugin, `ferrex setup
claude-code` refuses and names what to remove, changing nothing; with
setup's entries in first and the plugin installed after, the first session
is told, in one sentence, to run `ferrex setup claude-code --remove`, and
the working state reaches it once, not twice; `--remove` takes setup's
entries out. Last, `claude plugin uninstall` and `claude plugin marketplace
remove` leave no ferrex entry in any settings file, and nothing but the
stand-in was contacted (its proxy and DNS logs are empty).

Prints the figures: the install commands and their times, the time from
install to the first answered tool call, each `claude -p` run, each hook as
ferrex's hook log times it, and the context the desktop's first request
carried, verbatim.
Usage: claude.py --ferrex BIN --claude BIN --models DIR --work DIR --checkout DIR
"""

import argparse
import json
import subprocess
import threading
import time
from pathlib import Path

from common import Device, Standin, fail, say, timed, wait_for

TASK = "Migrate the users table to Postgres 16"
MISSING = "db/migrations/0042_users_pg16.sql"
TOOL = "mcp__plugin_ferrex_ferrex__task"
LAPTOP_PROMPT = "DEVICE-LAPTOP: start the Postgres 16 migration of the users table."
DESKTOP_PROMPT = "DEVICE-DESKTOP: where did we leave the migration?"
TWICE_PROMPT = "DEVICE-LAPTOP-TWICE: anything left on the migration?"
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
    {"prompt_contains": "DEVICE-LAPTOP:", "turns": [
        {"tool_use": {"name": "Bash", "input": {"command": f"ls {MISSING}",
                                                "description": "Look for the migration"}}},
        {"tool_use": {"name": "ToolSearch", "input": {"query": f"select:{TOOL}"}}},
        {"tool_use": {"name": TOOL, "input": {"action": "start", "title": TASK}}},
        {"text": "Started the migration task; the migration file does not exist yet."},
    ]},
    {"prompt_contains": "DEVICE-DESKTOP-ASK", "turns": [{"text": "Five times, two minutes apart."}]},
    {"prompt_contains": "DEVICE-DESKTOP-OTHER", "turns": [{"text": "Renamed."}]},
    {"prompt_contains": "DEVICE-DESKTOP", "turns": [
        {"text": "The laptop started the users table migration; its migration file is missing."},
    ]},
]
# The hooks Claude Code reported in its stream (the session's start hook:
# the others run after the stream's last line or are not reported): the
# event and how long it took, from its start to its answer, in ms.
HOOK_TIMES = []
# What keeps Claude Code from calling anything but ANTHROPIC_BASE_URL
# (code.claude.com/docs/en/env-vars; docs/development.md says what each does).
QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
}


class Claude:
    """The real CLI on one device, its model the stand-in."""

    def __init__(self, options, standin, device):
        self.options, self.standin, self.device = options, standin, device
        self.env = dict(QUIET, ANTHROPIC_BASE_URL=standin.url, ANTHROPIC_API_KEY="sk-ant-standin-0000",
                        **standin.proxies())
        self.path = [Path(options.claude).parent]

    def command(self, *args, check=True):
        """`claude ARGS` (the plugin commands); its output."""
        return self.device.run([self.options.claude, *args], path=self.path, env=self.env, check=check)

    def prompt(self, prompt, resume=None):
        """Runs `claude -p PROMPT` in the checkout (resuming session
        `resume`); its wall time and the session's id."""
        started = time.monotonic()
        resuming = ["--resume", resume] if resume else []
        command = [self.options.claude, "-p", prompt, *resuming, "--output-format", "stream-json",
                   "--verbose", "--allowedTools", f"Bash ToolSearch {TOOL}"]
        # Each line read as it comes, timed: Claude Code reports each hook's
        # start and answer in the stream, so the hooks are timed as it ran them.
        process = subprocess.Popen(command, cwd=self.device.repo, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=dict(self.device.environment(self.path), **self.env))
        timer = threading.Timer(180, process.kill)
        timer.start()
        lines = [(time.monotonic(), line) for line in process.stdout]
        stderr = process.stderr.read()
        process.wait()
        timer.cancel()
        took = time.monotonic() - started
        stdout = "".join(line for _, line in lines)
        (self.device.root / f"claude-{int(started * 1000)}.jsonl").write_text(stdout)
        if process.returncode != 0:
            fail(f"claude -p on the {self.device.name} exited {process.returncode}: {stderr[-2000:]}")
        final = [json.loads(line) for _, line in lines if '"type":"result"' in line]
        if not final or final[-1].get("is_error"):
            fail(f"claude -p on the {self.device.name} did not finish well: {stdout[-2000:]}")
        begun = {}
        for at, line in lines:
            if '"subtype":"hook_' not in line:
                continue
            event = json.loads(line)
            if event.get("subtype") == "hook_started":
                begun[event["hook_id"]] = at
            elif event.get("subtype") == "hook_response" and event.get("hook_id") in begun:
                HOOK_TIMES.append((event.get("hook_event"), (at - begun[event["hook_id"]]) * 1000))
        return took, final[-1].get("session_id")

    def install_plugin(self):
        """The plugin, from the checkout as a marketplace, with the CLI's own
        commands; how long each took."""
        _, added = timed(self.command, "plugin", "marketplace", "add", self.options.checkout)
        _, installed = timed(self.command, "plugin", "install", "ferrex@ferrex")
        listed = json.loads(self.command("plugin", "list", "--json").stdout)
        plugins = listed if isinstance(listed, list) else listed.get("plugins", [])
        if not any(str(plugin.get("id", plugin.get("name", ""))).startswith("ferrex")
                   and plugin.get("enabled", True) for plugin in plugins):
            fail(f"claude plugin list does not show ferrex enabled on the {self.device.name}: {listed}")
        return added, installed


def requests_of(standin, prompt, anywhere=False):
    """The requests to the model of the conversation opened by `prompt`
    (with `anywhere`, of every conversation that holds it)."""
    found = []
    for body in standin.requests("/v1/messages"):
        messages = body.get("messages") or []
        held = messages if anywhere else messages[:1]
        if messages and prompt in json.dumps(held):
            found.append(body)
    return found


def contexts(body, event):
    """Every text hook `event` added to a request: Claude Code 2.1.332 puts
    each after "EVENT hook additional context:" in a message of role
    system."""
    marker = f"{event} hook additional context:"
    found = []
    for message in body.get("messages") or []:
        content = message.get("content")
        texts = [content] if isinstance(content, str) else [
            block.get("text", "") for block in content or [] if isinstance(block, dict)]
        for text in texts:
            for part in text.split(marker)[1:]:
                found.append(part.split("\n\nToday's date", 1)[0].split("\n\n# Environment", 1)[0].strip())
    return found


def json_mentions(value, where=""):
    """The JSON paths of `value` whose key or text mentions ferrex."""
    found = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if "ferrex" in key.lower():
                found.append(f"{where}.{key}")
            found.extend(json_mentions(inner, f"{where}.{key}"))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found.extend(json_mentions(inner, f"{where}[{index}]"))
    elif isinstance(value, str) and "ferrex" in value.lower():
        found.append(f"{where} = {value}")
    return found


def settings_files(device):
    user = device.user
    return [user / ".claude" / "settings.json", user / ".claude" / "settings.local.json",
            user / ".claude.json", device.repo / ".claude" / "settings.json",
            device.repo / ".claude" / "settings.local.json"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--ferrex", "--claude", "--models", "--work", "--checkout"):
        parser.add_argument(name, required=True)
    options = parser.parse_args()
    work = Path(options.work)
    standin = Standin(work, "anthropic", SCRIPT)
    laptop = Device(work, "laptop", "git@github.com:acme/api.git", "src/api", options.models, options.ferrex)
    desktop = Device(work, "desktop", "https://alice@github.com/acme/api", "checkouts/acme-api",
                     options.models, options.ferrex)
    # The person's own Claude Code settings, which every step must keep.
    person = {"theme": "dark", "hooks": {"PostToolUse": [
        {"matcher": "Edit", "hooks": [{"type": "command", "command": "true"}]}]}}
    state = {"numStartups": 3, "mcpServers": {"other": {"command": "other-server"}}}
    for device in (laptop, desktop):
        (device.user / ".claude").mkdir(parents=True, exist_ok=True)
        (device.user / ".claude" / "settings.json").write_text(json.dumps(person))
        (device.user / ".claude.json").write_text(json.dumps(state))
    claude = {device.name: Claude(options, standin, device) for device in (laptop, desktop)}
    try:
        # Claude Code's own check of the marketplace and the plugin, strict.
        for folder in (options.checkout, str(Path(options.checkout) / "plugins" / "claude-code")):
            checked = claude["laptop"].command("plugin", "validate", "--strict", folder)
            if "Validation passed" not in checked.stdout + checked.stderr:
                fail(f"claude plugin validate {folder}: {checked.stdout} {checked.stderr}")
        installed_at = time.time()
        install_times = {name: agent.install_plugin() for name, agent in claude.items()}
        ticket = desktop.ferrex("invite").stdout.strip()
        laptop.ferrex("join", ticket)

        laptop_took, _ = claude["laptop"].prompt(LAPTOP_PROMPT)
        first = requests_of(standin, "DEVICE-LAPTOP:")
        if not first:
            fail("the laptop's session sent the model nothing")
        if contexts(first[0], "SessionStart"):
            fail(f"the laptop had nothing recorded, yet its session was given: {contexts(first[0], 'SessionStart')}")
        if not any(TOOL in json.dumps(body.get("tools", [])) for body in first):
            fail("the plugin's task tool was never offered to the model after ToolSearch loaded it")
        # The first answered tool call: the request that carries its result.
        answered = [record for record in standin.records()
                    if "DEVICE-LAPTOP:" in json.dumps(record["body"].get("messages", [])[:1])
                    and TASK in json.dumps(record["body"].get("messages", [])[-1:])
                    and "tool_result" in json.dumps(record["body"].get("messages", [])[-1:])]
        if not answered:
            fail("the task tool's answer never reached the model")
        first_call = answered[0]["at"] - installed_at

        wait_for("the desktop never heard of the laptop's session",
                 lambda: (lambda shown: TASK in shown and MISSING in shown)(desktop.ferrex("context").stdout))
        desktop_took, _ = claude["desktop"].prompt(DESKTOP_PROMPT)
        asked = requests_of(standin, "DEVICE-DESKTOP:")
        if not asked:
            fail("the desktop's session sent the model nothing")
        started = contexts(asked[0], "SessionStart")
        if len(started) != 1:
            fail(f"the desktop's first request should carry one SessionStart context: {started}")
        context = started[0]
        for needle in (TASK, MISSING, "No such file"):
            if needle not in context:
                fail(f"the desktop's first request lacks {needle!r}: {context}")
        if "ToolSearch" in context:
            fail(f"the context records Claude Code's ToolSearch as work: {context}")

        # Memory speaks first: notes the laptop stored reach the desktop's
        # prompt that they answer, and nothing else.
        for note in (NOTE_WEBHOOK, NOTE_DEPLOY, NOTE_CSS):
            laptop.ferrex("store", note)
        wait_for("the desktop never got the laptop's notes",
                 lambda: all(note in desktop.ferrex("recall", "--json", "tailwind purged dead-letter freeze").stdout
                             for note in (NOTE_WEBHOOK, NOTE_DEPLOY, NOTE_CSS)))
        ask_took, session = claude["desktop"].prompt(ASK_PROMPT)
        asked = requests_of(standin, "DEVICE-DESKTOP-ASK")
        if not asked:
            fail("the desktop's question sent the model nothing")
        told = "\n".join(contexts(asked[0], "UserPromptSubmit"))
        if NOTE_WEBHOOK not in told:
            fail(f"the first request of the desktop's question lacks the note that answers it: {json.dumps(asked[0]['messages'])[-3000:]}")
        for other in (NOTE_DEPLOY, NOTE_CSS):
            if other in json.dumps(asked[0]):
                fail(f"the desktop's question was told a note it does not ask about: {other}")
        if any(block.get("type") == "tool_use" for message in asked[0]["messages"]
               for block in (message.get("content") if isinstance(message.get("content"), list) else [])):
            fail("the told note came after a tool call, not with the prompt")
        follow_took, _ = claude["desktop"].prompt(FOLLOW_PROMPT, resume=session)
        followed = requests_of(standin, "DEVICE-DESKTOP-FOLLOW", anywhere=True)
        if not followed:
            fail("the follow-up sent the model nothing")
        # The resumed conversation may replay the first turn's context;
        # told again, the note would be there twice.
        again = [text for text in contexts(followed[0], "UserPromptSubmit") if NOTE_WEBHOOK in text]
        if len(again) > 1:
            fail(f"the follow-up in the same session was told again: {again}")
        told_json = json.loads(desktop.ferrex("told", "--session", session, "--json").stdout)
        lines = [entry["line"] for one in told_json["sessions"] for entry in one["told"]]
        if sum(NOTE_WEBHOOK[:60] in line for line in lines) != 1:
            fail(f"`ferrex told` should list the note once for the session: {lines}")
        other_took, _ = claude["desktop"].prompt(OTHER_PROMPT)
        other = requests_of(standin, "DEVICE-DESKTOP-OTHER")
        if not other or contexts(other[0], "UserPromptSubmit"):
            fail(f"an unrelated prompt was told something: {other and contexts(other[0], 'UserPromptSubmit')}")

        # Installed both ways. Beside the plugin, setup refuses and changes nothing.
        before = {path: path.read_bytes() for path in settings_files(desktop) if path.exists()}
        refused = desktop.ferrex("setup", "claude-code", check=False)
        if refused.returncode == 0 or "claude plugin uninstall ferrex@ferrex" not in refused.stderr:
            fail(f"setup beside the plugin should refuse, naming what to remove: {refused.stderr}")
        if {path: path.read_bytes() for path in settings_files(desktop) if path.exists()} != before:
            fail("setup beside the plugin changed the settings")
        # Setup first, the plugin after: told once, to remove setup's.
        claude["laptop"].command("plugin", "uninstall", "ferrex@ferrex")
        laptop.ferrex("setup", "claude-code")
        claude["laptop"].command("plugin", "install", "ferrex@ferrex")
        claude["laptop"].prompt(TWICE_PROMPT)
        twice = requests_of(standin, "DEVICE-LAPTOP-TWICE")
        started = contexts(twice[0], "SessionStart") if twice else []
        if not any("ferrex setup claude-code --remove" in text for text in started):
            fail(f"installed twice, the session was not told to remove setup's: {started}")
        if sum(TASK in text for text in started) != 1:
            fail(f"installed twice, the working state should arrive once: {started}")
        laptop.ferrex("setup", "claude-code", "--remove")
        kept = json.loads((laptop.user / ".claude" / "settings.json").read_text())
        if kept.get("hooks") != person["hooks"] or kept.get("theme") != "dark":
            fail(f"setup --remove beside the plugin left the person's settings changed: {kept}")

        # Uninstalled, no ferrex entry is left in any settings file.
        uninstall_times = {}
        for name, agent in claude.items():
            _, uninstalled = timed(agent.command, "plugin", "uninstall", "ferrex@ferrex")
            _, removed = timed(agent.command, "plugin", "marketplace", "remove", "ferrex")
            uninstall_times[name] = (uninstalled, removed)
        for device in (laptop, desktop):
            for path in settings_files(device):
                if not path.exists():
                    continue
                mentions = json_mentions(json.loads(path.read_text()))
                # Claude Code's own record that the plugin was taken out.
                left = [mention for mention in mentions if not mention.startswith(".declinedPlugins[")]
                if left:
                    fail(f"after uninstalling, {path} still holds ferrex: {left}")
                for mention in mentions:
                    say(f"left by Claude Code itself in {path.name} on the {device.name}: {mention}")
            settings = json.loads((device.user / ".claude" / "settings.json").read_text())
            if settings.get("hooks") != person["hooks"] or settings.get("theme") != "dark":
                fail(f"the person's settings changed on the {device.name}: {settings}")

        outside = standin.asked_elsewhere()
        if outside:
            fail(f"Claude Code asked for something besides the stand-in: {outside}")

        for name, (added, installed) in install_times.items():
            uninstalled, removed = uninstall_times[name]
            say(f"on the {name}: `claude plugin marketplace add CHECKOUT` {added:.2f} s, "
                f"`claude plugin install ferrex@ferrex` {installed:.2f} s, "
                f"`claude plugin uninstall ferrex@ferrex` {uninstalled:.2f} s, "
                f"`claude plugin marketplace remove ferrex` {removed:.2f} s")
        say(f"from the install to the first answered tool call (the laptop's task): {first_call:.2f} s")
        say(f"claude -p on the laptop: {laptop_took:.2f} s; on the desktop: {desktop_took:.2f} s; "
            f"the question {ask_took:.2f} s, its follow-up {follow_took:.2f} s, "
            f"the unrelated prompt {other_took:.2f} s")
        say("the desktop's question was told:\n" + told)
        for device in (laptop, desktop):
            times = device.hook_line()
            say(f"hooks on the {device.name} (ferrex's hook log): {times}")
        say("hooks as Claude Code reported them in its stream (start to answer, the launcher and "
            "all): " + ", ".join(f"{event} {ms:.0f} ms" for event, ms in HOOK_TIMES))
        say("the desktop's first request carried:\n" + context)
        say("passed: with the plugin alone, the desktop's first turn knew the laptop's task and "
            "failed command; its question was told the laptop's note that answers it, its "
            "follow-up nothing again, an unrelated prompt nothing; installed both ways, setup "
            "refused beside the plugin and the plugin named what to remove; uninstalled, no "
            "settings file holds ferrex; nothing but the stand-in was contacted")
    finally:
        for device in (laptop, desktop):
            device.ferrex("stop", check=False)
        standin.stop()


if __name__ == "__main__":
    main()
