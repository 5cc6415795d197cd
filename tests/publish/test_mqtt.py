"""test_mqtt.py CASE - tflitepublish against a real Mosquitto started here on a free loopback
port. Cases: schema, restart, limits, spill, timing, tls, auth, unreachable, models (meson runs each as
its own test). Every message received is checked against docs/results-schema.json."""
import base64
import os
import signal
import statistics
import struct
import subprocess
import sys
import time
import zlib

from brokers import (Mosquitto, Subscriber, bus, check, fail, feed, feed_async, feed_result, last_stats,
                     make_ca, seqs, tmpdir, validate_all)

FAST = ['reconnect-min=100', 'reconnect-max=1000', 'stats-interval=250']


def base_args(broker, *more):
    return ['host=127.0.0.1', 'port=%d' % broker.port, 'camera-id=cam1', 'mqtt-qos=1'] + FAST + list(more)


def wait_all(sub, n, timeout=20):
    """Until n distinct sequence numbers arrived."""
    return sub.wait_for(lambda lines: len({l[1].split('"seq":', 1)[1].split(',', 1)[0] for l in lines}) >= n,
                        timeout)


def case_schema():
    tmp = tmpdir('schema')
    b = Mosquitto(tmp).start()
    sub = Subscriber(b.port)
    time.sleep(0.3)
    rc, out = feed(base_args(b), frames=60)
    check(rc == 0, 'feed ran')
    st = last_stats(out)
    n = st['pushed']
    check(st['sent'] == n and st['dropped'] == 0 and st['unsent'] == 0, 'all %d messages acknowledged: %s' % (n, st))
    check(wait_all(sub, n), '%d messages arrived' % n)
    msgs = sub.messages()
    validate_all(msgs)
    check(sorted(set(seqs(msgs))) == list(range(1, n + 1)), 'sequence numbers 1..%d, none missing' % n)
    frames = [m for t, m in msgs if t == 'cameras/cam1/objects']
    events = [m for t, m in msgs if t == 'cameras/cam1/events']
    check(all(m['type'] == 'frame' for m in frames) and len({m['frame'] for m in frames}) == 60,
          '60 frame messages on cameras/cam1/objects')
    f0 = min(frames, key=lambda m: m['frame'])
    kinds = [o['kind'] for o in f0['objects']]
    check(kinds == ['detection', 'classification', 'segmentation'], 'frame 0 objects: %s' % kinds)
    det, cls, seg = f0['objects']
    check(cls['parent'] == det['id'] and det['track'] == 1 and det['label'] == 'person' and len(det['keypoints']) == 2,
          'parent link, track id, label and keypoints of frame 0')
    areas = {a['id']: a['fraction'] for a in seg['mask']['areas']}
    want = {c: sum(1 for p in range(64) if p % 3 == c) / 64 for c in range(3)}
    check(all(abs(areas[c] - want[c]) < 1e-6 for c in range(3)), 'mask areas of frame 0: %s' % areas)
    got = sorted((m['frame'], m['event'], m['track'], m['reason'], m['frames_seen']) for m in events)
    want_ev = [(0, 'enter', 1, 'new', 1), (20, 'enter', 2, 'new', 1), (40, 'leave', 2, 'lost', 20),
               (60, 'leave', 1, 'eos', 60)]
    check(got == want_ev, 'track events %s' % got)

    # QoS 0 (written, not acknowledged) and QoS 2 to the same broker: all arrive
    for qos in (0, 2):
        sub_q = Subscriber(b.port, topic='qos%d/#' % qos)
        time.sleep(0.3)
        rc, out = feed(base_args(b, 'mqtt-qos=%d' % qos, 'topic=qos%d/objects' % qos, 'events=false'), frames=200)
        st = last_stats(out)
        check(rc == 0 and st['sent'] == 200 and st['dropped'] == 0, 'QoS %d: 200 sent' % qos)
        check(wait_all(sub_q, 200), 'QoS %d: 200 arrived' % qos)
        check(sorted(set(seqs(sub_q.messages()))) == list(range(1, 201)), 'QoS %d: seq 1..200' % qos)
        sub_q.stop()

    # rate=10 at 100 fps of stream time: one frame in ten; changes-only: frames where track 2 came or went
    sub2 = Subscriber(b.port, topic='opts/#')
    time.sleep(0.3)
    rc, out = feed(base_args(b, 'topic=opts/rate', 'events=false', 'rate=10'), frames=100, fps=0)
    rc2, out2 = feed(base_args(b, 'topic=opts/changes', 'events=false', 'changes-only=true'), frames=100)
    check(rc == 0 and rc2 == 0, 'rate and changes-only feeds ran')
    check(sub2.wait_for(lambda l: len(l) >= 15, 10), 'rate / changes-only messages arrived')
    time.sleep(0.5)
    m2 = sub2.messages()
    rate = sorted(m['frame'] for t, m in m2 if t == 'opts/rate')
    # publish_feed stamps frames 1/30 s apart when --fps is 0: at most one in three passes at 10/s
    check(rate == list(range(0, 100, 3)), 'rate=10 on 30 fps keeps every third frame: %s' % rate)
    changes = sorted(m['frame'] for t, m in m2 if t == 'opts/changes')
    check(changes == [0, 20, 40, 60, 80], 'changes-only frames %s' % changes)
    sub.stop()
    sub2.stop()
    b.stop()


