"""The real Gemini CLI with ferrex's extension (scripts/gemini-cli runs this
inside a network namespace of its own, where only loopback exists).

One device runs a ferrex node and the real `gemini -p`, its model a
scripted stand-in of the Gemini API (standin.py --api gemini), in a
temporary HOME where `gemini extensions validate` passes on ferrex's
extension and the person installed it from the
checkout with Gemini CLI's own command (`gemini extensions install
CHECKOUT/plugins/gemini --consent`) and no `ferrex setup`. In a first
session the model starts a task through the extension's MCP tool
(`mcp_ferrex_task`) and hears its answer. The person then stores a note
with `ferrex store`; in a second session, the first request to the model
carries, from the extension's SessionStart hook, the task, and from its
BeforeAgent hook the note that answers the prompt, and not the note it
does not ask about. Beside the extension, `ferrex setup gemini` refuses
and names what to remove; `gemini extensions uninstall ferrex` leaves no
ferrex entry in the settings; nothing but the stand-in was contacted by
the sessions (the extension commands are reported: Gemini CLI 0.61.0's
install and uninstall try its usage logging whatever the settings say).

Prints the figures: the install command and its time, the time from the
install to the first answered tool call, each `gemini -p` run, each hook as
ferrex's hook log times it, and the first request's hook contexts.
Usage: gemini.py --ferrex BIN --gemini BIN --models DIR --work DIR --checkout DIR
"""

import argparse
import json
import time
from pathlib import Path

from common import Device, Standin, check_told, fail, say, timed, wait_for

TASK = "Rotate the staging database credentials"
NOTE_CRON = "The nightly backup cron job runs at 02:30 UTC on the home server and keeps 14 days."
NOTE_FONT = "The design team picked Inter as the body font for the docs site."
START_PROMPT = "GEMINI-START: start the credentials rotation task."
ASK_PROMPT = "GEMINI-ASK: When does the nightly backup cron job run, and how long are backups kept?"
MODEL = "gemini-2.5-flash"
SCRIPT = [
    {"prompt_contains": "GEMINI-START", "turns": [
        {"tool_use": {"name": "mcp_ferrex_task", "input": {"action": "start", "title": TASK}}},
        {"text": "Started the rotation task."},
    ]},
    {"prompt_contains": "GEMINI-ASK", "turns": [{"text": "At 02:30 UTC; fourteen days."}]},
]


def hook_contexts(body):
    """The texts hooks added to a request: Gemini CLI 0.61.0 puts each as
    `<hook_context>…</hook_context>` in the first user content's parts."""
    found = []
    for content in (body.get("contents") or [])[:1]:
        for part in content.get("parts") or []:
            text = part.get("text", "")
            while "<hook_context>" in text and "</hook_context>" in text:
                start = text.index("<hook_context>") + len("<hook_context>")
                end = text.index("</hook_context>", start)
                found.append(text[start:end])
                text = text[end:]
    return found


