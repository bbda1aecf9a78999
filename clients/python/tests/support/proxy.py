"""A TCP proxy in front of the test server that breaks one chosen connection: it drops the answer to a
request (the server did the work, the client never hears) or cuts an answer after N bytes."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass


@dataclass
class Fault:
    request_starts: bytes  # e.g. b"POST /api/v1/jobs"
    cut_after: int  # bytes of the answer passed on before closing; 0 drops the whole answer
    fired: bool = False


class FlakyProxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._faults: list[Fault] = []
        self.heads: list[bytes] = []  # the start of each connection's first request, as received
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, request_starts: bytes, cut_after: int) -> Fault:
        fault = Fault(request_starts, cut_after)
        with self._lock:
            self._faults.append(fault)
        return fault

    def _take(self, head: bytes) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if not fault.fired and head.startswith(fault.request_starts):
                    fault.fired = True
                    self._faults.remove(fault)
                    return fault
        return None

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
        first = client.recv(65536)
        self.heads.append(first.split(b"\r\n\r\n", 1)[0])
        fault = self._take(first)
        upstream.sendall(first)
        threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
        passed = 0
        try:
            while True:
                data = upstream.recv(65536)
                if not data:
                    break
                if fault is not None:
                    room = fault.cut_after - passed
                    if room <= 0:
                        break
                    data = data[:room]
                client.sendall(data)
                passed += len(data)
                if fault is not None and passed >= fault.cut_after:
                    break
        except OSError:
            pass
        for s in (client, upstream):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self._listener.close()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
