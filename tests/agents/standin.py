"""A scripted stand-in for an agent's model API, and a proxy that refuses
everything, for driving the real Claude Code, Gemini CLI and Codex CLI in
tests (scripts/claude-code, scripts/gemini-cli, scripts/codex-cli; each in
a network namespace of its own). Python's standard library only.

On one loopback port it serves, by --api:

* anthropic (Claude Code): POST /v1/messages, the next scripted assistant
  turn streamed as the Messages API streams it (message_start, ping,
  content_block_start, text_delta or input_json_delta deltas,
  content_block_stop, message_delta with the stop reason, message_stop),
  or as one JSON message when not asked to stream; POST
  /v1/messages/count_tokens; GET or HEAD / and /api/hello.
* gemini (Gemini CLI): POST /v1beta/models/M:streamGenerateContent?alt=sse,
  the turn as `data: <GenerateContentResponse>` events, the last with
  finishReason STOP and usageMetadata; :generateContent, the same as one
  JSON answer (a request for JSON output gets a value made from its schema,
  so the CLI's routing and next-speaker checks end the turn); :countTokens;
  GET /v1beta/models[/M].
* openai (Codex CLI): POST /v1/responses, the turn streamed as the
  Responses API streams it (response.created, response.output_item.added,
  output_text or function_call_arguments deltas, response.output_item.done,
  response.completed with usage), or as one JSON response; GET /v1/models.

Anything else is answered 404 and logged. As an HTTP(S) proxy, every
CONNECT and every request for another host is refused (403) and logged, so
a test can assert nothing else was asked for; with --dns-port, every DNS
question is logged and answered NXDOMAIN.

The script (--script FILE, JSON) is a list of rules, each
`{"prompt_contains": TEXT, "turns": [TURN, ...]}`: a conversation whose
user text contains TEXT is answered turn by turn, the turn picked by how
many model turns the request already holds (so a retried request gets the
same turn). A TURN is `{"text": ...}` or `{"tool_use": {"name": ...,
"input": {...}}}`; for openai, `"name"` may be `mcp__SERVER__TOOL`, sent
under whatever name the request offers that MCP tool (a namespace
`mcp__SERVER` holding TOOL, or a flat function), and a TURN may be
`{"tool_search": {"query": ..., "limit": N}}`, Codex's search for deferred
tools. A conversation no rule
matches, or one past its last turn, is answered "Done.".

Logs, in --log-dir: requests.jsonl (every request: when, its path and body),
proxy.jsonl (every refused proxy request), dns.jsonl (every DNS question).
Usage: standin.py --api anthropic|gemini|openai --script FILE --log-dir DIR
    --port-file FILE [--dns-port 53]
"""

import argparse
import json
import os
import socket
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

LOCK = threading.Lock()
DONE = {"text": "Done."}


