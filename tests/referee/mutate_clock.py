"""Home-made mutation pass over arena/core/clock.py: each mutant must make the fast clock tests fail.

Run from the repository root: .venv/bin/python tests/referee/mutate_clock.py (about a minute).
Not collected by pytest (no test_ prefix). It restores clock.py when done, even when interrupted.
"""
import re
import subprocess

path = "arena/core/clock.py"
orig = open(path).read()
swaps = [(" <= ", " < "), (" < ", " <= "), (" >= ", " > "), (" > ", " >= "), (" - ", " + "), (" + ", " - "),
         ("min(", "max("), ("max(", "min("), (" / 1000.0", " / 100.0"), ("* 1000.0", "* 100.0"), ("is None", "is not None"),
         ("int(self.allowance_ms())", "int(self.allowance_ms()) + 1"), ("max(0.0, ", "(")]
mutants = []
for a, b in swaps:
    for m in re.finditer(re.escape(a), orig):
        line = orig.count("\n", 0, m.start()) + 1
        text = orig.splitlines()[line - 1]
        if text.strip().startswith(("#", '"""')) or '"' in text.split(a)[0][-3:]:
            continue
        mutants.append((line, a, b, orig[: m.start()] + b + orig[m.end():]))
survived = []
try:
    for line, a, b, src in mutants:
        open(path, "w").write(src)
        r = subprocess.run([".venv/bin/python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "tests/referee/test_units.py",
                            "tests/referee/test_clock.py", "-k", "not drift", "tests/protocol/test_protocol.py"], capture_output=True)
        status = "killed" if r.returncode else "SURVIVED"
        if not r.returncode:
            survived.append((line, a, b))
        print(f"{status}: line {line}: {a.strip()!r} -> {b.strip()!r}: {orig.splitlines()[line-1].strip()}", flush=True)
finally:
    open(path, "w").write(orig)
print(f"{len(mutants)} mutants, {len(survived)} survived")
