# Everything a fresh machine needs, from the project's own files.
# `make demo` and `make test` are the README's two commands; both set up first.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# What running arena needs (`make demo`), then the test tier's extras on top (`make setup`, `check`, `test`):
# the demo installs no browser driver, Dask, server stack or test tools.
RUN_STAMP := $(VENV)/.installed-run
STAMP := $(VENV)/.installed
C_BOT := sample_bots/c/random_bot
# The hot path compiled with mypyc (setup.py): the sources in pyproject.toml's [tool.arena] compiled, and the record
# of what was built from them. An extension shadows its .py, so any change to one of them rebuilds.
COMPILED := $(shell sed -n '/^compiled = \[/,/^\]/p' pyproject.toml | grep -o 'arena/[a-z_/]*\.py')
NATIVE := arena/_native_build.py

.PHONY: setup run-setup system-deps native demo check test bench mutation protocol-docs clean

setup: system-deps $(STAMP) native $(C_BOT)

# What the demo needs: arena and its own dependencies and the C sample bot. Not the compile: the demo's
# 200 games take a few seconds more in pure Python (mostly its bots' time: BENCHMARKS.md, test-tiers), far
# less than mypyc takes, so it plays without waiting for it; `make setup` (and check, test) compile the hot
# path for real runs. A tree compiled before keeps its extensions, rebuilt if a compiled source changed since.
run-setup: system-deps $(RUN_STAMP) $(C_BOT)
	@if [ -f $(NATIVE) ]; then $(MAKE) --no-print-directory native; else find arena -name '*.so' -delete; fi

# Debian packages (bubblewrap; chromium for the browser tests and the kits' toolchains for `make test`),
# installed when missing and allowed.
system-deps:
	@PYTHON=$(PYTHON) tools/system-deps $(if $(filter test,$(MAKECMDGOALS)),--browser --kits)

# Both installs are pure (ARENA_PURE=1): the compile is `native`'s, once, whatever was installed before it.
$(RUN_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	ARENA_PURE=1 $(PY) -m pip install --quiet -e .
	rm -f $(NATIVE)
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	ARENA_PURE=1 $(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# ARENA_PURE=1 (e.g. `ARENA_PURE=1 make test`): pure Python, the built extensions deleted.
ifdef ARENA_PURE
native: | $(RUN_STAMP)
	rm -f $(NATIVE)
	find arena -name '*.so' -delete
else
native: $(NATIVE)
endif

$(NATIVE): setup.py $(COMPILED) | $(RUN_STAMP)
	find arena -name '*.so' -delete  # also those of a module renamed or taken off the list
	$(PY) -m pip install --quiet --no-deps -e .

$(C_BOT): sample_bots/c/random_bot.c
	cc -O2 -Wall -Wextra -o $@ $<

demo: run-setup
	$(VENV)/bin/arena run configs/kododo.yaml --fresh
	@[ -f $(NATIVE) ] || echo "(played in pure Python; \`make setup\` compiles the referee's hot path with mypyc for big runs)"

# The fast tier, before each commit: types, the layering contracts, and every test that starts no
# process, sandbox, browser or cluster and runs no documented command (markers in pyproject.toml). It needs no
# build product (the C sample bot is not built for it) and no browser library (playwright is not imported).
FAST := not process and not sandbox and not browser and not cluster and not docs and not slow

# The fast tier runs on every core (pytest-xdist): its tests are in-process and independent; the full suite
# (`make test`) stays in one process, its real-process and clock tests measured without a neighbour.
check: system-deps $(STAMP) native
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -q -n auto -m "$(FAST)"

test: setup
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -q

bench: setup
	$(PY) -m bench $(ARGS)

# Mutation testing of schedule, clock and verify (slow; not part of `make test`). ARGS: module names.
# On pure Python (a compiled module would run instead of its mutants); `make setup` compiles again afterwards.
mutation:
	ARENA_PURE=1 $(MAKE) --no-print-directory setup
	$(PY) tools/mutation-report $(ARGS)

# protocol.md's generated game references (and docs/writing-a-game.md's), rewritten from the games' specs.
protocol-docs: setup
	$(PY) tools/protocol-docs

clean:
	rm -rf $(VENV) $(C_BOT) out .pytest_cache .hypothesis mutants build $(NATIVE)
	find arena -name '*.so' -delete