def missing_and_window(msgs, n, kill_wall):
    """Missing sequence numbers, each with the wall times of its received neighbours."""
    by_seq = {}
    for _, m in msgs:
        by_seq.setdefault(m['seq'], m['wall_time_us'] / 1e6)
    out = []
    for s in range(1, n + 1):
        if s in by_seq:
            continue
        lo = max((by_seq[k] for k in by_seq if k < s), default=0)
        hi = min((by_seq[k] for k in by_seq if k > s), default=float('inf'))
        out.append((s, lo, hi))
    return out


def case_restart():
    """QoS 1, the broker SIGKILLed mid-stream and restarted 3 s later."""
    tmp = tmpdir('restart')
    b = Mosquitto(tmp).start()
    sub = Subscriber(b.port)
    time.sleep(0.3)
    p = feed_async(base_args(b, 'max-inflight=50'), frames=400, fps=50)
    time.sleep(2.0)
    kill_wall = time.time()
    b.stop(signal.SIGKILL)
    time.sleep(3.0)
    b.start()
    restart_wall = time.time()
    rc, out = feed_result(p)
    check(rc == 0, 'feed ran')
    st = last_stats(out)
    n = st['pushed']
    check(st['dropped'] == 0 and st['unsent'] == 0 and st['disconnects'] >= 1,
          'queued through the outage, nothing dropped or left: %s' % st)
    states = [(l['state'], l.get('reason')) for l in bus(out, 'tflite-publish-state')]
    check(('disconnected', 'network') in states and states[-1][0] == 'connected',
          'state messages: connected, disconnected (network), connected again')
    where = '127.0.0.1:%d' % b.port
    warned = [l['text'] for l in bus(out, 'warning')]
    back = [l['text'] for l in bus(out, 'info') if 'again' in l['text']]
    check(len(warned) == 1 and where in warned[0] and len(back) == 1 and where in back[0],
          'one warning for the outage and one message when it was over: %s %s' % (warned, back))
    down = [l for l in bus(out, 'tflite-publish-stats') if l['state'] != 'connected' and l['queued'] > 0]
    check(len(down) > 0, 'stats during the outage show queued messages (max %d)' % max(l['queued'] for l in down))
    sub.wait_for(lambda lines: False, 0)
    wait_all(sub, n, 20)
    msgs = sub.messages()
    validate_all(msgs)
    got = seqs(msgs)
    missing = missing_and_window(msgs, n, kill_wall)
    late = [s for s, lo, hi in missing if lo >= kill_wall]
    check(not late, 'every message made after the kill arrived (missing: %s)' % late[:20])
    early = [s for s, lo, hi in missing if lo < kill_wall - 2.0]
    check(not early, 'nothing lost before the 2 s restart window (missing: %s)' % early[:20])
    # what the broker acknowledged but had not yet passed on to the subscriber dies with it:
    # at most its in-flight window towards the subscriber (20)
    check(len(missing) <= 20, '%d of %d lost at the kill (acknowledged by the broker, not yet delivered)'
          % (len(missing), n))
    dups = sorted({s for s in got if got.count(s) > 1})
    wall = {m['seq']: m['wall_time_us'] / 1e6 for _, m in msgs}
    check(all(wall[s] < kill_wall + 0.5 for s in dups), 'duplicates only of messages from before the kill')
    check(len(dups) <= 50 + 20, '%d duplicates: at most the in-flight window (50) + the broker\'s to the subscriber (20)'
          % len(dups))
    after = [m for _, m in msgs if m['wall_time_us'] / 1e6 >= restart_wall + 1]
    check(len(after) > 0, '%d messages made after the restart arrived' % len(after))
    sub.stop()
    b.stop()


