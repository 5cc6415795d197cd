"""brokers.py - what the broker tests share: free loopback ports, a Mosquitto started and
killed by the test, a subscriber (mosquitto_sub), a test CA made with openssl, runs of
publish_feed, and the JSON Schema check of every message."""
import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import jsonschema

FEED = os.environ.get('PUBLISH_FEED', '')
SCHEMA = os.environ.get('RESULTS_SCHEMA', '')
MOSQUITTO = '/usr/sbin/mosquitto'


# Everything a test starts is stopped when it ends, passed or failed; its folders are
# removed when it passed (kept for a look when it failed).
_procs = []
_dirs = []
_failed = []


def _cleanup():
    for p in _procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    if not _failed:
        for d in _dirs:
            shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup)


def started(proc):
    _procs.append(proc)
    return proc


def fail(msg):
    _failed.append(msg)
    print('FAIL: ' + msg, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print('ok: ' + msg, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(('127.0.0.1', port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


class Mosquitto:
    """A broker on 127.0.0.1:port with its own config, persistence and log in tmp."""

    def __init__(self, tmp, extra='', persistence=True):
        self.tmp = tmp
        self.port = free_port()
        self.conf = os.path.join(tmp, 'mosquitto.conf')
        self.log = os.path.join(tmp, 'mosquitto.log')
        # run as root (tests and CI are): keep root instead of mosquitto's switch to the
        # "mosquitto" user, who could not write the persistence file in our private tmp
        lines = ['listener %d 127.0.0.1' % self.port] + (['user root'] if os.geteuid() == 0 else [])
        if persistence:
            # sessions (the subscriber's) survive a restart; saved every second and at exit
            lines += ['persistence true', 'persistence_location %s/' % tmp, 'autosave_interval 1']
        lines += [extra, 'max_queued_messages 100000']
        if 'allow_anonymous' not in extra:
            lines.append('allow_anonymous true')
        with open(self.conf, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        self.proc = None

    def start(self):
        self.logf = open(self.log, 'a')
        self.proc = started(subprocess.Popen([MOSQUITTO, '-c', self.conf], stdout=self.logf,
                                             stderr=subprocess.STDOUT))
        if not wait_port(self.port):
            fail('mosquitto did not listen on %d (log: %s)' % (self.port, open(self.log).read()[-2000:]))
        return self

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(10)
        self.proc = None

    def pause(self):
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self):
        self.proc.send_signal(signal.SIGCONT)


class Subscriber:
    """mosquitto_sub with a persistent QoS 1 session: collects (topic, payload) lines."""

    def __init__(self, port, topic='cameras/#', extra=(), qos=1):
        self.lines = []
        self.lock = threading.Lock()
        cmd = ['stdbuf', '-oL', 'mosquitto_sub', '-h', '127.0.0.1', '-p', str(port), '-t', topic, '-v', '-q', str(qos),
               '-c', '-i', 'test-sub-%d-%d' % (os.getpid(), len(_procs))] + list(extra)
        self.proc = started(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            topic, _, payload = line.rstrip('\n').partition(' ')
            with self.lock:
                self.lines.append((topic, payload))

    def count(self):
        with self.lock:
            return len(self.lines)

    def wait_for(self, pred, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if pred(self.lines):
                    return True
            time.sleep(0.05)
        return False

    def messages(self):
        with self.lock:
            return [(t, json.loads(p)) for t, p in self.lines]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(5)


def feed(args, frames=100, fps=0, timing=None, linger_ms=0, timeout=120):
    """Runs publish_feed; returns (exit status, list of its JSON lines)."""
    cmd = [FEED, '--frames', str(frames), '--fps', str(fps), '--linger-ms', str(linger_ms)]
    if timing:
        cmd += ['--timing', timing]
    p = subprocess.run(cmd + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    out = []
    for line in p.stdout.splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            fail('publish_feed printed a line that is not JSON: %r' % line)
    if p.stderr.strip():
        print(p.stderr.strip()[-3000:])
    return p.returncode, out


def feed_async(args, frames, fps, timing=None):
    cmd = [FEED, '--frames', str(frames), '--fps', str(fps)]
    if timing:
        cmd += ['--timing', timing]
    return started(subprocess.Popen(cmd + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))


def feed_result(proc, timeout=120):
    out, err = proc.communicate(timeout=timeout)
    if err.strip():
        print(err.strip()[-3000:])
    return proc.returncode, [json.loads(line) for line in out.splitlines() if line.strip()]


def bus(lines, name):
    return [l for l in lines if l.get('bus') == name]


def last_stats(lines):
    s = bus(lines, 'tflite-publish-stats')
    if not s:
        fail('no tflite-publish-stats message')
    return s[-1]


def validator():
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate_all(msgs):
    v = validator()
    for topic, m in msgs:
        errors = sorted(v.iter_errors(m), key=lambda e: e.path)
        if errors:
            fail('message on %s does not fit docs/results-schema.json: %s\n%s' %
                 (topic, errors[0].message, json.dumps(m)[:1500]))
    print('ok: %d messages fit docs/results-schema.json' % len(msgs), flush=True)


def openssl(*args, cwd):
    r = subprocess.run(['openssl'] + list(args), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        fail('openssl %s: %s' % (' '.join(args), r.stdout))


def make_ca(tmp, name):
    """A CA (name-ca.pem/key) that signs a server (127.0.0.1, localhost) and a client certificate."""
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2',
            '-subj', '/CN=%s test CA' % name, cwd=d)
    with open(os.path.join(d, 'san.ext'), 'w') as f:
        f.write('subjectAltName=IP:127.0.0.1,DNS:localhost\n')
    for who, cn in (('server', 'localhost'), ('client', 'camera')):
        openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', who + '.key', '-out', who + '.csr', '-subj',
                '/CN=' + cn, cwd=d)
        openssl('x509', '-req', '-in', who + '.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out',
                who + '.pem', '-days', '2', *(['-extfile', 'san.ext'] if who == 'server' else []), cwd=d)
    files = {'ca': 'ca.pem', 'server': 'server.pem', 'server_key': 'server.key', 'client': 'client.pem',
             'client_key': 'client.key'}
    return {k: os.path.join(d, f) for k, f in files.items()}


def tmpdir(name):
    d = tempfile.mkdtemp(prefix='tflitepublish-%s-' % name)
    _dirs.append(d)
    return d


def seqs(msgs):
    return [m['seq'] for _, m in msgs]
