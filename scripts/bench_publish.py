#!/usr/bin/python3
"""bench_publish.py - what tflitepublish sustains and what a broker outage costs, against
brokers started here on loopback (as the tests do).

  scripts/bench_publish.py throughput [--frames N]     MQTT QoS 0, QoS 1 and Kafka, messages/s
  scripts/bench_publish.py outage [--seconds S]        MQTT QoS 1 at 30 fps, broker away S s (30)

Messages are publish_feed's frames (detection + classification + 8x8 mask summary, about
1 KB of JSON, and track events). Throughput: frames pushed as fast as the streaming thread
can, the queue unbounded, timed from the first push until the broker acknowledged the last
message (EOS). Needs a build (BUILD_DIR, default build/) and, for Kafka, scripts/fetch_kafka.sh.
"""
import argparse
import os
import signal
import sys
import time

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = os.environ.get('BUILD_DIR', os.path.join(repo, 'build'))
os.environ.setdefault('PUBLISH_FEED', os.path.join(build, 'tests', 'publish', 'publish_feed'))
os.environ.setdefault('RESULTS_SCHEMA', os.path.join(repo, 'docs', 'results-schema.json'))
os.environ.setdefault('GST_PLUGIN_PATH', os.path.join(build, 'gst'))
os.environ.setdefault('KAFKA_FETCH', os.path.join(repo, 'scripts', 'fetch_kafka.sh'))
os.environ.setdefault('KAFKA_CONSUME', os.path.join(build, 'tests', 'publish', 'kafka_consume'))
sys.path.insert(0, os.path.join(repo, 'tests', 'publish'))

from brokers import Mosquitto, bus, feed, feed_async, feed_result, last_stats, tmpdir  # noqa: E402

BIG = ['max-queue-messages=10000000', 'max-queue-bytes=4000000000', 'eos-timeout=600000', 'stats-interval=1000']


def rate(out):
    st = last_stats(out)
    done = [l for l in out if l.get('feed') == 'done'][0]
    secs = done['run_us'] / 1e6
    return st, st['sent'] / secs, secs, done


def throughput(frames):
    tmp = tmpdir('bench')
    b = Mosquitto(tmp, persistence=False).start()
    for qos in (0, 1):
        rc, out = feed(['host=127.0.0.1', 'port=%d' % b.port, 'camera-id=bench', 'mqtt-qos=%d' % qos] + BIG,
                       frames=frames, timeout=900)
        st, r, secs, done = rate(out)
        print('MQTT QoS %d: %d messages in %.2f s = %.0f messages/s (dropped %d; push median %d us)'
              % (qos, st['sent'], secs, r, st['dropped'], done['push_us']['median']), flush=True)
    b.stop()
    from test_kafka import Kafka
    k = Kafka(tmp).start()
    try:
        for acks in (-1, 1):
            rc, out = feed(['transport=kafka', 'brokers=127.0.0.1:%d' % k.port, 'camera-id=bench',
                            'topic=bench', 'acks=%d' % acks, 'max-inflight=10000'] + BIG, frames=frames, timeout=900)
            st, r, secs, done = rate(out)
            print('Kafka acks=%d: %d messages in %.2f s = %.0f messages/s (dropped %d)'
                  % (acks, st['sent'], secs, r, st['dropped']), flush=True)
    finally:
        k.stop()


def outage(seconds, limit):
    tmp = tmpdir('outage')
    b = Mosquitto(tmp, persistence=False).start()
    fps, before, after = 30, 10, 20
    args = ['host=127.0.0.1', 'port=%d' % b.port, 'camera-id=outage', 'mqtt-qos=1', 'stats-interval=500',
            'eos-timeout=60000']
    if limit:
        args.append('max-queue-messages=%d' % limit)
    p = feed_async(args, frames=fps * (before + seconds + after), fps=fps)
    time.sleep(before)
    t_down = time.monotonic()
    b.stop(signal.SIGKILL)
    time.sleep(seconds)
    b.start()
    t_up = time.monotonic()
    rc, out = feed_result(p, timeout=600)
    stats = bus(out, 'tflite-publish-stats')
    during = [s for s in stats if t_down * 1e6 <= s['t_us'] <= t_up * 1e6]
    peak = max(s['queued'] for s in during)
    peak_bytes = max(s['queued-bytes'] for s in during)
    # drained: nothing waits any more (what is left is in flight: this frame's messages)
    drained = [s for s in stats if s['t_us'] > t_up * 1e6 and s['queued'] <= s['in-flight'] + 2
               and s['state'] == 'connected']
    back = [l for l in bus(out, 'tflite-publish-state') if l['t_us'] > t_up * 1e6 and l['state'] == 'connected']
    sent_down = max(s['sent'] for s in during)
    st = last_stats(out)
    print('MQTT QoS 1, %d fps, broker away %d s (max-queue-messages %s): queued up to %d messages (%.1f MB); '
          'reconnected %.1f s after the broker was back (backoff), queue drained %.1f s after that; '
          '%d sent after the outage; dropped %d, unsent %d, resent %d; push median %d us'
          % (fps, seconds, limit or 'default 10000', peak, peak_bytes / 1e6,
             (back[0]['t_us'] / 1e6 - t_up) if back else -1,
             (drained[0]['t_us'] - back[0]['t_us']) / 1e6 if drained and back else -1, st['sent'] - sent_down,
             st['dropped'], st['unsent'], st['resent'],
             [l for l in out if l.get('feed') == 'done'][0]['push_us']['median']), flush=True)
    b.stop()


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('what', choices=['throughput', 'outage'])
    ap.add_argument('--frames', type=int, default=20000)
    ap.add_argument('--seconds', type=int, default=30)
    ap.add_argument('--limit', type=int, default=0, help='outage: max-queue-messages (0: the default)')
    a = ap.parse_args()
    throughput(a.frames) if a.what == 'throughput' else outage(a.seconds, a.limit)
