"""test_file.py - tflitepublish transport=file: JSON lines to a file (rotated by size) or to
standard output, no broker. Every line is parsed by Python's json and checked against
docs/results-schema.json; the sequence numbers say nothing was lost or reordered."""
import json
import os
import subprocess

from brokers import FEED, bus, check, feed, last_stats, tmpdir, validate_all


def read_lines(path):
    with open(path) as f:
        text = f.read()
    check(text == '' or text.endswith('\n'), '%s ends with a whole line' % os.path.basename(path))
    return [json.loads(l) for l in text.splitlines()]


def case_file():
    tmp = tmpdir('file')
    out_path = os.path.join(tmp, 'results.jsonl')
    # stats-interval of an hour: the periodic report comes once, at start; `stats` read at
    # EOS must still count every message
    rc, out = feed(['transport=file', 'location=' + out_path, 'camera-id=cam1', 'stats-interval=3600000'], frames=60)
    check(rc == 0, 'feed ran')
    msgs = read_lines(out_path)
    validate_all([('file', m) for m in msgs])
    n = len(msgs)
    check([m['seq'] for m in msgs] == list(range(1, n + 1)), '%d lines, sequence numbers 1..%d in order' % (n, n))
    frames = [m for m in msgs if m['type'] == 'frame']
    check(sorted(m['frame'] for m in frames) == list(range(60)), '60 frame lines')
    got = sorted((m['frame'], m['event'], m['track']) for m in msgs if m['type'] == 'event')
    check(got == [(0, 'enter', 1), (20, 'enter', 2), (40, 'leave', 2), (60, 'leave', 1)], 'track events %s' % got)
    eos = [l for l in out if 'eos_stats' in l]
    check(len(eos) == 1 and eos[0]['pushed'] == n and eos[0]['sent'] == n and eos[0]['queued'] == 0,
          '`stats` read at EOS is final: %s' % eos)
    check(not bus(out, 'warning') and not bus(out, 'error'), 'no warning or error')

    # appending: a second run adds its lines after the first run's
    rc, out = feed(['transport=file', 'location=' + out_path, 'camera-id=cam2', 'events=false'], frames=10)
    both = read_lines(out_path)
    check(rc == 0 and len(both) == n + 10 and all(m['camera'] == 'cam2' for m in both[n:]),
          'a second run appends 10 lines')


def case_rotate():
    tmp = tmpdir('rotate')
    path = os.path.join(tmp, 'r.jsonl')
    limit = 8192
    rc, out = feed(['transport=file', 'location=' + path, 'max-file-bytes=%d' % limit, 'max-files=3',
                    'events=false'], frames=200)
    check(rc == 0, 'feed ran')
    names = sorted(os.listdir(tmp))
    check(names == ['r.jsonl', 'r.jsonl.1', 'r.jsonl.2', 'r.jsonl.3'], 'current file and 3 rotated ones: %s' % names)
    sizes = [os.path.getsize(os.path.join(tmp, x)) for x in names]
    check(all(0 < s <= limit for s in sizes), 'every file at most %d bytes: %s' % (limit, sizes))
    kept = []
    for name in ['r.jsonl.3', 'r.jsonl.2', 'r.jsonl.1', 'r.jsonl']:
        kept += read_lines(os.path.join(tmp, name))
    validate_all([('file', m) for m in kept])
    seq = [m['seq'] for m in kept]
    check(seq == list(range(201 - len(seq), 201)),
          'oldest to newest file: the last %d of 200 messages, consecutive (seq %d..200)' % (len(seq), seq[0]))
    check(last_stats(out)['sent'] == 200, 'all 200 written')


def case_stdout():
    # no location: the lines go to standard output, between publish_feed's own lines
    rc, out = feed(['transport=file', 'camera-id=cam1', 'events=false'], frames=30)
    msgs = [l for l in out if 'type' in l and 'seq' in l]
    check(rc == 0 and [m['seq'] for m in msgs] == list(range(1, 31)), '30 lines on standard output, in order')
    validate_all([('stdout', m) for m in msgs])


