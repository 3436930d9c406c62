"""The HTTP peer of the bench: a server process that serves HTTP, and a keep-alive client.

HttpServer starts a server and learns its URL: the host logs `listening on http://...`
on stderr (started with --listen 127.0.0.1:0); the old core is given a free port. The
process runs in its own process group, so close() also ends what it forked (socat and
its per-connection shells).

Connection is a raw HTTP/1.1 client on one socket, not http.client: it sends a prebuilt
request in one write and times a response to the moment the recv() that completed its
body returned, as the stdio client does for a line, so both transports are timed alike.
It keeps the connection alive and reconnects (inside the timed interval) when a server
closes it after a response, as the old core does after each one.
"""

import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.parse

from . import requests
from .client import ServerGone, cpu_ns, now_ns, proc_status

PROTOCOL_VERSION = requests.META["io.modelcontextprotocol/protocolVersion"]
_LISTENING = re.compile(r"listening on (http://[^\s\"']+)")


class NoHttp(Exception):
    """The binary does not serve HTTP (it exited, or never said where it listens)."""


def post(url, method, body_line, name=None, extra_headers=()):
    """The bytes of one modern POST: the JSON-RPC line (its newline dropped) as the body and
    the headers that mirror it (MCP-Protocol-Version, Mcp-Method, Mcp-Name)."""
    u = urllib.parse.urlsplit(url)
    body = body_line.rstrip(b"\n")
    headers = [
        ("Host", u.netloc),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", PROTOCOL_VERSION),
        ("Mcp-Method", method),
    ]
    if name is not None:
        headers.append(("Mcp-Name", name))
    headers += list(extra_headers)
    headers.append(("Content-Length", str(len(body))))
    head = "POST %s HTTP/1.1\r\n" % (u.path or "/") + "".join("%s: %s\r\n" % h for h in headers) + "\r\n"
    return head.encode() + body


def call(url, req_id, tool, arguments_json="{}"):
    return post(url, "tools/call", requests.call(req_id, tool, arguments_json), name=tool)


def request(url, req_id, method):
    return post(url, method, requests.request(req_id, method))


class Response:
    __slots__ = ("status", "headers", "body")

    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def message(self):
        """The JSON-RPC response: the body, or the last event with an id in an SSE stream."""
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            found = None
            for event in self.body.decode("utf-8", "replace").split("\n\n"):
                data = "\n".join(line[5:].lstrip(" ") for line in event.split("\n") if line.startswith("data:"))
                if data:
                    msg = json.loads(data)
                    if isinstance(msg, dict) and "id" in msg:
                        found = msg
            return found
        return json.loads(self.body) if self.body else None


