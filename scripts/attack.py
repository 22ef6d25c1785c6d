#!/usr/bin/env python3
"""Re-runs three attacks of issue 27 against a running `isobar up --sample` (started here, with its
gateway on loopback) and prints memory and time figures. Not part of CI: sizes are the issue's.

  scripts/attack.py BINARY ping [--bytes 300e6] [--rate R]   one client floods WebSocket pings, never reads
  scripts/attack.py BINARY slowloris [--count 2000]           half-open HTTP requests, held
  scripts/attack.py BINARY resync [--count 25000 --seconds 25] bare resyncs on the bus
  scripts/attack.py BINARY clients [--count 10000] --up --sample-period 20
                                                              fake clients' viewports, then feed changes

RSS is sampled from /proc every 0.1 s (VmRSS), CPU from /proc/PID/stat (utime + stime).
"""
import argparse, base64, os, resource, select, socket, struct, subprocess, sys, tempfile, threading, time, urllib.request

TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None


def cpu_s(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except OSError:
        return None


def descendants(pid):
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                out.append(int(entry))
                out += descendants(int(entry))
        except OSError:
            pass
    return out


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


class Sampler(threading.Thread):
    """VmRSS of named pids every 0.1 s: first, peak, last."""

    def __init__(self, pids):
        super().__init__(daemon=True)
        self.pids, self.stats, self.running = pids, {}, True

    def run(self):
        while self.running:
            for name, pid in self.pids.items():
                value = rss_mb(pid)
                if value is None:
                    continue
                first, peak, _ = self.stats.get(name, (value, value, value))
                self.stats[name] = (first, max(peak, value), value)
            time.sleep(0.1)

    def report(self):
        for name, (first, peak, last) in sorted(self.stats.items()):
            print(f"  {name}: RSS {first:.1f} MB at start, peak {peak:.1f} MB, {last:.1f} MB at the end")


class Up:
    def __init__(self, binary, extra):
        self.port, sample = free_port(), free_port()
        self.data = tempfile.mkdtemp(prefix="isobar-attack-")
        env = dict(os.environ, ISOBAR_PUB=f"tcp://127.0.0.1:{free_port()}", ISOBAR_SUB=f"tcp://127.0.0.1:{free_port()}")
        self.env = env
        fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures")
        self.proc = subprocess.Popen([binary, "up", "--sample", "--sample-port", str(sample), "--sample-period", "3600",
                                      "--data-dir", self.data, "--fixtures", fixtures,
                                      "--gateway", f"127.0.0.1:{self.port}"] + extra,
                                     env=env, stdout=subprocess.DEVNULL, stderr=open(self.data + ".log", "w"))
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2).status == 200:
                    break
            except Exception:
                pass
            time.sleep(0.3)
        else:
            sys.exit("isobar up never became healthy; log: " + self.data + ".log")

    def find(self, needle, without=None):
        for pid in descendants(self.proc.pid):
            line = cmdline(pid)
            if needle in line and not (without and without in line):
                return pid
        return None

    def stop(self):
        self.proc.send_signal(2)
        try:
            self.proc.wait(40)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def websocket(port, path):
    s = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(4096)
    assert head.startswith(b"HTTP/1.1 101"), head[:80]
    return s


def ping_frame(payload):
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x89, 0x80 | len(payload)]) + mask + masked


def ping(up, args):
    gateway = up.find("gateway") or up.proc.pid
    sampler = Sampler({"gateway": gateway})
    sampler.start()
    time.sleep(1)
    s = websocket(up.port, "/ws?client=pinger")
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # reads nothing: keep our buffer small
    chunk = ping_frame(os.urandom(125)) * 8000  # 1.05 MB of pings per send
    sent, start, closed = 0, time.time(), False
    while sent < args.bytes:
        try:
            s.sendall(chunk)
            sent += len(chunk)
        except OSError:
            closed = True
            break
    took = time.time() - start
    print(f"ping flood: {sent / 1e6:.0f} MB of pings sent in {took:.1f} s; "
          f"{'the gateway closed the connection' if closed else 'the connection stayed open'}")
    s.close()
    time.sleep(5)
    sampler.running = False
    sampler.report()


