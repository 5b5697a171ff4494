"""Starts ferrex as an MCP client's configuration says and checks that it
stores and recalls, through the official Python MCP SDK (the version
scripts/lib/mcp-python.sh pins). Used by scripts/wheel-route.

Usage:
  route.py settings CLAUDE_JSON COMMAND --path PATH [--since EPOCH]
      the server `ferrex setup claude-code` wrote, whose command must be
      COMMAND; --since prints the seconds from EPOCH to its first answer
  route.py readme CONFIG_JSON "" --path PATH
      a server entry as the README shows it
  route.py removed CLAUDE_JSON ""
      `setup --remove` took the server and the hooks out again
"""

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters


def fail(message: str) -> None:
    print(f"route.py: {message}", file=sys.stderr)
    sys.exit(1)


async def store_and_recall(server: dict, path: str, since: float | None) -> None:
    env = dict(os.environ)
    env.update(server.get("env") or {})
    env["PATH"] = path
    parameters = StdioServerParameters(
        command=server["command"], args=server.get("args") or [], env=env
    )
    async with Client(parameters) as client:
        note = f"the wheel route stored this note at {time.time_ns()} about port 7411"
        stored = await client.call_tool("store", {"content": note})
        if since is not None:
            print(f"route.py: from pip install to the first MCP answer: "
                  f"{time.time() - since:.1f} s", file=sys.stderr)
        if stored.is_error or stored.structured_content.get("status") != "stored":
            fail(f"store: {stored}")
        memory = stored.structured_content["id"]
        recalled = await client.call_tool("recall", {"query": "which port did the wheel route note"})
        if recalled.is_error:
            fail(f"recall: {recalled}")
        ids = [result["id"] for result in recalled.structured_content["results"]]
        if memory not in ids:
            fail(f"recall did not find {memory}: {recalled.structured_content}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["settings", "readme", "removed"])
    parser.add_argument("source")
    parser.add_argument("command")
    parser.add_argument("--path", default="")
    parser.add_argument("--since", type=float)
    options = parser.parse_args()
    if options.what == "readme":
        asyncio.run(store_and_recall(json.loads(options.source), options.path, None))
        return
    state = json.loads(Path(options.source).read_text())
    settings = json.loads((Path(options.source).parent / ".claude" / "settings.json").read_text())
    hooks = json.dumps(settings.get("hooks", {}))
    if options.what == "removed":
        if "ferrex" in state.get("mcpServers", {}) or " hook " in hooks:
            fail(f"setup --remove left ferrex behind: {state} {hooks}")
        return
    server = state["mcpServers"]["ferrex"]
    if server["command"] != options.command:
        fail(f"the MCP server's command is {server['command']}, not {options.command}")
    if "hook SessionStart" not in hooks:
        fail(f"no SessionStart hook: {hooks}")
    asyncio.run(store_and_recall(server, options.path, options.since))


if __name__ == "__main__":
    main()
