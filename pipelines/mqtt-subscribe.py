#!/usr/bin/env python3
"""mqtt-subscribe.py - prints what tflitepublish sends, one line per message.

Subscribes with mosquitto_sub (Debian's mosquitto-clients) and turns each JSON message
(docs/results-schema.md) into a line such as

  astronaut  frame 3   t=0.300s  detection face 0.92 [188,83 97x97] 6 keypoints
  astronaut  EVENT enter track 1: detection person 0.91

Usage: pipelines/mqtt-subscribe.py [--host H] [--port P] [--topic 'cameras/#'] [--count N] [--raw]
--count N stops after N messages; --raw prints the JSON as it came.
"""
import argparse
import json
import signal
import subprocess
import sys


def describe(o):
    text = o['kind']
    if o.get('label') or o.get('class_id') is not None:
        text += ' %s' % (o.get('label') or o['class_id'])
    if o.get('score') is not None:
        text += ' %.2f' % o['score']
    if o['kind'] == 'detection':
        b = o['box']
        text += ' [%d,%d %dx%d]' % (b['x'], b['y'], b['w'], b['h'])
    if o.get('track'):
        text += ' track %d' % o['track']
    if o.get('classes') and o['kind'] == 'classification':
        text += ' (' + ', '.join('%s %.2f' % (c['label'] or c['id'], c['score']) for c in o['classes'][:3]) + ')'
    if o.get('keypoints'):
        text += ' %d keypoints' % len(o['keypoints'])
    if o.get('mask'):
        m = o['mask']
        areas = ', '.join('%s %.1f%%' % (a['label'] or a['id'], 100 * a['fraction']) for a in m['areas'][:4])
        text += ' mask %dx%d: %s%s' % (m['width'], m['height'], areas, ' +png' if 'png' in m else '')
    return text


def line(msg):
    head = '%-10s' % msg['camera']
    if msg['type'] == 'event':
        return '%s EVENT %s track %d (%s): %s' % (head, msg['event'], msg['track'], msg['reason'],
                                                  describe(msg['object']))
    t = '%.3fs' % (msg['pts_ns'] / 1e9) if msg['pts_ns'] is not None else '-'
    objs = '; '.join(describe(o) for o in msg['objects']) or 'no objects'
    return '%s frame %-4d t=%-8s %s' % (head, msg['frame'], t, objs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--host', default='localhost')
    ap.add_argument('--port', type=int, default=1883)
    ap.add_argument('--topic', default='cameras/#')
    ap.add_argument('--count', type=int, default=0, help='stop after N messages (0: never)')
    ap.add_argument('--raw', action='store_true', help='print the JSON as it came')
    a = ap.parse_args()
    cmd = ['mosquitto_sub', '-h', a.host, '-p', str(a.port), '-t', a.topic, '-v', '-q', '1']
    if a.count:
        cmd += ['-C', str(a.count)]
    try:
        sub = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    except FileNotFoundError:
        sys.exit('mqtt-subscribe.py: mosquitto_sub not found (apt-get install mosquitto-clients)')
    # stopped by its script (SIGTERM): take mosquitto_sub along
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        for raw in sub.stdout:
            topic, _, payload = raw.rstrip('\n').partition(' ')
            if a.raw:
                print(topic, payload, flush=True)
                continue
            try:
                print(line(json.loads(payload)), flush=True)
            except (ValueError, KeyError) as e:
                print('%s: not a tflitepublish message (%s): %s' % (topic, e, payload[:200]), flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        if sub.poll() is None:
            sub.terminate()
    sys.exit(sub.wait() if a.count else 0)


if __name__ == '__main__':
    main()
