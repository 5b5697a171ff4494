"""What the real-agent scenarios share (tests/agents/claude.py, gemini.py,
codex.py; each run by its script inside a network namespace of its own):
a device with its ferrex home, the person's HOME and a checkout; running
`ferrex` there; the stand-in of the model API (standin.py); waiting,
bounded; the hooks as ferrex's hook log timed them; and the check that
nothing but the stand-in was asked for."""

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAME = Path(sys.argv[0]).stem


def fail(message):
    print(f"{NAME} scenario: {message}", file=sys.stderr)
    sys.exit(1)


def say(message):
    print(f"{NAME} scenario: {message}", file=sys.stderr)


def wait_for(what, check, seconds=90, every=0.25):
    """Polls `check` until it returns something true, for `seconds` at most
    (then fails, naming `what` and the last answer)."""
    deadline = time.monotonic() + seconds
    while True:
        answer = check()
        if answer:
            return answer
        if time.monotonic() > deadline:
            fail(f"{what}, within {seconds} s; last: {str(answer)[-2000:]}")
        time.sleep(every)


class Device:
    """One device: its ferrex home, the person's HOME there, a checkout
    whose origin is `remote`, and the ferrex the person installed on the
    PATH (`bin/ferrex`, a link to the binary under test)."""

    def __init__(self, work, name, remote, checkout, models, ferrex):
        self.name = name
        self.root = work / name
        self.home = self.root / "node"
        self.user = self.root / "user"
        self.repo = self.root / checkout
        self.bin = self.root / "bin"
        for folder in (self.home, self.user, self.repo / ".git", self.root / "tmp", self.bin):
            folder.mkdir(parents=True, exist_ok=True)
        (self.bin / "ferrex").symlink_to(ferrex)
        (self.repo / ".git" / "config").write_text(
            f'[core]\n\tbare = false\n[remote "origin"]\n\turl = {remote}\n')
        (self.home / "ferrex.toml").write_text(
            f'[node]\nname = "{name}"\n[network]\nmode = "local"\nbind = "127.0.0.1:0"\n'
            f'[embed]\nmodel_dir = "{models}"\n')

    def environment(self, path=()):
        """The environment of a program the person starts here: ferrex's
        home named by FERREX_HOME, so that a plugin's hooks and server
        (which pass no --home) use this device's."""
        return {
            "HOME": str(self.user), "USER": "tester", "LANG": "C.UTF-8", "TERM": "dumb",
            "SHELL": "/bin/bash", "TMPDIR": str(self.root / "tmp"),
            "XDG_CONFIG_HOME": str(self.user / ".config"),
            "XDG_CACHE_HOME": str(self.user / ".cache"),
            "XDG_DATA_HOME": str(self.user / ".local" / "share"),
            "XDG_STATE_HOME": str(self.user / ".local" / "state"),
            "FERREX_HOME": str(self.home),
            "PATH": ":".join([*map(str, path), str(self.bin), "/usr/local/bin", "/usr/bin", "/bin"]),
        }

    def ferrex(self, *args, check=True, timeout=180):
        """Runs the installed `ferrex ARGS` in the checkout."""
        result = self.logged([str(self.bin / "ferrex"), *args], self.environment(), timeout)
        if check and result.returncode != 0:
            fail(f"ferrex {' '.join(args)} on the {self.name}: {result.stderr}")
        return result

    def logged(self, command, environment, timeout):
        """Runs `command`, noting when in the work folder's steps.log (to
        tell, say, which step asked for a host)."""
        started = time.time()
        result = subprocess.run(command, cwd=self.repo, env=environment, capture_output=True,
                                text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        with open(self.root.parent / "steps.log", "a", encoding="utf-8") as steps:
            steps.write(f"{started:.3f} {time.time():.3f} {self.name} {' '.join(map(str, command))[:200]}\n")
        return result

    def run(self, command, path=(), env=None, check=True, timeout=180):
        """Runs an agent's command here (not ferrex's), as the person."""
        environment = dict(self.environment(path), **(env or {}))
        result = self.logged(command, environment, timeout)
        if check and result.returncode != 0:
            fail(f"{' '.join(map(str, command))} on the {self.name} exited {result.returncode}: "
                 f"{result.stdout[-1500:]} {result.stderr[-1500:]}")
        return result

    def hook_times(self):
        """(event, ms) of every hook run here, from ferrex's hook log."""
        times = []
        log = self.home / "logs" / "hook.log"
        for line in log.read_text().splitlines() if log.exists() else []:
            if "hook done" in line:
                fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
                times.append((fields.get("event", "?").strip('"'), int(fields.get("ms", "0"))))
        return times

    def hook_line(self):
        """The hooks run here, as the figures print them."""
        return ", ".join(f"{event} {ms} ms" for event, ms in self.hook_times())


class Standin:
    """The stand-in of the model API, on loopback, logging into work/standin."""

    def __init__(self, work, api, script):
        self.logs = work / "standin"
        script_file = work / f"script-{api}.json"
        script_file.write_text(json.dumps(script))
        port_file = work / "standin.port"
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "standin.py"), "--api", api, "--script", str(script_file),
             "--log-dir", str(self.logs), "--port-file", str(port_file), "--dns-port", "53"],
            stderr=open(work / "standin.err", "w"))
        wait_for("the stand-in did not start", lambda: port_file.exists() or self.process.poll() is not None,
                 seconds=10, every=0.05)
        if self.process.poll() is not None:
            fail(f"the stand-in exited: {(work / 'standin.err').read_text()}")
        self.port = int(port_file.read_text())
        self.url = f"http://127.0.0.1:{self.port}"

    def proxies(self):
        """Proxy variables that send anything a client asks of another host
        to the stand-in, which refuses and logs it."""
        return {"HTTPS_PROXY": self.url, "HTTP_PROXY": self.url, "https_proxy": self.url,
                "http_proxy": self.url, "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost"}

    def records(self, path_prefix=""):
        """Every logged request (when, its path and body) whose path starts
        with `path_prefix`."""
        records = map(json.loads, (self.logs / "requests.jsonl").read_text().splitlines())
        return [record for record in records if record["path"].startswith(path_prefix)]

    def requests(self, path_prefix):
        """The bodies of the requests whose path starts with `path_prefix`."""
        return [record["body"] for record in self.records(path_prefix)]

    def asked_elsewhere(self):
        """What a client asked of anything but the stand-in (proxy and DNS)."""
        return {name: (self.logs / name).read_text().strip() for name in ("proxy.jsonl", "dns.jsonl")
                if (self.logs / name).read_text().strip()}

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def check_told(request, contexts, task, note, other):
    """What every agent's asking session shows: its first `request`, whose
    hook `contexts` are given, carries the task from the session-start hook
    and the note that answers the prompt, and not the `other` note."""
    if not any(task in text for text in contexts):
        fail(f"the first request lacks the session-start context with the task: {contexts[-3:]}")
    if not any(note in text for text in contexts):
        fail(f"the first request lacks the told note: {contexts[-3:]}")
    if other in json.dumps(request):
        fail("the prompt was told a note it does not ask about")


def timed(function, *args, **kwargs):
    """`function(*args)`'s answer and how long it took, in seconds."""
    started = time.monotonic()
    answer = function(*args, **kwargs)
    return answer, time.monotonic() - started

