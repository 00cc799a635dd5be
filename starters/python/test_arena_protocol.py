"""The kit's tests: `python3 -m unittest` in this folder."""

import io
import unittest

import arena_protocol


class First(arena_protocol.Bot):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def start(self, message: dict) -> None:
        self.seen.append("start")

    def decide(self, request: dict) -> object:
        return request["legal"][0]

    def end(self, message: dict) -> None:
        self.seen.append("end")


class SessionTest(unittest.TestCase):
    def test_session(self) -> None:
        lines = [
            '{"type":"hello","protocol":1,"referee":"arena"}',
            '{"type":"start","game":"kolpa","seat":0}',
            "not json",
            '{"type":"mystery"}',
            '{"type":"request","id":3,"legal":[{"announce":5},"5"]}\r',
            '{"type":"end","result":{}}',
            '{"type":"shutdown"}',
            '{"type":"request","id":4,"legal":[1]}',
        ]
        out = io.StringIO()
        bot = First()
        arena_protocol.serve(io.StringIO("\n".join(lines) + "\n"), out, bot, "t", "1")
        self.assertEqual(out.getvalue(), '{"type":"hello","protocol":1,"name":"t","version":"1"}\n'
                                         '{"id":3,"action":{"announce":5}}\n')
        self.assertEqual(bot.seen, ["start", "end"])

    def test_end_of_input(self) -> None:
        out = io.StringIO()
        arena_protocol.serve(io.StringIO('{"type":"request","id":1,"legal":["5"]}'), out, First(), "t", "1")
        self.assertEqual(out.getvalue(), '{"id":1,"action":"5"}\n')


if __name__ == "__main__":
    unittest.main()
