#!/usr/bin/env python3
"""One node of a toy key-value register store, for partkit's exec system.

Each node holds the registers of the keys its clients send it (the client routes key mod n),
in memory and in an append-only log in its data directory, replayed at start, so a node that is
killed with kill -9 and started again still has every write it acknowledged.

The deliberate bug, `--ack before-log`: a write (or a successful compare-and-set) is answered
as soon as it is in memory, and reaches the log in batches of 50 (a group commit that answers
before it commits). A kill loses the batch in memory, writes the clients were told had
happened; partkit verify with the kill nemesis says invalid.

Protocol on TCP, one line each way: `GET k` -> `VALUE v` or `VALUE nil`; `PUT k v` -> `OK`;
`CAS k old new` (old may be `nil`) -> `OK` or `MISMATCH`.
"""
import argparse
import os
import socketserver
import sys
import threading


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--id", required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--ack", choices=["after-log", "before-log"], default="after-log")
    args = p.parse_args()

    os.makedirs(args.data, exist_ok=True)
    log_path = os.path.join(args.data, "register.log")
    registers = {}
    if os.path.exists(log_path):
        with open(log_path, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:  # a torn last line from a kill is not a write
                    registers[parts[0]] = parts[1]
    log = open(log_path, "a", encoding="utf-8")
    lock = threading.Lock()
    pending = []  # before-log only: acknowledged, not yet in the log
    batch = 50

    def record(key, value):
        """Called with the lock held, before the answer goes out."""
        registers[key] = value
        if args.ack == "before-log":
            pending.append(f"{key} {value}\n")
            if len(pending) >= batch:
                log.write("".join(pending))
                log.flush()
                pending.clear()
        else:
            # write() and flush() put it in the kernel, which a kill -9 of this process does
            # not lose (surviving a machine crash would need os.fsync as well)
            log.write(f"{key} {value}\n")
            log.flush()

    class Handler(socketserver.StreamRequestHandler):
        def handle(self):
            try:
                self.serve()
            except ConnectionError:
                pass  # the client went away (a worker's client process ended): nothing to answer

        def serve(self):
            for raw in self.rfile:
                words = raw.decode("utf-8").split()
                if not words:
                    continue
                with lock:
                    if words[0] == "GET" and len(words) == 2:
                        answer = "VALUE " + registers.get(words[1], "nil")
                    elif words[0] == "PUT" and len(words) == 3:
                        record(words[1], words[2])
                        answer = "OK"
                    elif words[0] == "CAS" and len(words) == 4:
                        if registers.get(words[1], "nil") == words[2]:
                            record(words[1], words[3])
                            answer = "OK"
                        else:
                            answer = "MISMATCH"
                    else:
                        answer = "ERROR unknown request"
                self.wfile.write((answer + "\n").encode("utf-8"))
                self.wfile.flush()

    class Server(socketserver.ThreadingTCPServer):
        allow_reuse_address = True  # a restarted node takes its port back at once
        daemon_threads = True

    server = Server((args.host, args.port), Handler)
    # the line partkit waits for (--option ready-line=READY, the default)
    print(f"READY {args.id} {args.host}:{args.port} ack={args.ack}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