class Connection:
    """One client connection to url. Not thread-safe."""

    def __init__(self, url, timeout=60.0):
        u = urllib.parse.urlsplit(url)
        self.address = (u.hostname, u.port or 80)
        self.timeout = timeout
        self.sock = None
        self._buf = bytearray()
        self.connects = 0

    def connect(self):
        self.close()
        self.sock = socket.create_connection(self.address, timeout=self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buf = bytearray()
        self.connects += 1

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def round_trip(self, data):
        """Sends one request; returns (ns until the response was complete, Response)."""
        t0 = now_ns()
        if self.sock is None:
            self.connect()
        try:
            self.sock.sendall(data)
        except OSError:
            # The server closed the kept-alive connection between requests: reconnect once.
            self.connect()
            self.sock.sendall(data)
        resp, t = self.read_response()
        return t - t0, resp

    def send(self, data):
        if self.sock is None:
            self.connect()
        self.sock.sendall(data)

    def _recv(self):
        try:
            chunk = self.sock.recv(1 << 20)
        except socket.timeout:
            raise ServerGone("no HTTP response within %.0f s from %s:%d" % ((self.timeout,) + self.address))
        return chunk, now_ns()

    def read_response(self):
        """(Response, arrival ns of its last byte); closes the socket if the server will."""
        t = now_ns()
        while b"\r\n\r\n" not in self._buf:
            chunk, t = self._recv()
            if not chunk:
                raise ServerGone("%s:%d closed the connection before a response" % self.address)
            self._buf += chunk
        end = self._buf.index(b"\r\n\r\n")
        lines = self._buf[:end].decode("latin-1").split("\r\n")
        del self._buf[:end + 4]
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        if "content-length" in headers:
            n = int(headers["content-length"])
            while len(self._buf) < n:
                chunk, t = self._recv()
                if not chunk:
                    raise ServerGone("%s:%d closed the connection mid-body" % self.address)
                self._buf += chunk
            body = bytes(self._buf[:n])
            del self._buf[:n]
        elif "chunked" in headers.get("transfer-encoding", ""):
            body, t = self._read_chunked(t)
        else:
            while True:
                chunk, t2 = self._recv()
                if not chunk:
                    break
                t = t2
                self._buf += chunk
            body = bytes(self._buf)
            self._buf = bytearray()
            self.close()
        if headers.get("connection", "").lower() == "close":
            self.close()
        return Response(status, headers, body), t

    def _read_chunked(self, t):
        body = bytearray()
        while True:
            while b"\r\n" not in self._buf:
                chunk, t = self._recv()
                if not chunk:
                    raise ServerGone("%s:%d closed the connection mid-chunk" % self.address)
                self._buf += chunk
            j = self._buf.index(b"\r\n")
            size = int(bytes(self._buf[:j]).split(b";")[0], 16)
            while len(self._buf) < j + 2 + size + 2:
                chunk, t = self._recv()
                if not chunk:
                    raise ServerGone("%s:%d closed the connection mid-chunk" % self.address)
                self._buf += chunk
            body += self._buf[j + 2:j + 2 + size]
            del self._buf[:j + 2 + size + 2]
            if size == 0:
                return bytes(body), t


class HttpServer:
    """A server process serving HTTP at self.url. One caller drives it."""

    def __init__(self, argv, stderr_path, url=None, env=None, cwd=None, start_timeout=60.0):
        self.argv = argv
        self.stderr_path = stderr_path
        offset = os.path.getsize(stderr_path) if os.path.exists(stderr_path) else 0
        with open(stderr_path, "ab") as err:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                         env=env, cwd=cwd, start_new_session=True)
        self.pid = self.proc.pid
        try:
            if url is None:
                self.url = self._wait_listening(offset, start_timeout)
            else:
                self.url = self._wait_port(url, start_timeout)
        except BaseException:
            self.close()
            raise

    def _stderr_since(self, offset):
        with open(self.stderr_path, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace")

    def _exited(self, offset):
        text = self._stderr_since(offset).strip()
        tail = "\n".join(text.splitlines()[-5:]) or "(nothing on stderr)"
        return NoHttp("%s exited with status %s before serving HTTP:\n%s"
                      % (" ".join(self.argv), self.proc.returncode, tail))

    def _wait_listening(self, offset, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = _LISTENING.search(self._stderr_since(offset))
            if m:
                return m.group(1)
            if self.proc.poll() is not None:
                raise self._exited(offset)
            time.sleep(0.01)
        raise NoHttp("%s logged no 'listening on http://...' line within %.0f s" % (" ".join(self.argv), timeout))

    def _wait_port(self, url, timeout):
        u = urllib.parse.urlsplit(url)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise self._exited(0)
            try:
                socket.create_connection((u.hostname, u.port), timeout=1).close()
                return url
            except OSError:
                time.sleep(0.02)
        raise NoHttp("nothing listens on %s %.0f s after starting %s" % (url, timeout, " ".join(self.argv)))

    def connection(self, timeout=60.0):
        return Connection(self.url, timeout)

    def proc_status(self, field):
        return proc_status(self.pid, field)

    def cpu_ns(self):
        return cpu_ns(self.pid)

    def close(self, timeout=10.0):
        """SIGTERM to the process group (a graceful stop), SIGKILL after timeout."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.pid, signal.SIGKILL)  # leftovers of the group (socat's children)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        return self.proc.returncode


def free_port():
    """A port free right now on 127.0.0.1 (for a server that cannot pick its own)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
