#!/usr/bin/env python3
"""Requests/s through `wsim serve` (a figure, never asserted): one keep-alive HTTP connection per
client thread doing create / get / merge patch / list / delete of ConfigMaps.

Usage: tests/serve/throughput.py PORT [SECONDS] [THREADS]
"""
import http.client
import json
import sys
import threading
import time


def worker(port, deadline, index, counts):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    base = "/api/v1/namespaces/default/configmaps"
    n = 0
    i = 0
    while time.time() < deadline:
        name = f"t{index}-{i}"
        body = json.dumps({"metadata": {"name": name}, "data": {"k": "v"}})
        for method, path, payload, ctype in (
            ("POST", base, body, "application/json"),
            ("GET", f"{base}/{name}", None, None),
            ("PATCH", f"{base}/{name}", '{"data":{"k":"w"}}', "application/merge-patch+json"),
            ("GET", f"{base}?labelSelector=none%3D1", None, None),
            ("DELETE", f"{base}/{name}", None, None),
        ):
            headers = {"Content-Type": ctype} if ctype else {}
            conn.request(method, path, payload, headers)
            response = conn.getresponse()
            response.read()
            if response.status >= 300:
                raise SystemExit(f"{method} {path}: {response.status}")
            n += 1
        i += 1
    counts[index] = n


def main():
    port = int(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    counts = [0] * threads
    deadline = time.time() + seconds
    workers = [threading.Thread(target=worker, args=(port, deadline, k, counts))
               for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    total = sum(counts)
    print(f"{total} requests in {seconds:.0f} s with {threads} connections: "
          f"{total / seconds:.0f} requests/s")


if __name__ == "__main__":
    main()