def log(directory, name, record):
    with LOCK, open(os.path.join(directory, name), "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


def texts(content):
    """The texts of a content that is a string or a list of parts."""
    if isinstance(content, str):
        return [content]
    return [part.get("text", "") for part in content or [] if isinstance(part, dict)]


def new_id(prefix):
    return prefix + uuid.uuid4().hex[:24]


class Handler(BaseHTTPRequestHandler):
    """What every API shares: logging, the proxy's refusals, the script."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    @property
    def options(self):
        return self.server.options

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send_json(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def start_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def send_event(self, name, data):
        head = f"event: {name}\n" if name else ""
        self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def refuse(self, host):
        log(self.options.log_dir, "proxy.jsonl",
            {"at": time.time(), "host": host, "method": self.command, "target": self.path})
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def do_CONNECT(self):
        self.refuse(self.path)

    def handle_request(self):
        path = self.path
        if path.startswith(("http://", "https://")):
            target = urlsplit(path)
            if target.hostname not in ("127.0.0.1", "localhost") or target.port != self.server.port:
                self.read_body()
                return self.refuse(target.netloc)
            path = (target.path or "/") + (f"?{target.query}" if target.query else "")
        raw = self.read_body()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"unreadable": raw.decode("utf-8", "replace")}
        bare = path.split("?")[0]
        log(self.options.log_dir, "requests.jsonl",
            {"at": time.time(), "method": self.command, "path": path, "body": body})
        if self.headers.get("Upgrade"):
            return self.send_json(426, {"error": {"message": "no websockets here"}})
        if not self.serve(bare, body, raw):
            self.send_json(404, {"error": {"code": 404, "message": f"no {bare} here"}})

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = handle_request

    def turn_for(self, body):
        """The scripted turn for a request: its rule's next turn."""
        text, taken = self.user_text(body), self.turns_taken(body)
        for rule in self.server.script:
            if rule["prompt_contains"] in text:
                turns = rule["turns"]
                return turns[taken] if taken < len(turns) else DONE
        return DONE


class Anthropic(Handler):
    """The Messages API, as Claude Code calls it."""

    @staticmethod
    def user_text(body):
        # The conversation's first user message opens it.
        for message in body.get("messages") or []:
            if message.get("role") == "user":
                return "\n".join(texts(message.get("content")))
        return ""

    @staticmethod
    def turns_taken(body):
        return sum(1 for message in body.get("messages") or [] if message.get("role") == "assistant")

    def serve(self, bare, body, raw):
        if self.command == "POST" and bare == "/v1/messages":
            self.messages(body)
        elif self.command == "POST" and bare == "/v1/messages/count_tokens":
            self.send_json(200, {"input_tokens": max(1, len(raw) // 4)})
        elif bare in ("/", "/api/hello"):
            self.send_json(200, {"message": "hello"})
        else:
            return False
        return True

    def messages(self, body):
        turn = self.turn_for(body)
        if "tool_use" in turn:
            use = turn["tool_use"]
            blocks = [{"type": "tool_use", "id": new_id("toolu_"), "name": use["name"],
                       "input": use.get("input", {})}]
            stop = "tool_use"
        else:
            blocks, stop = [{"type": "text", "text": turn.get("text", "")}], "end_turn"
        model = body.get("model") or "claude-standin"
        usage = {"input_tokens": 10, "output_tokens": 1,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        message = {"id": new_id("msg_standin_"), "type": "message", "role": "assistant",
                   "model": model, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            return self.send_json(200, dict(message, content=blocks, stop_reason=stop))
        self.start_stream()
        event = self.send_event
        event("message_start", {"type": "message_start",
                                "message": dict(message, content=[], stop_reason=None)})
        event("ping", {"type": "ping"})
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                event("content_block_start", {"type": "content_block_start", "index": index,
                                              "content_block": {"type": "text", "text": ""}})
                text = block["text"]
                for at in range(0, max(len(text), 1), 16):
                    event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                  "delta": {"type": "text_delta", "text": text[at:at + 16]}})
            else:
                event("content_block_start", {"type": "content_block_start", "index": index,
                                              "content_block": dict(block, input={})})
                arguments = json.dumps(block["input"])
                event("content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "input_json_delta", "partial_json": ""}})
                for at in range(0, len(arguments), 16):
                    event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                  "delta": {"type": "input_json_delta",
                                                            "partial_json": arguments[at:at + 16]}})
            event("content_block_stop", {"type": "content_block_stop", "index": index})
        event("message_delta", {"type": "message_delta",
                                "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 5}})
        event("message_stop", {"type": "message_stop"})


def from_schema(schema):
    """A small JSON value that satisfies `schema` (JSON Schema or the Gemini
    API's OpenAPI subset); an enum offering "user" answers "user"."""
    if not isinstance(schema, dict):
        return None
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    if kind == "object":
        return {name: from_schema(value) for name, value in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "stand-in"


class Gemini(Handler):
    """The Gemini API (generativelanguage v1beta), as Gemini CLI calls it."""

    @staticmethod
    def user_text(body):
        for content in body.get("contents") or []:
            if content.get("role", "user") == "user":
                return "\n".join(texts(content.get("parts")))
        return ""

    @staticmethod
    def turns_taken(body):
        return sum(1 for content in body.get("contents") or [] if content.get("role") == "model")

    def serve(self, bare, body, raw):
        prefix = "/v1beta/models/"
        if self.command == "POST" and bare.startswith(prefix) and ":" in bare:
            model, _, verb = bare[len(prefix):].partition(":")
            if verb == "streamGenerateContent":
                self.stream(model, body)
            elif verb == "generateContent":
                self.send_json(200, self.answer(model, body, whole=True))
            elif verb == "countTokens":
                self.send_json(200, {"totalTokens": max(1, len(raw) // 4)})
            else:
                return False
        elif self.command == "GET" and bare == "/v1beta/models":
            self.send_json(200, {"models": [self.model_info("gemini-standin")]})
        elif self.command == "GET" and bare.startswith(prefix):
            self.send_json(200, self.model_info(bare.rsplit("/", 1)[1]))
        else:
            return False
        return True

    @staticmethod
    def model_info(name):
        return {"name": f"models/{name}", "displayName": name, "inputTokenLimit": 1048576,
                "outputTokenLimit": 65536, "supportedGenerationMethods": ["generateContent", "countTokens"]}

    def answer(self, model, body, whole):
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        if whole and config.get("responseMimeType") == "application/json":
            parts = [{"text": json.dumps(from_schema(schema) if schema else {})}]
        else:
            turn = self.turn_for(body)
            if "tool_use" in turn:
                use = turn["tool_use"]
                parts = [{"functionCall": {"name": use["name"], "args": use.get("input", {})}}]
            else:
                parts = [{"text": turn.get("text", "")}]
        return {"candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                "modelVersion": model, "responseId": "standin"}

    def stream(self, model, body):
        answer = self.answer(model, body, whole=False)
        self.start_stream()
        parts = answer["candidates"][0]["content"]["parts"]
        if len(parts) == 1 and "text" in parts[0]:
            text = parts[0]["text"]
            chunks = [[{"text": text[at:at + 16]}] for at in range(0, max(len(text), 1), 16)]
        else:
            chunks = [parts]
        for index, chunk in enumerate(chunks):
            event = {"candidates": [{"content": {"role": "model", "parts": chunk}, "index": 0}],
                     "modelVersion": model, "responseId": "standin"}
            if index == len(chunks) - 1:
                event["candidates"][0]["finishReason"] = "STOP"
                event["usageMetadata"] = answer["usageMetadata"]
            self.send_event(None, event)


class OpenAI(Handler):
    """The Responses API, as Codex CLI calls it."""

    @staticmethod
    def user_text(body):
        given = body.get("input")
        if isinstance(given, str):
            return given
        return "\n".join(text for item in given or []
                         if item.get("type", "message") == "message" and item.get("role") == "user"
                         for text in texts(item.get("content")))

    @staticmethod
    def turns_taken(body):
        return sum(1 for item in body.get("input") or []
                   if item.get("type") in ("function_call", "custom_tool_call", "tool_search_call")
                   or (item.get("type", "message") == "message" and item.get("role") == "assistant"))

    def serve(self, bare, body, raw):
        if self.command == "POST" and bare == "/v1/responses":
            self.respond(body)
        elif self.command == "GET" and bare == "/v1/models":
            self.send_json(200, {"object": "list", "data": [], "models": []})
        else:
            return False
        return True

    @staticmethod
    def offered(body, name):
        """The function call that names tool `name` (`mcp__SERVER__TOOL`) as
        the request offers it: in a namespace `mcp__SERVER` (listed, or
        found by an earlier tool search), or flat."""
        server, _, tool = name.removeprefix("mcp__").partition("__")
        found = list(body.get("tools") or [])
        for item in body.get("input") or []:
            if item.get("type") == "tool_search_output":
                found += item.get("tools") or []
        for offer in found:
            if offer.get("type") == "namespace" and offer.get("name") in (f"mcp__{server}", f"mcp__{server}__"):
                if any(inner.get("name") == tool for inner in offer.get("tools") or []):
                    return {"namespace": offer["name"], "name": tool}
        return {"name": name}

    def respond(self, body):
        turn = self.turn_for(body)
        if "tool_search" in turn:
            item = {"type": "tool_search_call", "id": new_id("ts_"), "call_id": new_id("call_"),
                    "execution": "client", "status": "completed", "arguments": turn["tool_search"]}
            text = None
        elif "tool_use" in turn:
            use = turn["tool_use"]
            item = dict(self.offered(body, use["name"]), type="function_call", id=new_id("fc_"),
                        call_id=new_id("call_"), arguments=json.dumps(use.get("input", {})),
                        status="completed")
            text = None
        else:
            text = turn.get("text", "")
            item = {"type": "message", "id": new_id("msg_"), "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
        usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 110}
        base = {"id": new_id("resp_"), "object": "response", "created_at": 0,
                "model": body.get("model") or "standin"}
        if not body.get("stream"):
            return self.send_json(200, dict(base, status="completed", output=[item], usage=usage))
        self.start_stream()
        sequence = [0]

        def event(name, data):
            self.send_event(name, dict(data, type=name, sequence_number=sequence[0]))
            sequence[0] += 1

        at = {"output_index": 0, "item_id": item["id"]}
        event("response.created", {"response": dict(base, status="in_progress", output=[])})
        if item["type"] == "tool_search_call":
            event("response.output_item.added", {"output_index": 0, "item": dict(item, status="in_progress")})
        elif text is None:
            event("response.output_item.added",
                  {"output_index": 0, "item": dict(item, arguments="", status="in_progress")})
            event("response.function_call_arguments.delta", dict(at, delta=item["arguments"]))
            event("response.function_call_arguments.done", dict(at, arguments=item["arguments"]))
        else:
            part = {"type": "output_text", "text": "", "annotations": []}
            event("response.output_item.added",
                  {"output_index": 0, "item": dict(item, content=[], status="in_progress")})
            event("response.content_part.added", dict(at, content_index=0, part=part))
            for start in range(0, max(len(text), 1), 16):
                event("response.output_text.delta", dict(at, content_index=0, delta=text[start:start + 16]))
            event("response.output_text.done", dict(at, content_index=0, text=text))
            event("response.content_part.done", dict(at, content_index=0, part=dict(part, text=text)))
        event("response.output_item.done", {"output_index": 0, "item": item})
        event("response.completed", {"response": dict(base, status="completed", output=[item], usage=usage)})


APIS = {"anthropic": Anthropic, "gemini": Gemini, "openai": OpenAI}


def answer_dns(directory, port):
    """Logs every DNS question and answers NXDOMAIN."""
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", port))
    while True:
        packet, sender = server.recvfrom(4096)
        at, labels = 12, []
        while at < len(packet) and packet[at]:
            labels.append(packet[at + 1:at + 1 + packet[at]].decode("ascii", "replace"))
            at += 1 + packet[at]
        log(directory, "dns.jsonl", {"at": time.time(), "name": ".".join(labels)})
        flags = (0x8183).to_bytes(2, "big")  # a response, recursion available, NXDOMAIN
        server.sendto(packet[:2] + flags + packet[4:6] + bytes(6) + packet[12:at + 5], sender)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", required=True, choices=sorted(APIS))
    parser.add_argument("--script", required=True)
    parser.add_argument("--log-dir", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--dns-port", type=int)
    options = parser.parse_args()
    os.makedirs(options.log_dir, exist_ok=True)
    for name in ("requests.jsonl", "proxy.jsonl", "dns.jsonl"):
        open(os.path.join(options.log_dir, name), "a").close()
    server = ThreadingHTTPServer(("127.0.0.1", 0), APIS[options.api])
    server.daemon_threads = True
    server.port = server.server_address[1]
    server.options = options
    with open(options.script, encoding="utf-8") as handle:
        server.script = json.load(handle)
    if options.dns_port:
        threading.Thread(target=answer_dns, args=(options.log_dir, options.dns_port), daemon=True).start()
    with open(options.port_file + ".tmp", "w") as handle:
        handle.write(str(server.port))
    os.replace(options.port_file + ".tmp", options.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