def slowloris(up, args):
    resource.setrlimit(resource.RLIMIT_NOFILE, (args.count + 1000, args.count + 1000))
    gateway = up.find("gateway") or up.proc.pid
    sampler = Sampler({"gateway": gateway})
    sampler.start()
    time.sleep(1)
    socks, opened = [], time.time()
    for _ in range(args.count):
        s = socket.create_connection(("127.0.0.1", up.port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: b\r\n")
        socks.append(s)
    print(f"slowloris: {args.count} half-open requests opened in {time.time() - opened:.1f} s")
    answered, closed, first, last = 0, 0, None, None
    pending = {s.fileno(): s for s in socks}
    deadline = time.time() + 120
    while pending and time.time() < deadline:
        poller = select.poll()
        for fd in pending:
            poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        for fd, _ in poller.poll(500):
            s = pending[fd]
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if data.startswith(b"HTTP/1.1 408"):
                answered += 1
            if not data or b"\r\n\r\n" in data:
                closed += 1
                now = time.time() - opened
                first = now if first is None else first
                last = now
                del pending[s.fileno()]
                s.close()
    print(f"  answered 408: {answered}; closed: {closed} of {args.count}, {first or 0:.1f}-{last or 0:.1f} s after opening; "
          f"still open after 120 s: {len(pending)}")
    for s in pending.values():
        s.close()
    time.sleep(3)
    sampler.running = False
    sampler.report()


def resync(up, binary, args):
    pids = {"persist plug": up.find("plug --name persist"), "persist": up.find(" persist --data-dir", without=" plug "),
            "broker": up.find(" broker"), "fetch plug": up.find("plug --name fetch")}
    pids = {k: v for k, v in pids.items() if v}
    sampler = Sampler(pids)
    sampler.start()
    time.sleep(1)
    cpu0 = {k: cpu_s(v) for k, v in pids.items()}
    per_tick = max(1, args.count // int(args.seconds * 10))
    script = ("import sys,time\n"
              f"n={args.count}\nk={per_tick}\nline='{{\"type\":\"resync\",\"reason\":\"storm\"}}\\n'\n"
              "time.sleep(1)\nwhile n>0:\n m=min(k,n); sys.stdout.write(line*m); sys.stdout.flush(); n-=m; time.sleep(0.1)\n"
              "time.sleep(2)\n")
    start = time.time()
    subprocess.run([binary, "plug", "--no-restart", "--name", "storm", "--", sys.executable, "-c", script],
                   env=up.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sent = time.time() - start
    # Drained: persist's CPU stops growing (under 0.05 s in a second).
    quiet, last = 0, cpu_s(pids.get("persist", 0)) or 0
    while quiet < 3 and time.time() - start < 600:
        time.sleep(1)
        now = cpu_s(pids.get("persist", 0)) or 0
        quiet = quiet + 1 if now - last < 0.05 else 0
        last = now
    drained = time.time() - start - 3
    sampler.running = False
    print(f"resync storm: {args.count} bare resyncs over {sent:.1f} s (incl. 3 s of plug start/stop); quiet again {drained:.1f} s after the start")
    for k, v in pids.items():
        c = cpu_s(v)
        if c is not None and cpu0[k] is not None:
            print(f"  {k}: {c - cpu0[k]:.1f} CPU-s")
    sampler.report()
    log = open(up.data + ".log").read()
    dropped = [l for l in log.splitlines() if "resync requests beyond" in l]
    print(f"  persist's last drop line: {dropped[-1].strip() if dropped else 'none'}")


def clients(up, binary, args):
    """`count` clients of a fake gateway view the whole sample (181 stations, limit 500); the gateway
    leases them every second; the filter's and the formatter's RSS over the next two feed changes."""
    pids = {"filter": up.find(" filter ", without=" plug "), "format": up.find(" format ", without=" plug "),
            "broker": up.find(" broker")}
    pids = {k: v for k, v in pids.items() if v}
    before = {k: rss_mb(v) for k, v in pids.items()}
    script = ("import sys,time\n"
              f"n={args.count}\n"
              "w=sys.stdout.write\n"
              "for i in range(n):\n"
              " w('{\"type\":\"viewport\",\"client\":\"fake%d\",\"center\":{\"latitude\":38,\"longitude\":-97},"
              "\"span\":{\"latitudeDelta\":60,\"longitudeDelta\":100},\"gateway\":\"fakegw\",\"ref\":1}\\n' % i)\n"
              " if i % 500 == 499: sys.stdout.flush(); time.sleep(0.05)\n"
              f"end=time.time()+{args.seconds}\n"
              "while time.time()<end:\n"
              " w('{\"type\":\"lease\",\"gateway\":\"fakegw\",\"clients\":%d,\"digest\":\"0000000000000000\"}\\n' % n); sys.stdout.flush(); time.sleep(1)\n")
    tallies = up.data + ".tallies"
    recorder = subprocess.Popen([binary, "plug", "--no-restart", "--name", "tally", "--sub", "tally", "--", "sh", "-c", f"cat > {tallies}"],
                                env=up.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    plug = subprocess.Popen([binary, "plug", "--no-restart", "--name", "fakegw", "--", sys.executable, "-c", script],
                            env=up.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(max(5, args.count / 500 * 0.06 + 3))
    joined = {k: rss_mb(v) for k, v in pids.items()}
    sampler = Sampler(pids)
    sampler.start()
    plug.wait()
    sampler.running = False
    recorder.send_signal(2)
    recorder.wait(20)
    known = [l for l in open(tallies).read().splitlines() if '"fakegw"' in l]
    print(f"  the filter's last tally for the fake gateway: {known[-1] if known else 'none'}")
    print(f"clients: {args.count} fake clients (whole sample in view), watched {args.seconds:.0f} s of feed changes")
    for k in pids:
        first, peak, last = sampler.stats.get(k, (0, 0, 0))
        print(f"  {k}: RSS {before[k]:.1f} MB before the clients, {joined[k]:.1f} MB with them, peak {peak:.1f} MB at the feed changes, "
              f"{last:.1f} MB at the end; peak over no clients {(peak - before[k]) * 1048576 / args.count / 1024:.1f} KiB per client")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("attack", choices=["ping", "slowloris", "resync", "clients"])
    p.add_argument("--bytes", type=float, default=300e6)
    p.add_argument("--count", type=int, default=None)
    p.add_argument("--seconds", type=float, default=25)
    p.add_argument("--up", nargs=argparse.REMAINDER, default=[], help="more arguments for isobar up")
    args = p.parse_args()
    if args.count is None:
        args.count = {"slowloris": 2000, "clients": 10000}.get(args.attack, 25000)
    up = Up(args.binary, args.up)
    try:
        if args.attack == "ping":
            ping(up, args)
        elif args.attack == "slowloris":
            slowloris(up, args)
        elif args.attack == "clients":
            clients(up, args.binary, args)
        else:
            resync(up, args.binary, args)
    finally:
        up.stop()


if __name__ == "__main__":
    main()
