"""test_kafka.py - tflitepublish against a real Apache Kafka broker (KRaft mode, loopback,
one start per run shared by the cases; jars from scripts/fetch_kafka.sh): the schema, order
per camera key with two cameras at once, and a broker SIGKILLed and restarted mid-stream
losing and duplicating nothing."""
import base64
import os
import signal
import subprocess
import sys
import time
import uuid

from brokers import (bus, check, fail, feed, feed_async, feed_result, free_port, last_stats, started, tmpdir,
                     validate_all, wait_port)

CONSUME = os.environ.get('KAFKA_CONSUME', '')
FETCH = os.environ.get('KAFKA_FETCH', '')


class Kafka:
    def __init__(self, tmp):
        r = subprocess.run([FETCH], stdout=subprocess.PIPE, text=True)
        if r.returncode:
            fail('scripts/fetch_kafka.sh failed')
        self.libs = os.path.join(r.stdout.strip(), 'libs', '*')
        self.tmp = tmp
        self.port, self.cport = free_port(), free_port()
        self.data = os.path.join(tmp, 'data')
        self.props = os.path.join(tmp, 'server.properties')
        with open(self.props, 'w') as f:
            f.write('\n'.join([
                'process.roles=broker,controller', 'node.id=1',
                'controller.quorum.voters=1@127.0.0.1:%d' % self.cport,
                'listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d' % (self.port, self.cport),
                'advertised.listeners=PLAINTEXT://127.0.0.1:%d' % self.port,
                'controller.listener.names=CONTROLLER',
                'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
                'log.dirs=' + self.data, 'num.partitions=3', 'auto.create.topics.enable=true',
                'offsets.topic.replication.factor=1', 'transaction.state.log.replication.factor=1',
                'transaction.state.log.min.isr=1', 'group.initial.rebalance.delay.ms=0']) + '\n')
        with open(os.path.join(tmp, 'log4j.properties'), 'w') as f:
            f.write('log4j.rootLogger=INFO, f\nlog4j.appender.f=org.apache.log4j.FileAppender\n'
                    'log4j.appender.f.File=%s/broker.log\nlog4j.appender.f.layout=org.apache.log4j.PatternLayout\n'
                    'log4j.appender.f.layout.ConversionPattern=[%%d] %%p %%m (%%c)%%n\n' % tmp)
        self.java = ['java', '-Xmx384m', '-Xms128m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1',
                     '-Dlog4j.configuration=file:%s/log4j.properties' % tmp, '-cp', self.libs]
        # an id starting with '-' reads as an option to the tool's argument parser (one in
        # 64 runs failed so); Kafka's own random-uuid draws again in that case too
        cluster = '-'
        while cluster.startswith('-'):
            cluster = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip('=')
        r = subprocess.run(self.java + ['kafka.tools.StorageTool', 'format', '-t', cluster, '-c', self.props],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            fail('kafka storage format: ' + r.stdout[-2000:])
        self.proc = None

    def start(self):
        t = time.monotonic()
        self.out = open(os.path.join(self.tmp, 'broker.out'), 'a')
        self.proc = started(subprocess.Popen(self.java + ['kafka.Kafka', self.props], stdout=self.out,
                                             stderr=subprocess.STDOUT))
        if not wait_port(self.port, 90):
            fail('Kafka did not listen on %d: %s' % (self.port, open(os.path.join(self.tmp, 'broker.out')).read()[-3000:]))
        print('info: Kafka broker listening after %.1f s' % (time.monotonic() - t), flush=True)
        return self

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def consume(k, topic, count, idle_s=15):
    r = subprocess.run([CONSUME, '127.0.0.1:%d' % k.port, topic, str(count), str(idle_s)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=180)
    msgs = []
    import json
    for line in r.stdout.splitlines():
        part, off, key, payload = line.split(' ', 3)
        msgs.append((int(part), int(off), key, json.loads(payload)))
    return msgs


def kafka_args(k, *more):
    return ['transport=kafka', 'brokers=127.0.0.1:%d' % k.port, 'stats-interval=250', 'reconnect-min=100',
            'reconnect-max=1000'] + list(more)


def case_order(k):
    """Two cameras at once into a 3-partition topic: each camera's messages in order."""
    procs = [feed_async(kafka_args(k, 'camera-id=' + cam, 'topic=order-test', 'events=false'), 300, 0)
             for cam in ('camA', 'camB')]
    results = [feed_result(p) for p in procs]
    for rc, out in results:
        st = last_stats(out)
        check(rc == 0 and st['sent'] == 300 and st['dropped'] == 0 and not bus(out, 'error'),
              'camera sent 300: %s' % st)
    msgs = consume(k, 'order-test', 600)
    check(len(msgs) == 600, '600 messages in order-test (%d)' % len(msgs))
    validate_all([('order-test', m) for _, _, _, m in msgs])
    for cam in ('camA', 'camB'):
        mine = [(p, o, m) for p, o, key, m in msgs if key == cam]
        parts = {p for p, _, _ in mine}
        got = [m['seq'] for _, _, m in sorted(mine, key=lambda x: x[1])]
        check(len(parts) == 1, '%s: one partition (%s)' % (cam, parts))
        check(got == list(range(1, 301)) and all(m['camera'] == cam for _, _, m in mine),
              '%s: seq 1..300 in offset order, once each' % cam)


def case_restart(k):
    """The broker SIGKILLed 2 s into a 50 fps stream and restarted 3 s later."""
    # eos-timeout: a restarted broker (a JVM on a busy machine) may take its time to lead again
    p = feed_async(kafka_args(k, 'camera-id=camR', 'topic=restart-test', 'events=false', 'eos-timeout=60000'), 400, 50)
    time.sleep(2.0)
    k.stop(signal.SIGKILL)
    time.sleep(3.0)
    k.start()
    rc, out = feed_result(p, timeout=180)
    st = last_stats(out)
    check(rc == 0, 'feed ran')
    check(st['sent'] == 400 and st['dropped'] == 0 and st['unsent'] == 0 and st['failed'] == 0,
          'all 400 acknowledged after the restart: %s' % st)
    queued = max(l['queued'] for l in bus(out, 'tflite-publish-stats'))
    check(queued > 50, 'up to %d messages waited during the outage' % queued)
    msgs = consume(k, 'restart-test', 400)
    validate_all([('restart-test', m) for _, _, _, m in msgs])
    got = [m['seq'] for _, _, _, m in sorted(msgs, key=lambda x: x[1])]
    check(got == list(range(1, 401)), 'seq 1..400 once each, in order (%d messages, %d distinct)' %
          (len(got), len(set(got))))


def case_events(k):
    """Frame and event messages on their own topics, keyed by camera."""
    rc, out = feed(kafka_args(k, 'camera-id=camE', 'topic=frames-{camera}', 'event-topic=events-{camera}'), 60)
    st = last_stats(out)
    check(rc == 0 and st['sent'] == st['pushed'] == 64, 'frames and events sent: %s' % st)
    frames = consume(k, 'frames-camE', 60)
    events = consume(k, 'events-camE', 4)
    check(len(frames) == 60 and len(events) == 4, '60 frames on frames-camE, 4 events on events-camE')
    validate_all([('f', m) for _, _, _, m in frames + events])
    check(all(key == 'camE' for _, _, key, _ in frames + events), 'every message keyed by the camera id')


def case_config(k):
    """Settings librdkafka refuses: the element does not start and names the setting."""
    rc, out = feed(kafka_args(k, 'kafka-options=linger.ms=5;no.such.option=1'), 5)
    errs = bus(out, 'error')
    check(rc == 2 and errs and 'no.such.option' in errs[0]['text'], 'unknown option named: %s' %
          (errs[0]['text'] if errs else None))
    rc, out = feed(kafka_args(k, 'kafka-options=security.protocol=ssl;ssl.ca.location=/nonexistent/ca.pem'), 5)
    errs = bus(out, 'error')
    check(rc == 2 and errs and 'ca.pem' in errs[0]['text'] + errs[0]['debug'], 'unreadable TLS CA named: %s' %
          (errs[0]['text'] if errs else None))
    rc, out = feed(['transport=kafka', 'topic=cameras/{camera}'], 5)
    errs = bus(out, 'error')
    check(rc == 2 and errs and 'Kafka topic' in errs[0]['text'], 'topic with "/" refused: %s' %
          (errs[0]['text'] if errs else None))


if __name__ == '__main__':
    tmp = tmpdir('kafka')
    k = Kafka(tmp).start()
    try:
        case_config(k)
        case_order(k)
        case_events(k)
        case_restart(k)
    finally:
        k.stop()
    print('PASS', flush=True)
