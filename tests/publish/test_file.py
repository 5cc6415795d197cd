"""test_file.py - tflitepublish transport=file: JSON lines to a file (rotated by size) or to
standard output, no broker. Every line is parsed by Python's json and checked against
docs/results-schema.json; the sequence numbers say nothing was lost or reordered."""
import json
import os
import subprocess

from brokers import bus, check, feed, last_stats, tmpdir, validate_all


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


if __name__ == '__main__':
    import sys
    cases = {k[5:]: v for k, v in globals().items() if k.startswith('case_')}
    if len(sys.argv) != 2 or sys.argv[1] not in cases:
        print('usage: test_file.py %s' % '|'.join(cases))
        sys.exit(1)
    cases[sys.argv[1]]()
    print('PASS', flush=True)
