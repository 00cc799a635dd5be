# Everything a fresh machine needs, from the project's own files.
# `make demo` and `make test` are the README's two commands; both set up first.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
C_BOT := sample_bots/c/random_bot
# The hot path compiled with mypyc (setup.py): the sources in pyproject.toml's [tool.arena] compiled, and the record
# of what was built from them. An extension shadows its .py, so any change to one of them rebuilds.
COMPILED := $(shell sed -n '/^compiled = \[/,/^\]/p' pyproject.toml | grep -o 'arena/[a-z_/]*\.py')
NATIVE := arena/_native_build.py

.PHONY: setup system-deps native demo check test bench mutation clean

setup: system-deps $(STAMP) native $(C_BOT)

# Debian packages (bubblewrap; chromium for the browser tests and the kits' toolchains for `make test`),
# installed when missing and allowed.
system-deps:
	@PYTHON=$(PYTHON) tools/system-deps $(if $(filter test,$(MAKECMDGOALS)),--browser --kits)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# ARENA_PURE=1 (e.g. `ARENA_PURE=1 make test`): pure Python, the built extensions deleted.
ifdef ARENA_PURE
native: | $(STAMP)
	rm -f $(NATIVE)
	find arena -name '*.so' -delete
else
native: $(NATIVE)
endif

$(NATIVE): setup.py $(COMPILED) | $(STAMP)
	find arena -name '*.so' -delete  # also those of a module renamed or taken off the list
	$(PY) -m pip install --quiet --no-deps -e .

$(C_BOT): sample_bots/c/random_bot.c
	cc -O2 -Wall -Wextra -o $@ $<

demo: setup
	$(VENV)/bin/arena run configs/kododo.yaml --fresh

# The fast tier, before each commit: types, the layering contracts, and every test that starts no
# process, sandbox, browser or cluster and runs no documented command (markers in pyproject.toml).
FAST := not process and not sandbox and not browser and not cluster and not docs and not slow

check: setup
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -q -m "$(FAST)"

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

clean:
	rm -rf $(VENV) $(C_BOT) out .pytest_cache .hypothesis mutants build $(NATIVE)
	find arena -name '*.so' -delete