def outage_run(name, args, frames=300, fps=50, down_at=1.0, down_for=3.0):
    """A run with a clean broker stop (SIGTERM: it saves its sessions) and a restart."""
    tmp = tmpdir(name)
    b = Mosquitto(tmp).start()
    sub = Subscriber(b.port)
    time.sleep(0.3)
    p = feed_async(base_args(b, *[a.replace('@TMP@', tmp) for a in args]), frames=frames, fps=fps)
    time.sleep(down_at)
    b.stop(signal.SIGTERM)
    time.sleep(down_for)
    b.start()
    rc, out = feed_result(p)
    check(rc == 0, 'feed ran')
    st = last_stats(out)
    wait_all(sub, st['sent'], 20)
    time.sleep(0.5)
    msgs = sub.messages()
    validate_all(msgs)
    sub.stop()
    b.stop()
    return out, st, msgs


def case_limits():
    out, st, msgs = outage_run('limits', ['max-queue-messages=50'])
    n = st['pushed']
    got = set(seqs(msgs))
    missing = sorted(set(range(1, n + 1)) - got)
    check(st['dropped'] > 0 and st['dropped'] == st['dropped-queue'], 'the queue limit dropped %d' % st['dropped'])
    check(len(missing) == st['dropped'], '%d missing at the subscriber == %d counted as dropped' %
          (len(missing), st['dropped']))
    check(missing == list(range(missing[0], missing[0] + len(missing))),
          'drop=oldest: the missing ones are one run of the oldest queued (%d..%d)' % (missing[0], missing[-1]))
    drops = [l for l in bus(out, 'tflite-publish-stats') if l['dropped'] > 0]
    check(drops and drops[0]['state'] != 'connected', 'a stats message reported the drops during the outage')


def case_spill():
    out, st, msgs = outage_run('spill', ['max-queue-messages=20', 'spill-file=@TMP@/spill.ring',
                                         'spill-max-bytes=4194304'])
    n = st['pushed']
    got = seqs(msgs)
    check(set(got) == set(range(1, n + 1)) and st['dropped'] == 0, 'all %d arrived through the spill file' % n)
    spilled = max(l['spilled'] for l in bus(out, 'tflite-publish-stats'))
    check(spilled > 20, 'up to %d messages waited in the spill file' % spilled)
    first = []
    seen = set()
    for s in got:
        if s not in seen:
            seen.add(s)
            first.append(s)
    check(first == sorted(first), 'spilled messages were sent in order')


