"""One local origin for the web client: the Hosting emulator's files, the API and Auth.

Deployed, Hosting serves the client and rewrites ``/api/**`` to the API function.
The Hosting emulator can only forward such a rewrite to the Firebase Functions
emulator or to a deployed function, neither of which runs here, so this proxy
stands in front of it on one port:

- ``/api/**`` → the local functions host (streamed, so ``/chat``'s SSE arrives as sent);
- ``/identitytoolkit.googleapis.com/**``, ``/securetoken.googleapis.com/**``,
  ``/emulator/**`` → the Auth emulator (the client calls ``connectAuthEmulator`` with
  this origin, so the Content-Security-Policy's ``connect-src 'self'`` covers it);
- ``/upload/storage/v1/**`` → the Cloud Storage server (gcp-storage-emulator), and
  the upload URL in ``POST /api/uploads``'s answer is rewritten from that server's
  origin to this one: the server answers no CORS preflight, so the browser uploads
  same-origin here. Deployed, the URL is Cloud Storage's own, which answers CORS for
  the origin the session was created with (the API passes the page's Origin);
- ``/__/firebase/init.json`` → the demo project's web config (Hosting serves the real
  project's at that path), plus ``authEmulator``;
- everything else → the Hosting emulator, with the headers firebase.json sets.
"""

from __future__ import annotations

import argparse
import http.client
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailers",
    "transfer-encoding",
    "upgrade",
    "host",
}
STORAGE_PREFIX = "/upload/storage/v1/"
AUTH_PREFIXES = ("/identitytoolkit.googleapis.com/", "/securetoken.googleapis.com/", "/emulator/")


def make_handler(
    api: str, hosting: str, auth: str, project: str, storage: str | None = None
) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # one request per connection: streams end at close

        def log_message(self, format: str, *args: object) -> None:
            pass  # the API and the emulators log requests themselves

        def _route(self) -> str | None:
            path = urlsplit(self.path).path
            if path == "/api" or path.startswith("/api/"):
                return api
            if path.startswith(AUTH_PREFIXES):
                return auth
            if storage and path.startswith(STORAGE_PREFIX):
                return storage
            if path == "/__/firebase/init.json":
                return None
            return hosting

        def _handle(self) -> None:
            upstream = self._route()
            if upstream is None:
                self._init_json()
                return
            if storage and upstream == api and urlsplit(self.path).path == "/api/uploads":
                self._upload_session()
                return
            sent = self._send(upstream)
            if sent is None:
                return
            conn, response = sent
            try:
                self.send_response_only(response.status, response.reason)  # upstream's Date
                for key, value in response.getheaders():
                    if key.lower() not in HOP_BY_HOP:
                        self.send_header(key, value)
                self.end_headers()
                while True:
                    piece = response.read1(65536)
                    if not piece:
                        break
                    self.wfile.write(piece)
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the browser went away
            finally:
                conn.close()

        def _send(
            self, upstream: str
        ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse] | None:
            """The request, as the browser sent it, to ``upstream``: its connection and
            response, or None once a 502 has been answered (the upstream is down)."""
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            target = urlsplit(upstream)
            conn = http.client.HTTPConnection(
                target.hostname or "127.0.0.1", target.port, timeout=120
            )
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                return conn, conn.getresponse()
            except OSError as exc:
                self._error(502, f"upstream {upstream} unreachable: {exc}")
                conn.close()
                return None

        def _upload_session(self) -> None:
            """POST /api/uploads through the API, its URL pointed at this origin."""
            sent = self._send(api)
            if sent is None:
                return
            conn, response = sent
            try:
                status, reason, answer = response.status, response.reason, response.read()
                kept = [(k, v) for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP]
            except OSError as exc:
                self._error(502, f"upstream {api} unreachable: {exc}")
                return
            finally:
                conn.close()
            if status == 201 and storage:
                session = json.loads(answer)
                here = f"http://{self.headers.get('Host', '127.0.0.1')}"
                if str(session.get("uploadUrl", "")).startswith(storage.rstrip("/") + "/"):
                    session["uploadUrl"] = here + session["uploadUrl"][len(storage.rstrip("/")) :]
                answer = json.dumps(session).encode()
            self.send_response_only(status, reason)
            for key, value in kept:
                if key.lower() != "content-length":
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def _init_json(self) -> None:
            origin = f"http://{self.headers.get('Host', '127.0.0.1')}"
            body = json.dumps(
                {
                    "projectId": project,
                    "apiKey": "demo-key",  # the Auth emulator accepts any key
                    "authDomain": "127.0.0.1",
                    "authEmulator": origin,
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _error(self, status: int, message: str) -> None:
            body = json.dumps(
                {"error": {"code": "bad_gateway", "message": message, "details": None}}
            ).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = do_OPTIONS = do_HEAD = _handle

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description="Footnote's local web origin")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument("--api", required=True, help="functions host, e.g. http://127.0.0.1:8080")
    parser.add_argument("--hosting", required=True, help="Hosting emulator, http://127.0.0.1:5002")
    parser.add_argument("--auth", required=True, help="Auth emulator, http://127.0.0.1:9099")
    parser.add_argument("--storage", help="Cloud Storage server, e.g. http://127.0.0.1:9199")
    parser.add_argument("--project", default="demo-footnote")
    args = parser.parse_args()
    server = ThreadingHTTPServer(
        (args.host, args.port),
        make_handler(args.api, args.hosting, args.auth, args.project, args.storage),
    )
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
