"""`arena check-bot`: a conformance run against one bot, with pass/fail and evidence for each check.

    from arena.checkbot import CheckOptions, run_check, evaluate
    results = evaluate(run_check(CheckOptions(game, ("python3", "mybot.py"), quick=True)))
"""

from arena.checkbot.checks import CheckResult, Status, evaluate
from arena.checkbot.runner import CheckOptions, Evidence, run_check

__all__ = ["CheckOptions", "CheckResult", "Evidence", "Status", "evaluate", "run_check"]
