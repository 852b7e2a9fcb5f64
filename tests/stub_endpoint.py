"""A local stand-in for an OpenAI-compatible chat server, for tests only: it answers each request with what the
test's ``reply`` function returns and records the request bodies. It is a test fixture; nothing it says is ever
shown as a language model's output."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from typing import Callable, Iterator


@contextlib.contextmanager
def stub_server(reply: Callable[[dict], str | tuple[int, str]]) -> Iterator[tuple[str, list[dict]]]:
    """Serve ``/v1/chat/completions`` on 127.0.0.1 (a free port). ``reply(body)`` gives the answer text, or
    (status, raw body) to answer with an HTTP status and a raw body instead. Yields (base_url, seen bodies)."""
    seen: list[dict] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            body["_path"], body["_auth"] = self.path, self.headers.get("Authorization")
            seen.append(body)
            out = reply(body)
            if isinstance(out, tuple):
                status, raw = out
            else:
                status, raw = 200, json.dumps({"choices": [{"message": {"role": "assistant", "content": out}}]})
            data = raw.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", seen
    finally:
        server.shutdown()
        server.server_close()
