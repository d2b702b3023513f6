#!/usr/bin/env python3
"""The JSON-lines client of register_server.py, for partkit's exec system.

partkit writes one operation a line on standard input:
  {"id": 7, "f": "cas", "key": 3, "value": [2, 5], "nodes": ["127.0.0.1:40001", ...]}
and reads one result a line on standard output:
  {"id": 7, "type": "ok"}  {"id": 7, "type": "ok", "value": 5}  (a read; null when absent)
  {"id": 7, "type": "fail", "error": "...", "mismatch": true}
  {"id": 7, "type": "info", "error": "..."}

The key's node is nodes[key mod n]. Honesty: `fail` only when the operation surely did not
happen (no connection, or a compare-and-set that found another value); `info` when it may have
(sent, then no answer); a read that got no answer is `fail`, since it changed nothing.
Diagnostics go to standard error, never to standard output.
"""
import json
import socket
import sys

TIMEOUT = 1.0  # below partkit's op-timeout-ms (2 s by default), so this client answers first
connections = {}


def connection(address):
    c = connections.get(address)
    if c is None:
        host, port = address.rsplit(":", 1)
        s = socket.create_connection((host.strip("[]"), int(port)), timeout=TIMEOUT)
        c = (s, s.makefile("r", encoding="utf-8"))
        connections[address] = c
    return c


def drop(address):
    c = connections.pop(address, None)
    if c is not None:
        c[0].close()


def perform(op):
    key, f, value = op["key"], op["f"], op["value"]
    address = op["nodes"][key % len(op["nodes"])]
    if f == "read":
        request = f"GET {key}"
    elif f == "write":
        request = f"PUT {key} {value}"
    else:
        old = "nil" if value[0] is None else value[0]
        request = f"CAS {key} {old} {value[1]}"
    try:
        s, r = connection(address)
    except OSError as e:
        return {"type": "fail", "error": f"{address}: cannot connect: {e}"}
    try:
        s.sendall((request + "\n").encode("utf-8"))
        answer = r.readline().strip()
        if not answer:
            raise OSError("connection closed")
    except OSError as e:
        drop(address)
        why = f"{address}: {e}"
        return {"type": "fail" if f == "read" else "info", "error": why}
    if answer.startswith("VALUE "):
        v = answer[len("VALUE "):]
        return {"type": "ok", "value": None if v == "nil" else int(v)}
    if answer == "OK":
        return {"type": "ok"}
    if answer == "MISMATCH":
        return {"type": "fail", "mismatch": True, "error": "the register held another value"}
    return {"type": "info", "error": f"{address} answered {answer!r}"}


def main():
    for line in sys.stdin:
        op = json.loads(line)
        result = perform(op)
        result["id"] = op["id"]
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
