"""A scripted stand-in for the Anthropic Messages API, and a proxy that
refuses everything, for driving the real Claude Code CLI in tests
(scripts/claude-code). Python's standard library only.

On one loopback port it serves:

* POST /v1/messages: the next scripted assistant turn, streamed as the real
  API streams it (message_start, ping, content_block_start, text_delta or
  input_json_delta deltas, content_block_stop, message_delta with the stop
  reason, message_stop), or as one JSON message when not asked to stream;
* POST /v1/messages/count_tokens, GET or HEAD / and /api/hello: small
  answers;
* anything else: 404, logged;
* as an HTTP(S) proxy: every CONNECT, and every request for another host,
  is refused (403) and logged, so a test can assert nothing else was asked
  for; and, with --dns-port, every DNS question is logged and answered
  NXDOMAIN.

The script (--script FILE, JSON) is a list of rules, each
`{"prompt_contains": TEXT, "turns": [TURN, ...]}`: a conversation whose
first user message contains TEXT is answered turn by turn, the turn picked
by how many assistant messages the request already holds (so a retried
request gets the same turn). A TURN is `{"text": ...}` or
`{"tool_use": {"name": ..., "input": {...}}}`. A conversation no rule
matches, or one past its last turn, is answered with a short text.

Logs, in --log-dir: requests.jsonl (every request: its path and body),
proxy.jsonl (every refused proxy request), dns.jsonl (every DNS question).
Usage: standin.py --script FILE --log-dir DIR --port-file FILE [--dns-port 53]
"""

import argparse
import json
import os
import socket
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

LOCK = threading.Lock()


def log(directory, name, record):
    with LOCK, open(os.path.join(directory, name), "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


def first_user_text(body):
    """The text of a request's first user message."""
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        return "\n".join(block.get("text", "") for block in content or []
                         if isinstance(block, dict) and block.get("type") == "text")
    return ""


def blocks_of(turn):
    """A turn's content blocks and its stop reason."""
    if "tool_use" in turn:
        use = turn["tool_use"]
        block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:24],
                 "name": use["name"], "input": use.get("input", {})}
        return [block], "tool_use"
    return [{"type": "text", "text": turn.get("text", "")}], "end_turn"


class Handler(BaseHTTPRequestHandler):
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

    def refuse(self, host):
        log(self.options.log_dir, "proxy.jsonl",
            {"host": host, "method": self.command, "target": self.path})
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
        log(self.options.log_dir, "requests.jsonl", {"method": self.command, "path": path, "body": body})
        if self.command == "POST" and bare == "/v1/messages":
            return self.messages(body)
        if self.command == "POST" and bare == "/v1/messages/count_tokens":
            return self.send_json(200, {"input_tokens": max(1, len(raw) // 4)})
        if bare in ("/", "/api/hello"):
            return self.send_json(200, {"message": "hello"})
        self.send_json(404, {"type": "error",
                             "error": {"type": "not_found_error", "message": f"no {bare} here"}})

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = handle_request

    def turn_for(self, body):
        first = first_user_text(body)
        answered = sum(1 for message in body.get("messages", []) if message.get("role") == "assistant")
        for rule in self.server.script:
            if rule["prompt_contains"] in first:
                turns = rule["turns"]
                return turns[answered] if answered < len(turns) else {"text": "Done."}
        return {"text": "Done."}

    def messages(self, body):
        blocks, stop = blocks_of(self.turn_for(body))
        model = body.get("model") or "claude-standin"
        usage = {"input_tokens": 10, "output_tokens": 1,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        message_id = "msg_standin_" + uuid.uuid4().hex[:12]
        if not body.get("stream"):
            return self.send_json(200, {"id": message_id, "type": "message", "role": "assistant",
                                        "model": model, "content": blocks, "stop_reason": stop,
                                        "stop_sequence": None, "usage": usage})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def event(name, data):
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        event("message_start", {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}})
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
                start = dict(block, input={})
                event("content_block_start", {"type": "content_block_start", "index": index,
                                              "content_block": start})
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
        log(directory, "dns.jsonl", {"name": ".".join(labels)})
        flags = (0x8183).to_bytes(2, "big")  # a response, recursion available, NXDOMAIN
        server.sendto(packet[:2] + flags + packet[4:6] + bytes(6) + packet[12:at + 5], sender)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", required=True)
    parser.add_argument("--log-dir", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--dns-port", type=int)
    options = parser.parse_args()
    os.makedirs(options.log_dir, exist_ok=True)
    for name in ("requests.jsonl", "proxy.jsonl", "dns.jsonl"):
        open(os.path.join(options.log_dir, name), "a").close()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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