def phase(timing, start, end):
    d = [dur for t, dur in timing if start <= t < end]
    if len(d) < 20:
        fail('only %d frames in a timing phase' % len(d))
    d.sort()
    return {'n': len(d), 'median': d[len(d) // 2], 'p90': d[len(d) * 9 // 10], 'max': d[-1]}


def case_timing():
    """The streaming thread's per-frame time with the broker up, hung (SIGSTOP) and gone."""
    tmp = tmpdir('timing')
    b = Mosquitto(tmp).start()
    tfile = os.path.join(tmp, 'timing.txt')
    p = feed_async(base_args(b, 'max-queue-messages=100000'), frames=800, fps=100, timing=tfile)
    t0 = time.monotonic()
    time.sleep(2.5)
    t_stop = time.monotonic()
    b.pause()
    time.sleep(2.0)
    t_cont = time.monotonic()
    b.resume()
    time.sleep(0.5)
    t_kill = time.monotonic()
    b.stop(signal.SIGKILL)
    time.sleep(2.0)
    t_restart = time.monotonic()
    b.start()
    rc, out = feed_result(p)
    check(rc == 0, 'feed ran')
    timing = []
    with open(tfile) as f:
        for line in f:
            t, d = line.split()
            timing.append((int(t) / 1e6, int(d)))
    up = phase(timing, t0 + 0.5, t_stop)
    hung = phase(timing, t_stop + 0.1, t_cont)
    gone = phase(timing, t_kill + 0.1, t_restart)
    print('info: per-frame push time (us) up %s hung %s gone %s' % (up, hung, gone))
    for name, ph in (('hung', hung), ('gone', gone)):
        check(ph['median'] <= 2 * up['median'] + 200, '%s: median %d us vs %d us with the broker up' %
              (name, ph['median'], up['median']))
        check(ph['p90'] <= 3 * up['p90'] + 500, '%s: p90 %d us vs %d us' % (name, ph['p90'], up['p90']))
        # a wait on the network would be the broker's whole pause (>= 1 s)
        check(ph['max'] < 200000, '%s: the slowest frame took %d us (< 200 ms)' % (name, ph['max']))
    st = last_stats(out)
    check(st['dropped'] == 0 and st['unsent'] == 0, 'nothing dropped: %s' % st)
    b.stop()


def case_tls():
    tmp = tmpdir('tls')
    ca = make_ca(tmp, 'good')
    other = make_ca(tmp, 'other')
    extra = '\n'.join(['cafile ' + ca['ca'], 'certfile ' + ca['server'], 'keyfile ' + ca['server_key'],
                       'require_certificate true'])
    b = Mosquitto(tmp, extra=extra).start()
    sub = Subscriber(b.port, extra=['--cafile', ca['ca'], '--cert', ca['client'], '--key', ca['client_key']])
    time.sleep(0.5)
    tls = ['tls-ca-file=' + ca['ca'], 'tls-cert-file=' + ca['client'], 'tls-key-file=' + ca['client_key']]
    rc, out = feed(base_args(b, *tls), frames=30)
    st = last_stats(out)
    check(rc == 0 and st['sent'] == st['pushed'] and not bus(out, 'error'), 'TLS with a client certificate: %s' % st)
    check(wait_all(sub, st['pushed']), 'messages over TLS arrived')
    validate_all(sub.messages())
    # a broker certificate from a CA we do not trust: an element error naming TLS
    rc, out = feed(base_args(b, 'tls-ca-file=' + other['ca'], 'tls-cert-file=' + ca['client'],
                             'tls-key-file=' + ca['client_key']), frames=100, fps=50)
    errs = bus(out, 'error')
    check(errs and 'TLS' in errs[0]['text'], 'untrusted broker certificate: error "%s" (%s)' %
          (errs[0]['text'] if errs else None, errs[0]['debug'][:200] if errs else ''))
    # a CA file that is not there: the element does not start, and says which file
    rc, out = feed(base_args(b, 'tls-ca-file=' + tmp + '/missing-ca.pem'), frames=5)
    errs = bus(out, 'error')
    check(rc == 2 and errs and 'missing-ca.pem' in errs[0]['text'], 'missing CA file named: %s' %
          (errs[0]['text'] if errs else None))
    sub.stop()
    b.stop()


def case_auth():
    tmp = tmpdir('auth')
    pw = os.path.join(tmp, 'passwords')
    subprocess.run(['mosquitto_passwd', '-b', '-c', pw, 'camera', 's3cret'], check=True)
    b = Mosquitto(tmp, extra='allow_anonymous false\npassword_file ' + pw).start()
    sub = Subscriber(b.port, extra=['-u', 'camera', '-P', 's3cret'])
    time.sleep(0.3)
    rc, out = feed(base_args(b, 'username=camera', 'password=s3cret'), frames=20)
    st = last_stats(out)
    check(rc == 0 and st['sent'] == st['pushed'] and not bus(out, 'error'), 'right password: all sent')
    check(wait_all(sub, st['pushed']), 'messages arrived')
    t = time.monotonic()
    rc, out = feed(base_args(b, 'username=camera', 'password=wrong'), frames=50, fps=50)
    errs = bus(out, 'error')
    check(errs and 'refused the credentials' in errs[0]['text'] and '127.0.0.1' in errs[0]['text'],
          'wrong password: error "%s" / "%s"' % (errs[0]['text'] if errs else None,
                                                  errs[0]['debug'] if errs else None))
    check(len(errs) == 1, 'the error is posted once, not on every retry (%d)' % len(errs))
    st = last_stats(out)
    check(st['sent'] == 0, 'nothing was sent with the wrong password')
    sub.stop()
    b.stop()


def png_pixels(data):
    """Grey 8-bit PNG -> (width, height, bytes), decoded here (zlib + the five filters)."""
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        fail('not a PNG')
    pos, idat, w, h = 8, b'', 0, 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, color = struct.unpack('>IIBB', body[:10])
            if depth != 8 or color != 0:
                fail('PNG is not 8-bit grey')
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    out, prev = bytearray(), bytearray(w)
    for y in range(h):
        f, row = raw[y * (w + 1)], bytearray(raw[y * (w + 1) + 1:(y + 1) * (w + 1)])
        for x in range(w):
            a = row[x - 1] if x else 0
            b, c = prev[x], prev[x - 1] if x else 0
            if f == 1:
                row[x] = (row[x] + a) & 255
            elif f == 2:
                row[x] = (row[x] + b) & 255
            elif f == 3:
                row[x] = (row[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                row[x] = (row[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += row
        prev = row
    return w, h, bytes(out)


def case_models():
    """Real results: tflitefilter (CPU) on astronaut.png -> tflitepublish -> Mosquitto."""
    tmp = tmpdir('models')
    b = Mosquitto(tmp).start()
    sub = Subscriber(b.port)
    time.sleep(0.3)
    npm, pics = os.environ['TFL_NPM_MODELS'], os.environ['TFL_PICTURES']
    pic = os.path.join(pics, 'astronaut.png')
    # the GL path leaves the mask in a texture: tflitepublish downloads it
    for model, cam, gl in (('face_detection_short_range', 'faces', False), ('selfie_segmentation', 'selfie', False),
                           ('selfie_segmentation', 'selfiegl', True)):
        path = os.path.join(npm, model + '.tflite')
        for f in (path, pic):
            if not os.path.exists(f):
                fail('missing %s (models/fetch.sh, tests/fetch_pictures.sh)' % f)
        cmd = ['gst-launch-1.0', '-q', 'filesrc', 'location=' + pic, '!', 'pngdec', '!', 'imagefreeze',
               'num-buffers=3', '!', 'videoconvert', '!', 'video/x-raw,format=RGBA', '!'] + \
              (['glupload', '!'] if gl else []) + \
              ['tflitefilter', 'model=' + path, '!', 'tflitepublish', 'host=127.0.0.1', 'port=%d' % b.port,
               'camera-id=' + cam, 'mask=png', '!', 'fakesink']
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        check(r.returncode == 0, '%s pipeline ran %s' % (model, r.stdout[-500:]))
    check(sub.wait_for(lambda l: len(l) >= 9, 20), 'nine frame messages arrived')
    msgs = sub.messages()
    validate_all(msgs)
    faces = [m for t, m in msgs if t == 'cameras/faces/objects']
    dets = [o for o in faces[0]['objects'] if o['kind'] == 'detection']
    check(len(faces) == 3 and dets and dets[0]['score'] > 0.5 and len(dets[0]['keypoints']) == 6,
          'face detection: a face with 6 keypoints (score %.2f)' % (dets[0]['score'] if dets else -1))
    check(faces[0]['width'] == 512 and faces[0]['height'] == 512, 'frame size 512x512')
    selfie = [m for t, m in msgs if t == 'cameras/selfie/objects']
    seg = [o for o in selfie[0]['objects'] if o['kind'] == 'segmentation'][0]['mask']
    w, h, px = png_pixels(base64.b64decode(seg['png']))
    check((w, h) == (seg['width'], seg['height']), 'PNG is the mask size %dx%d' % (w, h))
    frac = sum(1 for p in px if p >= 128) / len(px)
    check(abs(frac - seg['areas'][0]['fraction']) < 1e-6 and 0.1 < frac < 0.9,
          'person share from the PNG (%.4f) equals the summary (%.4f)' % (frac, seg['areas'][0]['fraction']))
    for m in [m for t, m in msgs if t == 'cameras/selfiegl/objects']:
        glseg = [o for o in m['objects'] if o['kind'] == 'segmentation'][0]['mask']
        check('unavailable' not in glseg and 'png' in glseg, 'GL mask downloaded (frame %d)' % m['frame'])
        w2, h2, px2 = png_pixels(base64.b64decode(glseg['png']))
        frac2 = sum(1 for p in px2 if p >= 128) / len(px2)
        diff = sum(1 for a, b2 in zip(px, px2) if abs(a - b2) > 8) / len(px)
        check((w2, h2) == (w, h) and abs(frac2 - frac) < 0.02 and diff < 0.02,
              'GL mask: share %.4f vs CPU %.4f, %.2f%% of pixels differ by > 8/255' % (frac2, frac, 100 * diff))
    sub.stop()
    b.stop()


def case_unreachable():
    """A publisher pointed at a closed port: one warning naming host, port and the reason,
    before its second try, however many tries follow; an info message when the broker
    comes; then everything arrives and `stats` read at EOS is final."""
    tmp = tmpdir('unreachable')
    b = Mosquitto(tmp).start()
    # a persistent subscriber session, kept by the broker across its restart below
    sub = Subscriber(b.port)
    time.sleep(0.3)
    b.stop()  # the port is closed now: connections are refused
    retry = 1000
    p = feed_async(['host=127.0.0.1', 'port=%d' % b.port, 'camera-id=cam1', 'mqtt-qos=1', 'events=false',
                    'reconnect-min=%d' % retry, 'reconnect-max=%d' % retry, 'stats-interval=3600000'],
                   frames=200, fps=50)
    time.sleep(2.5)
    b.start()
    rc, out = feed_result(p)
    check(rc == 0, 'feed ran')
    warnings = bus(out, 'warning')
    where = '127.0.0.1:%d' % b.port
    check(len(warnings) == 1, 'one warning for the outage: %s' % [w['text'] for w in warnings])
    w = warnings[0]
    check(where in w['text'] and 'Connection refused' in w['text'] and 'MQTT broker' in w['text'],
          'the warning names host, port and reason: %s' % w['text'])
    tries = [l for l in bus(out, 'tflite-publish-state') if l['state'] == 'connecting']
    downs = [l for l in bus(out, 'tflite-publish-state') if l['state'] == 'disconnected']
    check(len(downs) >= 2, '%d failed tries during the outage, still one warning' % len(downs))
    after = (w['t_us'] - tries[0]['t_us']) / 1000
    check(after < retry and w['t_us'] < tries[1]['t_us'],
          'the warning came %.0f ms after the first try, before the second (reconnect %d ms)' % (after, retry))
    infos = [l for l in bus(out, 'info') if 'again' in l['text'] and where in l['text']]
    check(len(infos) == 1 and infos[0]['t_us'] > w['t_us'], 'recovery message: %s' % [i['text'] for i in infos])
    eos = [l for l in out if 'eos_stats' in l]
    check(len(eos) == 1 and eos[0].get('pushed') == 200 and eos[0].get('sent') == 200,
          '`stats` read at EOS is final (stats-interval one hour): %s' % eos)
    check(wait_all(sub, 200), '200 messages arrived')
    validate_all(sub.messages())
    sub.stop()
    b.stop()


if __name__ == '__main__':
    cases = {k[5:]: v for k, v in globals().items() if k.startswith('case_')}
    if len(sys.argv) != 2 or sys.argv[1] not in cases:
        fail('usage: test_mqtt.py %s' % '|'.join(cases))
    cases[sys.argv[1]]()
    print('PASS', flush=True)