def case_refused():
    tmp = tmpdir('refused')
    target = os.path.join(tmp, 'elsewhere.txt')
    with open(target, 'w') as f:
        f.write('keep\n')
    link = os.path.join(tmp, 'link.jsonl')
    os.symlink(target, link)
    rc, out = feed(['transport=file', 'location=' + link], frames=5)
    errors = [e['text'] for e in bus(out, 'error')]
    check(rc == 2 and any('symbolic link' in e and link in e for e in errors),
          'a symbolic link fails the start, named: %s' % errors)
    check(open(target).read() == 'keep\n', 'the link target is untouched')
    rc, out = feed(['transport=file', 'location=' + tmp], frames=5)
    errors = [e['text'] for e in bus(out, 'error')]
    check(rc == 2 and any('directory' in e and tmp in e for e in errors), 'a directory fails the start: %s' % errors)


def case_launch():
    """gst-launch-1.0: qos=true is GstBaseTransform's (the MQTT one is mqtt-qos now), and the
    file transport in a real pipeline (frames without objects still make lines)."""
    tmp = tmpdir('launch')
    path = os.path.join(tmp, 'l.jsonl')
    r = subprocess.run(['gst-launch-1.0', '-q', 'videotestsrc', 'num-buffers=5', '!', 'tflitepublish', 'qos=true',
                        'mqtt-qos=2', 'transport=file', 'location=' + path, '!', 'fakesink'],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    check(r.returncode == 0, 'gst-launch-1.0 with qos=true mqtt-qos=2 ran: %s' % r.stdout[-500:])
    msgs = read_lines(path)
    validate_all([('file', m) for m in msgs])
    check([m['frame'] for m in msgs] == list(range(5)), '5 frame lines from videotestsrc')


def case_full():
    """Writes that fail (a file size limit, as a full disk would): the partial line is cut
    off, one warning names the file and the reason however many retries follow, nothing
    written is out of order, and EOS says how many messages did not make it."""
    import resource
    import signal
    tmp = tmpdir('full')
    path = os.path.join(tmp, 'f.jsonl')
    limit = 5000

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG from write instead of a signal

    cmd = [FEED, '--frames', '20', '--fps', '50', 'transport=file', 'location=' + path, 'events=false',
           'reconnect-min=100', 'reconnect-max=200', 'eos-timeout=300', 'stats-interval=3600000']
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60,
                       preexec_fn=small_files)
    out = [json.loads(l) for l in p.stdout.splitlines()]
    check(p.returncode == 0, 'feed ran')
    msgs = read_lines(path)
    k = len(msgs)
    check(0 < k < 20 and os.path.getsize(path) <= limit, '%d whole lines (%d bytes), the cut line removed'
          % (k, os.path.getsize(path)))
    check([m['seq'] for m in msgs] == list(range(1, k + 1)), 'lines 1..%d in order' % k)
    outage = [w['text'] for w in bus(out, 'warning') if path in w['text'] and 'File too large' in w['text']]
    downs = [l for l in bus(out, 'tflite-publish-state') if l['state'] == 'disconnected']
    check(len(outage) == 1 and len(downs) >= 2, 'one warning over %d failed tries: %s' % (len(downs), outage))
    eos = [l for l in out if 'eos_stats' in l][0]
    at_eos = [w['text'] for w in bus(out, 'warning') if w['text'].startswith('At EOS')]
    check(eos['pushed'] == 20 and eos['sent'] == k and len(at_eos) == 1 and (' %d of 20 ' % (20 - k)) in at_eos[0],
          'EOS: %d sent, the warning says %d of 20 not delivered: %s' % (k, 20 - k, at_eos))


if __name__ == '__main__':
    import sys
    cases = {k[5:]: v for k, v in globals().items() if k.startswith('case_')}
    if len(sys.argv) != 2 or sys.argv[1] not in cases:
        print('usage: test_file.py %s' % '|'.join(cases))
        sys.exit(1)
    cases[sys.argv[1]]()
    print('PASS', flush=True)
