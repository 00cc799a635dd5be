#!/usr/bin/env python3
"""Says on which CPUs it may run (`cpus=0,1` on stderr), then exits at its first request: the crash fault
keeps that line in its stderr tail, so a test reads every bot's CPUs from the store."""

import json
import os
import sys

for line in sys.stdin:
    kind = json.loads(line).get("type")
    if kind == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "affinity", "version": "1"}), flush=True)
    elif kind == "request":
        print("cpus=" + ",".join(str(cpu) for cpu in sorted(os.sched_getaffinity(0))), file=sys.stderr, flush=True)
        sys.exit(1)
