"""Calls every ferrex tool over Streamable HTTP through the official Python
MCP SDK (the version scripts/http-clients pins), with the bearer token, and
checks each answer. Usage: python_sdk.py URL TOKEN"""

import asyncio
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

TOOLS = {
    "store", "recall", "forget", "reflect", "history", "stats",
    "session", "task", "observe", "context", "link", "graph", "entity", "update",
    "index_files",
}


async def main(url: str, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            listed = await client.list_tools()
            names = {tool.name for tool in listed.tools}
            assert names == TOOLS, f"tools listed: {sorted(names)}"
            # What each does to the memory, as annotations (on the wire).
            wire = {
                tool.name: tool.model_dump(by_alias=True, mode="json", exclude_none=True)
                for tool in listed.tools
            }
            # A hint equal to MCP's default is left out (not read-only).
            for name in ["reflect", "history", "stats", "context", "graph", "entity"]:
                assert wire[name]["annotations"]["readOnlyHint"] is True, wire[name]
            assert wire["recall"]["annotations"]["idempotentHint"] is True, wire["recall"]
            assert wire["forget"]["annotations"]["destructiveHint"] is True, wire["forget"]
            for name in ["store", "session", "task", "observe", "link", "update"]:
                annotations = wire[name]["annotations"]
                assert annotations.get("readOnlyHint", False) is False, wire[name]
                assert annotations["destructiveHint"] is False, wire[name]
            assert all(tool.get("title") for tool in wire.values()), wire
            # Every tool declares its answer's schema; the SDK checks each
            # answer below against it (and raises if one does not conform).
            for name, tool in wire.items():
                assert tool["outputSchema"]["type"] == "object", (name, tool)
                assert tool["inputSchema"]["additionalProperties"] is False, (name, tool)

            async def call(tool: str, arguments: dict) -> dict:
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, f"{tool} failed: {result}"
                assert isinstance(result.structured_content, dict), f"{tool}: {result}"
                return result.structured_content

            stored = await call(
                "store",
                {"content": "the python sdk wrote this note about port 7311", "namespace": "py"},
            )
            assert stored["status"] == "stored", stored
            memory = stored["id"]
            again = await call(
                "store",
                {"content": "the python sdk wrote this note about port 7311", "namespace": "py"},
            )
            assert again["status"] == "duplicate" and again["existing_id"] == memory, again
            fact = await call(
                "store",
                {"subject": "ci runner", "predicate": "os", "object": "debian", "namespace": "py"},
            )
            recalled = await call("recall", {"query": "which port did the sdk note", "namespace": "py"})
            assert memory in [hit["id"] for hit in recalled["results"]], recalled
            validated = await call(
                "recall", {"query": "sdk note", "namespace": "py", "validate_ids": [memory]}
            )
            assert validated["validated"] == [memory], validated
            by_id = await call("history", {"id": fact["id"], "namespace": "py"})
            assert by_id["history"][0]["object"] == "debian", by_id
            history = await call("history", {"subject": "ci runner", "predicate": "os", "namespace": "py"})
            assert history, history
            # The graph: a relation, a walk, an entity's story, an edit.
            linked = await call(
                "link", {"from": "ci runner", "to": "debian", "relation": "uses", "namespace": "py"}
            )
            assert linked["edge"]["relation"] == "depends_on", linked
            walked = await call("graph", {"from": "ci runner", "namespace": "py"})
            assert [node["label"] for node in walked["nodes"]] == ["ci runner", "debian"], walked
            story = await call("entity", {"name": "ci runner", "namespace": "py"})
            assert story["facts"][0]["object"] == "debian", story
            updated = await call("update", {"id": memory, "tags": ["sdk"]})
            assert updated["id"] == memory and updated["changed"] == ["tags"], updated
            await call("reflect", {"namespace": "py"})
            stats = await call("stats", {"detailed": True})
            assert stats["memories"] >= 2 and "staleness" in stats["detailed"], stats
            # Each memory is a resource; the primer is a prompt.
            templates = await client.list_resource_templates()
            uris = [template.uri_template for template in templates.resource_templates]
            assert uris == ["ferrex://memory/{id}"], uris
            read = await client.read_resource(f"ferrex://memory/{memory}")
            assert "port 7311" in read.contents[0].text, read
            try:
                await client.read_resource("ferrex://memory/no-such-memory")
                raise AssertionError("an unknown memory was read")
            except AssertionError:
                raise
            except Exception as error:  # the SDK raises the server's error
                assert "no memory" in str(error), error
            prompts = await client.list_prompts()
            names = [prompt.name for prompt in prompts.prompts]
            assert names == ["use-memory", "session-context"], prompts
            primer = await client.get_prompt("use-memory")
            assert "recall" in primer.messages[0].content.text, primer

            # A malformed call is a tool error naming the field, as text
            # (no structured content to check against the answer's schema).
            bad = await client.call_tool("recall", {"query": "x", "types": ["fact"]})
            assert bad.is_error and bad.structured_content is None, bad
            assert "types[0] must be episodic" in bad.content[0].text, bad

            forgotten = await call("forget", {"ids": [memory, fact["id"]]})
            assert memory in str(forgotten), forgotten
            again = await call("recall", {"query": "which port did the sdk note", "namespace": "py"})
            assert memory not in [hit["id"] for hit in again["results"]], again
    # The agent's project, named by a header: the default namespace of its
    # calls, and what the session-start context is about.
    headers["X-Ferrex-Project"] = "https://github.com/acme/py-sdk.git"
    async with httpx2.AsyncClient(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            started = await client.call_tool(
                "task", {"action": "start", "title": "Ship the python client"}
            )
            assert not started.is_error, started
            assert started.structured_content["namespace"] == "github.com.acme.py-sdk", started
            context = await client.call_tool("context", {})
            text = context.structured_content["text"]
            assert "Ship the python client" in text and "github.com/acme/py-sdk" in text, text
            prompt = await client.get_prompt("session-context")
            assert "Ship the python client" in prompt.messages[0].content.text, prompt
    print(
        f"python sdk: {len(TOOLS)} tools, a resource, two prompts and a project over HTTP",
        file=sys.stderr,
    )


asyncio.run(main(sys.argv[1], sys.argv[2]))
