#!/usr/bin/env python3
"""check_no_globals.py LIB.a...: fails when a library of runtime/, postproc/, decoders/,
preprocess/ or delegates/ has a writable variable (a global, file-scope or function-local static in
.data/.bss/.tdata/.tbss), i.e. state shared by every interpreter of the process.

The one allowed exception is XNNPACK's one-time initialization in
delegates/cpu/xnn_partition.c (pthread_once; see the comment there). AddressSanitizer's own
one-definition-rule markers (__odr_asan.NAME, one byte per global it instruments, written by
its runtime only) are not our state and are skipped, so the check also runs in build-asan."""
import re
import subprocess
import sys

ALLOWED = {('xnn_partition.c.o', 'init_once'), ('xnn_partition.c.o', 'init_status')}
WRITABLE = re.compile(r'^\.(data|bss|tdata|tbss)(\.rel(\.local)?)?(\..*)?$')
SYMBOL = re.compile(r'^[0-9a-f]+ .{7} (\S+)\s+[0-9a-f]+ (\S+)$')

bad = 0
for lib in sys.argv[1:]:
    out = subprocess.run(['objdump', '-t', lib], check=True, capture_output=True, text=True).stdout
    member = '?'
    for line in out.splitlines():
        if line.endswith('file format elf64-x86-64'):
            member = line.split(':')[0]
            continue
        m = SYMBOL.match(line)
        if not m or ' O ' not in line[16:26]:
            continue
        section, name = m.group(1), m.group(2)
        if not WRITABLE.match(section) or '.rel.ro' in section:
            continue
        if any(member.endswith(f) and name == n for f, n in ALLOWED):
            continue
        if name.startswith('__odr_asan.'):
            continue
        print('%s: %s: writable %s in %s' % (lib.split('/')[-1], member, name, section))
        bad += 1
print('%d librar%s, %d writable variable(s)' % (len(sys.argv) - 1, 'y' if len(sys.argv) == 2 else 'ies', bad))
sys.exit(1 if bad else 0)
