"""What a bot controls is shown only after `arena.textsafe.clean`: no escapes, no controls, bounded."""

from hypothesis import given, strategies as st

from arena.textsafe import clean, clean_bytes


def test_escape_sequences_are_removed_whole() -> None:
    assert clean("a\x1b[31mred\x1b[0m b") == "ared b"
    assert clean("x\x1b]0;evil title\x07y") == "xy"
    assert clean("x\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\y") == "xlinky"
    assert clean("\x9b2Jz") == "z"


def test_controls_become_replacement_characters() -> None:
    assert clean("a\rb\x00c\x7fd") == "a\ufffdb\ufffdc\ufffdd"
    assert clean("one\ntwo") == "one\ufffdtwo"
    assert clean("one\ntwo", keep_newlines=True) == "one\ntwo"
    assert clean("a\u202eb") == "a\ufffdb"
    assert clean("tab\tok") == "tab\tok"


def test_long_text_is_cut_and_marked() -> None:
    out = clean("x" * 5000, 100)
    assert out == "x" * 100 + "… [4900 more characters]"  # counted over the whole text, not the part cleaned


def test_the_count_of_dropped_characters_is_of_the_cleaned_text_and_the_unread_tail() -> None:
    assert clean("\x1b[31m" + "y" * 150, 100) == "y" * 100 + "… [50 more characters]"  # the escape is not counted
    assert clean("\x1b[31m" + "y" * 995, 100) == "y" * 100 + "… [895 more characters]"  # 995 - 100: read or not


def test_bytes() -> None:
    assert clean_bytes(b"ok \xff\x1b[2J") == "ok \ufffd"


@given(st.text())
def test_clean_output_is_always_printable(text: str) -> None:
    out = clean(text, 200)
    assert len(out) <= 240
    assert not any(ord(ch) < 32 and ch != "\t" for ch in out)
    assert "\x1b" not in out and not any(0x7F <= ord(ch) <= 0x9F for ch in out)
