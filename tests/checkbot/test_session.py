"""The probe session against hostile output: lines are bounded and clean, the process group is ended."""

from __future__ import annotations

import os
import sys
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.checkbot.runner import handshake
from arena.checkbot.session import MAX_LINE_BYTES, RAW_CHARS, BotSession, LineSplitter
from arena.errors import BotStartError
from arena.jsonvalue import loads

pytestmark = pytest.mark.process


def session(code: str) -> BotSession:
    return BotSession((sys.executable, "-c", code))


def test_huge_line_invalid_utf8_and_escapes_become_bounded_clean_text():
    bot = session(
        "import sys; out = sys.stdout.buffer;"
        f"out.write(b'x' * {MAX_LINE_BYTES + 10}); out.write(b'\\n');"
        "out.write(b'\\xff\\xfe not utf-8 \\x1b]0;title\\x07 \\x1b[2J\\n'); out.write(b'{\"id\": 1}\\r\\n'); out.flush()"
    )
    try:
        deadline = time.monotonic() + 10
        first, second, third = (bot.next_line(deadline) for _ in range(3))
        assert first.raw == f"a line over {MAX_LINE_BYTES} bytes"
        assert second.raw is not None and "not utf-8" in second.raw
        assert "\x1b" not in second.raw and "\x07" not in second.raw and len(second.raw) < 300
        assert third.is_json and third.message == {"id": 1}
        assert bot.next_line(deadline).eof
    finally:
        bot.close()


def test_a_hostile_hello_name_is_cleaned_and_bounded():
    name = "\\x1b[31m" + "n" * 500
    bot = session(
        "import sys, json; sys.stdin.readline();"
        f"print(json.dumps({{'type': 'hello', 'protocol': 1, 'name': '{name}'[:100], 'version': '1'}}), flush=True)"
    )
    try:
        result = handshake(bot, 5000)
        assert result.problem is None
        assert "\x1b" not in result.name and len(result.name) < 100
    finally:
        bot.close()


def test_close_kills_what_the_bot_started():
    bot = session("import subprocess, sys, time; p = subprocess.Popen(['sleep', '60']); print(p.pid, flush=True); time.sleep(60)")
    line = bot.next_line(time.monotonic() + 10)
    child = int(line.message)
    bot.close()
    with pytest.raises(ProcessLookupError):
        for _ in range(200):  # the child is killed with the group; wait for the kernel to reap it
            os.kill(child, 0)
            with open(f"/proc/{child}/stat") as fh:
                if fh.read().split(") ")[1].startswith("Z"):
                    raise ProcessLookupError
            time.sleep(0.01)


def test_a_missing_program_is_a_start_error():
    with pytest.raises(BotStartError, match="cannot start"):
        BotSession(("/nonexistent/bot",))


def test_rss_of_the_group_is_measured():
    bot = session("import json, time; print(json.dumps({'ready': 1}), flush=True); time.sleep(5)")
    try:
        assert bot.next_line(time.monotonic() + 10).message == {"ready": 1}  # the interpreter is loaded: measure it, not the fork before exec
        rss = bot.group_rss_kb()
        assert rss is not None and rss > 1000
    finally:
        bot.close()


def test_rss_counts_children_that_left_the_process_group():
    bot = session("import os, subprocess, time; subprocess.Popen(['python3', '-c', 'import os, time; os.setsid(); "
                  "b = bytearray(64 << 20); time.sleep(30)']); print(1, flush=True); time.sleep(30)")
    try:
        bot.next_line(time.monotonic() + 10)
        deadline = time.monotonic() + 10
        rss = bot.group_rss_kb() or 0
        while rss < 64 * 1024 and time.monotonic() < deadline:
            time.sleep(0.05)
            rss = bot.group_rss_kb() or 0
        assert rss >= 64 * 1024
    finally:
        bot.close()


@given(st.lists(st.binary(max_size=40), max_size=30), st.data())
def test_split_lines_do_not_depend_on_how_the_pipe_cut_them(chunks, data):
    whole = b"".join(chunks)
    cut = sorted(data.draw(st.lists(st.integers(0, len(whole)), max_size=8)))
    splitter, lines = LineSplitter(), []
    for start, end in zip([0] + cut, cut + [len(whole)]):
        lines += splitter.feed(whole[start:end], 0.0)
    expected = whole.split(b"\n")[:-1]
    assert len(lines) == len(expected)
    for line, raw in zip(lines, expected):
        if line.raw is None:
            assert line.message == loads(raw.removesuffix(b"\r"))
        else:
            assert len(line.raw) <= RAW_CHARS + 40
            assert not any((ord(c) < 32 and c != "\t") or 0x7F <= ord(c) < 0xA0 for c in line.raw)


def test_an_over_long_line_is_reported_once_and_its_rest_dropped():
    splitter = LineSplitter()
    lines = splitter.feed(b"x" * (MAX_LINE_BYTES + 1), 0.0) + splitter.feed(b"yyy\n{\"id\": 2}\n", 0.0)
    assert [line.raw for line in lines] == [f"a line over {MAX_LINE_BYTES} bytes", None]
    assert lines[1].message == {"id": 2}