def conversation(standin, prompt):
    """The model requests (not the CLI's routing checks) of the session opened by `prompt`."""
    return [body for body in standin.requests("/v1beta/models/")
            if body.get("tools") and prompt in json.dumps((body.get("contents") or [])[:1])]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--ferrex", "--gemini", "--models", "--work", "--checkout"):
        parser.add_argument(name, required=True)
    options = parser.parse_args()
    work = Path(options.work)
    standin = Standin(work, "gemini", SCRIPT)
    device = Device(work, "server", "git@github.com:acme/ops.git", "src/ops", options.models, options.ferrex)
    settings_file = device.user / ".gemini" / "settings.json"
    settings_file.parent.mkdir(parents=True)
    # The person's settings: a theme of theirs, and what keeps the CLI quiet
    # and on an API key (docs/research/gemini-cli-extensions.md, §4-5).
    person = {
        "ui": {"theme": "GitHub"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    }
    settings_file.write_text(json.dumps(person, indent=2))
    env = dict(standin.proxies(), GEMINI_API_KEY="standin-key", GOOGLE_GEMINI_BASE_URL=standin.url,
               GEMINI_TELEMETRY_ENABLED="false", GEMINI_CLI_NO_RELAUNCH="true",
               GEMINI_CLI_TRUST_WORKSPACE="true", NO_COLOR="1")
    path = [Path(options.gemini).parent]

    def gemini(*args, check=True):
        return device.run([options.gemini, *args], path=path, env=env, check=check)

    def prompt(text):
        started = time.monotonic()
        result = gemini("-p", text, "--output-format", "json", "--approval-mode", "yolo", "-m", MODEL)
        (device.root / f"gemini-{int(started * 1000)}.json").write_text(result.stdout)
        return time.monotonic() - started

    try:
        # Gemini CLI's own check of the extension.
        checked = gemini("extensions", "validate", str(Path(options.checkout) / "plugins" / "gemini"))
        if "successfully validated" not in checked.stdout + checked.stderr:
            fail(f"gemini extensions validate: {checked.stdout} {checked.stderr}")
        installed_at = time.time()
        _, install_took = timed(gemini, "extensions", "install", str(Path(options.checkout) / "plugins" / "gemini"),
                                "--consent")
        folder = device.user / ".gemini" / "extensions" / "ferrex"
        if not (folder / "gemini-extension.json").exists():
            fail(f"the install did not put the extension in {folder}: {gemini('extensions', 'list').stdout}")
        during_install = standin.asked_elsewhere()
        for name in ("proxy.jsonl", "dns.jsonl"):
            (standin.logs / name).write_text("")

        start_took = prompt(START_PROMPT)
        started = conversation(standin, "GEMINI-START")
        if not started:
            fail("the first session sent the model nothing")
        declared = [declaration["name"] for tool in started[0]["tools"]
                    for declaration in tool.get("functionDeclarations") or []]
        if "mcp_ferrex_task" not in declared:
            fail(f"the extension's MCP tools were not offered: {declared}")
        answered = [record for record in standin.records()
                    if "GEMINI-START" in json.dumps(record["body"].get("contents", [])[:1])
                    and "functionResponse" in json.dumps(record["body"].get("contents", [])[-1:])
                    and TASK in json.dumps(record["body"].get("contents", [])[-1:])]
        if not answered:
            fail("the task tool's answer never reached the model")
        first_call = answered[0]["at"] - installed_at

        for note in (NOTE_CRON, NOTE_FONT):
            device.ferrex("store", note)
        wait_for("the notes were not recallable",
                 lambda: NOTE_CRON in device.ferrex("recall", "--json", "nightly backup cron").stdout)
        ask_took = prompt(ASK_PROMPT)
        asked = conversation(standin, "GEMINI-ASK")
        if not asked:
            fail("the second session sent the model nothing")
        contexts = hook_contexts(asked[0])
        check_told(asked[0], contexts, TASK, NOTE_CRON, NOTE_FONT)

        # Beside the extension, setup refuses and changes nothing.
        before = settings_file.read_bytes()
        refused = device.ferrex("setup", "gemini", check=False)
        if refused.returncode == 0 or "gemini extensions uninstall ferrex" not in refused.stderr:
            fail(f"setup beside the extension should refuse, naming what to remove: {refused.stderr}")
        if settings_file.read_bytes() != before:
            fail("setup beside the extension changed the settings")

        # The sessions asked nothing of anyone else.
        outside = standin.asked_elsewhere()
        if outside:
            fail(f"Gemini CLI's sessions asked for something besides the stand-in: {outside}")
        _, uninstall_took = timed(gemini, "extensions", "uninstall", "ferrex")
        during_uninstall = standin.asked_elsewhere()
        if folder.exists():
            fail(f"the uninstall left {folder}")
        settings = json.loads(settings_file.read_text())
        if "ferrex" in json.dumps(settings).lower():
            fail(f"after uninstalling, the settings still hold ferrex: {settings}")
        enablement = device.user / ".gemini" / "extensions" / "extension-enablement.json"
        if enablement.exists() and "ferrex" in enablement.read_text():
            fail(f"after uninstalling, {enablement} still holds ferrex")

        version = gemini("--version").stdout.strip()
        say(f"Gemini CLI {version}: `gemini extensions install CHECKOUT/plugins/gemini --consent` "
            f"{install_took:.2f} s, `gemini extensions uninstall ferrex` {uninstall_took:.2f} s")
        say(f"`gemini extensions validate plugins/gemini`: {(checked.stdout + checked.stderr).strip()[:300]}")
        for step, asked in (("validate and install", during_install),
                            ("uninstall", during_uninstall)):
            if asked:
                say(f"asked elsewhere during the {step} (refused; Gemini CLI's extension commands "
                    f"report usage whatever the settings say): {asked}")
        say(f"from the install to the first answered tool call: {first_call:.2f} s")
        say(f"gemini -p: the first session {start_took:.2f} s, the question {ask_took:.2f} s")
        say("hooks (ferrex's hook log): " + device.hook_line())
        say("the question's first request carried:\n" + "\n---\n".join(contexts))
        say("passed: the extension's tool answered, the session-start context and the told note "
            "reached the first request, setup refused beside the extension, the uninstall left no "
            "ferrex in the settings, the sessions contacted nothing but the stand-in")
    finally:
        device.ferrex("stop", check=False)
        standin.stop()


if __name__ == "__main__":
    main()
