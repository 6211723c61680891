# Front door of the project. Every target installs what it needs by itself:
# a Python virtual environment in .venv (requirements.txt) and the MicroPython
# WebAssembly runtime in node_modules (package.json / package-lock.json).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PYDEPS := $(VENV)/.deps-installed
JSDEPS := node_modules/.deps-installed
PORT   ?=

.PHONY: tmux test sim bench lint format flash repl device-test export clean deps

deps: $(PYDEPS) $(JSDEPS)

$(PYDEPS): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(JSDEPS): package.json package-lock.json
	npm ci --silent --no-audit --no-fund
	touch $@

## make test: every host test (CPython + MicroPython in Node + mpy-cross + ruff)
test: deps tmux
	$(PY) -m ruff check firmware host_tests tools
	$(PY) -m ruff format --check firmware host_tests tools
	$(PY) -m pytest -q host_tests

# The simulator's tmux test drives it as a person would; best effort to install tmux (the
# test is skipped where it is still missing).
tmux:
	@command -v tmux >/dev/null 2>&1 || { command -v apt-get >/dev/null 2>&1 && \
	  (apt-get install -y -qq tmux >/dev/null 2>&1 || \
	   (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq tmux >/dev/null 2>&1)) || \
	  echo "tmux not installed: the simulator's tmux test will be skipped"; }

## make sim: the real firmware on a simulated board, in this terminal
sim: $(PYDEPS)
	$(PY) tools/sim.py $(SIMARGS)

## make bench: speed and allocation of the firmware under MicroPython 1.27
bench: deps
	$(PY) tools/bench.py

lint: $(PYDEPS)
	$(PY) -m ruff check firmware host_tests tools

format: $(PYDEPS)
	$(PY) -m ruff format firmware host_tests tools

## make flash [PORT=/dev/ttyACM0]: compile with mpy-cross and copy to the Pico
flash: $(PYDEPS)
	$(PY) tools/flash.py flash $(if $(PORT),--port $(PORT))

repl: $(PYDEPS)
	$(PY) tools/flash.py repl $(if $(PORT),--port $(PORT))

device-test: $(PYDEPS)
	$(PY) tools/flash.py device-test $(if $(PORT),--port $(PORT))

export: $(PYDEPS)
	$(PY) tools/export_games.py $(if $(PORT),--port $(PORT)) --out games

clean:
	rm -rf $(VENV) node_modules build .pytest_cache .ruff_cache .hypothesis
