#!/usr/bin/python3
"""Records the HTTP requests real clients send to `wsim serve`, as serve_http_fuzz seeds.

usage: record_requests.py LISTEN_PORT_FILE SERVER_PORT OUT_DIR PREFIX

A loopback proxy: clients connect to the port it writes to LISTEN_PORT_FILE, their bytes go to
127.0.0.1:SERVER_PORT unchanged and the answers come back. Each request (headers and body,
Content-Length or chunked framing) is cut out of the client's byte stream; the requests, in the
order they arrived (over all connections), are written in groups of at most 8 KiB and 16
requests (the target serves 16 per input, kRequestsMax) to
OUT_DIR/PREFIX-NNN: several pipelined requests per input, the corpus format of
fuzz/serve_http_target.h (each input meets a fresh cluster, so a group keeps a create with the
patches and deletes that follow it). Stops on SIGTERM (writes the seeds first).
How corpus/fuzz/serve_http_fuzz/python-* and client-node-* were made: serve/README.md "Tests".
"""
import os
import re
import signal
import socket
import sys
import threading

recorded = []
GROUP_BYTES = 8192
GROUP_REQUESTS = 16  # fuzz/serve_http_target.cc kRequestsMax.
lock = threading.Lock()


def split_requests(data):
    """Complete requests at the start of `data` and the rest."""
    out = []
    while True:
        end = data.find(b"\r\n\r\n")
        if end < 0:
            return out, data
        head = data[:end + 4]
        m = re.search(rb"(?im)^content-length:\s*(\d+)\s*$", head)
        if m:
            total = end + 4 + int(m.group(1))
            if len(data) < total:
                return out, data
        elif re.search(rb"(?im)^transfer-encoding:\s*chunked\s*$", head):
            i = end + 4
            while True:
                eol = data.find(b"\r\n", i)
                if eol < 0:
                    return out, data
                size = int(data[i:eol].split(b";")[0], 16)
                i = eol + 2 + size + 2
                if len(data) < i:
                    return out, data
                if size == 0:
                    break
            total = i
        else:
            total = end + 4
        out.append(data[:total])
        data = data[total:]


def write_groups(requests, out_dir, prefix):
    groups = [[]]
    for request in requests:
        size = sum(len(r) for r in groups[-1])
        if groups[-1] and (size + len(request) > GROUP_BYTES or len(groups[-1]) == GROUP_REQUESTS):
            groups.append([])
        groups[-1].append(request)
    for i, group in enumerate(g for g in groups if g):
        with open(os.path.join(out_dir, "%s-%03d" % (prefix, i + 1)), "wb") as f:
            f.write(b"".join(group))


def pipe(src, dst, record):
    buffered = b""
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
            if record:
                buffered += data
                requests, buffered = split_requests(buffered)
                with lock:
                    recorded.extend(requests)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main(port_file, server_port, out_dir, prefix):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)

    def stop(*_):
        with lock:
            write_groups(recorded, out_dir, prefix)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    with open(port_file, "w") as f:
        f.write(str(listener.getsockname()[1]))
    while True:
        client, _ = listener.accept()
        upstream = socket.create_connection(("127.0.0.1", int(server_port)))
        threading.Thread(target=pipe, args=(client, upstream, True), daemon=True).start()
        threading.Thread(target=pipe, args=(upstream, client, False), daemon=True).start()


if __name__ == "__main__":
    main(*sys.argv[1:5])
