#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile peers of the control protocol, for tests/e2e/hostile.sh.

  hostile.py fake-target DIR MODE [NAME]  serve DIR/<own pid>.sock (or DIR/NAME)
                                      as a lying target (MODE: huge, short, names,
                                      garbage, silent: never answers, drip: a
                                      header byte by byte, deaf: never accepts,
                                      its backlog full); prints its pid, serves
                                      until killed
  hostile.py tree-target DIR NAME...  serve DIR/<own pid>.sock as a target of
                                      the objects NAME (8 bytes each), any
                                      number of requests a connection (a
                                      SNAPSHOT gets a malformed reply, a RESET
                                      an error with escapes in it); prints
                                      its pid, serves until killed
  hostile.py storm SOCK N SECONDS     N hostile connections (idle, slow, garbage)
                                      coming and going for at most SECONDS
  hostile.py slow SOCK                drip a frame byte by byte: prints the status
                                      of the reply and the seconds it took
  hostile.py idle SOCK                connect, send nothing: prints the seconds
                                      until the target closes
  hostile.py hold SOCK N              hold N idle connections open until killed
  hostile.py deaf SOCK N SECONDS      N connections that pipeline LIST and never
                                      read a reply, reopened when closed, for
                                      SECONDS: prints how many were made
  hostile.py snapshot-close SOCK NAME send SNAPSHOT, close at once
  hostile.py remote SOCK sealed|unsealed  REMOTE_ENABLE with a memfd of its own
  hostile.py noise SOCK                listen on SOCK and stream bytes that hold
                                      no frame magic to whoever connects, until
                                      killed (a serial line gone mad)
  hostile.py remote-race SOCK SERVICE N DELAY  N times: REMOTE_ENABLE with a
                                      large unsealed memfd, then after DELAY
                                      seconds shrink it and seal it; when the target took it, a request
                                      to SERVICE (examples/remote's rserv) for
                                      that handle (20 of them) make it write past
                                      the area's first page.
                                      Prints how many it took
"""
import os
import socket
import struct
import sys
import threading
import time

MAGIC = 0x564F4355


def frame(op, payload=b"", status=0, length=None):
    n = len(payload) if length is None else length
    return struct.pack("<IHHII", MAGIC, 1, op, status, n) + payload


def fake_target(directory, mode, name=None):
    path = os.path.join(directory, name or "%d.sock" % os.getpid())
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    os.chmod(path, 0o600)
    srv.listen(0 if mode == "deaf" else 8)
    print(os.getpid(), flush=True)
    held = []
    if mode == "deaf":  # never accepts, its backlog full: a connect would wait
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect(path)
            except BlockingIOError:
                break
            held.append(s)
        while True:
            time.sleep(60)
    while True:
        c, _ = srv.accept()
        if mode == "silent":  # reads the request, never answers
            held.append(c)
            continue
        if mode == "drip":  # a header, a byte at a time, and never a payload

            def drip(c):
                try:
                    for b in frame(8, length=100):
                        c.sendall(bytes([b]))
                        time.sleep(0.2)
                    time.sleep(3600)
                except OSError:
                    pass

            threading.Thread(target=drip, args=(c,), daemon=True).start()
            held.append(c)
            continue
        try:
            req = c.recv(4096)
            if mode == "names" and req[6:8] == struct.pack("<H", 8):  # INFO
                c.sendall(frame(8, b"pid=1\nexe=/bin/\x1b]0;owned\x07x\x08y\n"))
            elif mode == "huge":  # a length that wraps a 32-bit length + 1
                c.sendall(frame(1, length=0xFFFFFFFF) + b"x" * 64)
            elif mode == "short":  # promises 1 MiB, sends 10 bytes, closes
                c.sendall(frame(1, length=1 << 20) + b"0123456789")
            elif mode == "names":  # LIST with names that would drive a terminal
                body = b""
                for name in (b"gcov/a\x1b[31mred.gcda", b"pgo/new\nline.profraw", b"x\\y"):
                    body += struct.pack("<QI", 8, len(name)) + name
                c.sendall(frame(1, body))
            elif mode == "garbage":
                c.sendall(os.urandom(64))
        except OSError:
            pass
        c.close()


def tree_target(directory, names):
    """A target that serves the objects NAMES (8 bytes each) over as many
    requests as a client sends: INFO, LIST, READ; prints its pid."""
    path = os.path.join(directory, "%d.sock" % os.getpid())
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    os.chmod(path, 0o600)
    srv.listen(8)
    print(os.getpid(), flush=True)
    objs = [n.encode() for n in names]
    while True:
        c, _ = srv.accept()
        try:
            while True:
                hdr = c.recv(16, socket.MSG_WAITALL)
                if len(hdr) < 16:
                    break
                _, _, op, _, n = struct.unpack("<IHHII", hdr)
                body = c.recv(n, socket.MSG_WAITALL) if n else b""
                if op == 8:  # INFO
                    c.sendall(frame(op, b"pid=%d\nexe=/bin/tree\n" % os.getpid()))
                elif op == 1:  # LIST
                    c.sendall(frame(op, b"".join(struct.pack("<QI", 8, len(o)) + o for o in objs)))
                elif op == 3 and body in objs:  # READ
                    c.sendall(frame(op, b"gcdadata"))
                elif op == 4:  # RESET: an error that would drive a terminal
                    c.sendall(frame(op, b"no\x1b]0;owned\x07 way", status=7))
                elif op == 11:  # SNAPSHOT: malformed, 3 bytes where a token leads
                    c.sendall(frame(op, b"abc"))
                else:
                    c.sendall(frame(op, b"no such object", status=7))
        except OSError:
            pass
        c.close()


def connect(sock):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    return s


def storm(sock, n, seconds):
    """n connections, each one of: idle (holds), slow (drips), garbage (junk)."""
    deadline = time.time() + seconds
    made = [0]
    lock = threading.Lock()

    def one(kind):
        try:
            s = connect(sock)
            s.settimeout(3)
            if kind == 0:  # idle: hold until closed or 3 s
                s.recv(1)
            elif kind == 1:  # slow: a byte of a header every 0.3 s
                for b in frame(8):
                    s.send(bytes([b]))
                    time.sleep(0.3)
            else:  # garbage
                s.sendall(os.urandom(100))
                s.recv(64)
            s.close()
        except OSError:
            pass

    threads = []
    i = 0
    while i < n and time.time() < deadline:
        t = threading.Thread(target=one, args=(i % 3,), daemon=True)
        t.start()
        threads.append(t)
        i += 1
        with lock:
            made[0] += 1
        time.sleep(0.002)
        threads = [t for t in threads if t.is_alive()]
        while len(threads) > 300:  # bounded: a test's own process stays small
            time.sleep(0.01)
            threads = [t for t in threads if t.is_alive()]
    for t in threads:
        t.join(5)
    print(made[0])


def read_reply(s):
    hdr = b""
    while len(hdr) < 16:
        b = s.recv(16 - len(hdr))
        if not b:
            return None
        hdr += b
    return struct.unpack("<IHHII", hdr)


def slow(sock):
    s = connect(sock)
    s.settimeout(20)
    start = time.time()
    try:
        for b in frame(8):
            s.send(bytes([b]))
            time.sleep(0.5)
    except OSError:
        pass
    try:
        r = read_reply(s)
    except OSError:
        r = None
    print(r[3] if r else -1, "%.1f" % (time.time() - start))


def idle(sock):
    s = connect(sock)
    s.settimeout(30)
    start = time.time()
    try:
        s.recv(1)
    except OSError:
        pass
    print("%.1f" % (time.time() - start))


def hold(sock, n):
    """n idle connections, each reopened as soon as the target closes it."""
    conns = [connect(sock) for _ in range(n)]
    print(len(conns), flush=True)
    while True:
        time.sleep(0.05)
        for i, c in enumerate(conns):
            try:
                gone = c.recv(64, socket.MSG_DONTWAIT) == b""
            except BlockingIOError:
                gone = False
            except OSError:
                gone = True
            if gone:
                c.close()
                try:
                    conns[i] = connect(sock)
                except OSError:
                    pass


def deaf(sock, n, seconds):
    """n connections that pipeline LIST and never read a reply, each
    reopened (without waiting) as soon as the target closes it, for SECONDS.
    Prints how many connections were made."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, n + 64)), hard))
    req = frame(1) * 256
    conns = [None] * n
    made = 0
    deadline = time.time() + seconds
    while time.time() < deadline:
        for i in range(n):
            c = conns[i]
            if c is None:
                c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                c.setblocking(False)
                try:
                    c.connect(sock)
                except OSError:
                    c.close()
                    continue
                conns[i] = c
                made += 1
            try:
                c.send(req)
            except BlockingIOError:
                pass
            except OSError:
                c.close()
                conns[i] = None
        time.sleep(0.02)
    print(made, flush=True)


def snapshot_close(sock, op, name):
    s = connect(sock)
    payload = name.encode()
    if op == 11:  # SNAPSHOT: u64 token (0: a new set), then the name
        payload = struct.pack("<Q", 0) + payload
    s.sendall(frame(op, payload))
    s.close()


def remote(sock, seal):
    """REMOTE_ENABLE with a memfd of our own, sealed or not: prints the reply's
    status, its errno (or 0), and whether the memfd could still be shrunk."""
    fd = os.memfd_create("fake", os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, 64 * 8)
    if seal:
        import fcntl
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
    # struct kcov_remote_arg: trace_mode, area_size, num_handles, (pad), common_handle, handles[]
    arg = struct.pack("<IIIIQQ", 0, 64, 1, 0, 0, (1 << 56) | 7)
    s = connect(sock)
    s.sendmsg([frame(9, arg)], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))])
    st = read_reply(s)
    body = s.recv(64) if st and st[4] else b""
    err = struct.unpack("<I", body[:4])[0] if st and st[3] == 12 and len(body) >= 4 else 0
    try:
        os.ftruncate(fd, 8)
        shrunk = 1
    except OSError:
        shrunk = 0
    print(st[3] if st else -1, err, shrunk)


def remote_race(sock, service, n, delay):
    import fcntl
    took = 0
    for i in range(n):
        fd = os.memfd_create("race", os.MFD_ALLOW_SEALING)
        os.ftruncate(fd, 1 << 20)
        handle = (1 << 56) | (i + 1)
        arg = struct.pack("<IIIIQQ", 0, 1 << 17, 1, 0, 0, handle)
        s = connect(sock)
        s.sendmsg([frame(9, arg)], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))])
        time.sleep(delay)
        os.ftruncate(fd, 16)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
        st = read_reply(s)
        if st is None:
            break  # the target is gone
        if st[4]:
            s.recv(st[4])
        if st[3] == 0:
            took += 1
            try:
                w = connect(service)
                w.settimeout(10)
                for _ in range(20):  # PCs past the first page of the area
                    w.sendall(b"%x GET / HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n\n" % handle)
                    w.recv(64)
                w.close()
            except OSError:
                break
        s.close()
        os.close(fd)
    print(took)


def noise(path):
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(4)
    while True:
        c, _ = srv.accept()
        try:
            while True:
                c.sendall(b"UCO noise without a frame " * 8)
                time.sleep(0.005)
        except OSError:
            c.close()


def main():
    cmd = sys.argv[1]
    if cmd == "tree-target":
        tree_target(sys.argv[2], sys.argv[3:])
    elif cmd == "fake-target":
        fake_target(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    elif cmd == "deaf":
        deaf(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    elif cmd == "storm":
        storm(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    elif cmd == "slow":
        slow(sys.argv[2])
    elif cmd == "idle":
        idle(sys.argv[2])
    elif cmd == "hold":
        hold(sys.argv[2], int(sys.argv[3]))
    elif cmd == "read-and-reset-close":
        snapshot_close(sys.argv[2], 5, sys.argv[3])
    elif cmd == "remote":
        remote(sys.argv[2], sys.argv[3] == "sealed")
    elif cmd == "noise":
        noise(sys.argv[2])
    elif cmd == "remote-race":
        remote_race(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
    elif cmd == "snapshot-close":
        snapshot_close(sys.argv[2], 11, sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
