# Front door of the project. Every target installs what it needs by itself:
# a Python virtual environment in .venv (requirements.txt) and the MicroPython
# WebAssembly runtime in node_modules (package.json / package-lock.json).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# DISPLAY=lcd / DISPLAY=led: the build (make sim, make flash, make chip-bench). Only these two
# words count: an X11 $(DISPLAY) such as ":0" in the environment is not a build.
DISPLAY_ARG := $(if $(filter lcd led,$(DISPLAY)),--display $(DISPLAY))
PYDEPS := $(VENV)/.deps-installed
JSDEPS := node_modules/.deps-installed
PORT   ?=
# make uf2 / make flash: a MicroPython .uf2 to use instead of the pinned release;
# make test / make chip-bench: the MicroPython rp2 .uf2 the emulated chip runs (chip-bench
# downloads the pinned one without it; RP2040_BOOTROM: the boot ROM, likewise)
MICROPYTHON_UF2 ?=
RP2040_BOOTROM ?=
# make test CHIP=1: run the chip tests, downloading the pinned files that are not given
CHIP ?=
# make chip-bench: also measure the firmware at this git ref, in the same run
BASELINE ?=
# make uf2: where to download the pinned MicroPython from instead of the pin's url (a mirror,
# a copy on the local network); LOCKED=1 refuses to pin (the release job)
MICROPYTHON_UF2_URL ?=
LOCKED ?=
# make flash: the RPI-RP2 drive of a Pico in BOOTSEL mode (found by itself when mounted),
# and YES=1 to copy the release onto it without asking
DRIVE  ?=
YES    ?=
# make export: a PGN file of the games' moves (the scoresheets) to merge with the clock's times
MOVES  ?=
# make live: the pairings file (board names), the live PGN's path, the page's port on 127.0.0.1
PAIRINGS ?=
LIVE_PGN ?= live.pgn
HTTP_PORT ?= 8130

.PHONY: tmux chromium test sim bench chip-bench power-ledger energy lint format flash repl device-test export live backup uf2 clean deps

deps: $(PYDEPS) $(JSDEPS)

$(PYDEPS): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(JSDEPS): package.json package-lock.json
	npm ci --silent --no-audit --no-fund
	touch $@

# The GitHub Actions workflows, checked here so a broken one fails before the first tag:
# the workflow schema (--strict-collection) and zizmor's audits, offline.
ZIZMOR := $(VENV)/bin/zizmor --offline --strict-collection --persona=pedantic --no-progress

## make test [CHIP=1]: every host test (CPython + MicroPython in Node + mpy-cross + ruff +
## workflows), and the tests on the emulated RP2040 when MICROPYTHON_UF2 is given or CHIP=1
## (which downloads the pinned MicroPython and boot ROM into build/cache, docs/chip.md).
## Hypothesis draws at random from a seed it prints (HYPOTHESIS_SEED=N repeats a run's draws);
## HYPOTHESIS_PROFILE=ci (what .ci/run sets) draws the same examples at every run.
test: deps tmux chromium
	$(PY) -m ruff check firmware host_tests tools
	$(PY) -m ruff format --check firmware host_tests tools
	$(ZIZMOR) .github/workflows
	@$(if $(MICROPYTHON_UF2)$(CHIP),,echo "chip tests skipped: set MICROPYTHON_UF2=path/to/MicroPython-rp2-RPI_PICO.uf2, or CHIP=1 to download the pinned one (docs/chip.md)")
	MICROPYTHON_UF2="$(MICROPYTHON_UF2)" RP2040_BOOTROM="$(RP2040_BOOTROM)" CHIP="$(CHIP)" \
	  $(PY) -m pytest -q host_tests $(if $(HYPOTHESIS_SEED),--hypothesis-seed=$(HYPOTHESIS_SEED))

# The simulator's tmux test drives it as a person would; best effort to install tmux (the
# test is skipped where it is still missing).
tmux:
	@command -v tmux >/dev/null 2>&1 || { command -v apt-get >/dev/null 2>&1 && \
	  (apt-get install -y -qq tmux >/dev/null 2>&1 || \
	   (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq tmux >/dev/null 2>&1)) || \
	  echo "tmux not installed: the simulator's tmux test will be skipped"; }

# The live page's browser test drives Debian's chromium through playwright-core (npm, no
# browser download); best effort to install it (the test is skipped where it is missing).
chromium:
	@command -v chromium >/dev/null 2>&1 || { command -v apt-get >/dev/null 2>&1 && \
	  (apt-get install -y -qq chromium >/dev/null 2>&1 || \
	   (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1)) || \
	  echo "chromium not installed: the live page's browser test will be skipped"; }

## make sim [DISPLAY=lcd] [SIMARGS=--usb]: the real firmware on a simulated board, in this
## terminal (DISPLAY=lcd: the LCD build's glasses); --usb offers its USB port as
## socket://127.0.0.1:8131 for make live (docs/live.md, the rehearsal)
sim: $(PYDEPS)
	$(PY) tools/sim/sim.py $(DISPLAY_ARG) $(SIMARGS)

## make bench: counts and allocation under MicroPython 1.27 (WebAssembly); its RP2040
## figures are estimates: the chip's own come from make chip-bench
bench: deps
	$(PY) tools/bench/bench.py

## make chip-bench [MICROPYTHON_UF2=path] [BASELINE=ref]: the figures measured on real
## MicroPython rp2 in an emulated RP2040 (rp2040js), against the goals; without the path,
## the pinned MicroPython and boot ROM are downloaded once into build/cache (docs/chip.md)
chip-bench: deps
	MICROPYTHON_UF2="$(MICROPYTHON_UF2)" RP2040_BOOTROM="$(RP2040_BOOTROM)" \
	  $(PY) tools/chip/chip_bench.py $(if $(BASELINE),--baseline "$(BASELINE)")

## make power-ledger [MICROPYTHON_UF2=path]: whole games (FIDE, Blitz, an idle hour) on the
## emulated chip on cells, both builds; the time in each power state and what the displays
## lit go to tools/energy/ledger.json, which make energy reads (about 40 min)
power-ledger: deps
	MICROPYTHON_UF2="$(MICROPYTHON_UF2)" RP2040_BOOTROM="$(RP2040_BOOTROM)" \
	  $(PY) tools/chip/power_ledger.py

## make energy: the energy model (tools/energy/energy.py): the clock's current from its parts, the
## hours of play on 3 AA cells per brightness level, where the low-battery warning goes
energy: $(PYDEPS)
	$(PY) tools/energy/energy.py

lint: $(PYDEPS)
	$(PY) -m ruff check firmware host_tests tools
	$(ZIZMOR) .github/workflows

format: $(PYDEPS)
	$(PY) -m ruff format firmware host_tests tools

## make flash [PORT=/dev/ttyACM0] [DISPLAY=lcd|led]: compile with mpy-cross and copy to the
## Pico (settings and saved games stay; DISPLAY sets the build's displays, kept otherwise);
## a Pico in BOOTSEL mode gets the release .uf2 instead (replaces them)
flash: $(PYDEPS)
	$(PY) tools/device/flash.py flash $(DISPLAY_ARG) $(if $(PORT),--port $(PORT)) $(if $(DRIVE),--drive "$(DRIVE)") \
	  $(if $(YES),--yes) $(if $(MICROPYTHON_UF2),--micropython "$(MICROPYTHON_UF2)")

## make uf2 [MICROPYTHON_UF2=path] [MICROPYTHON_UF2_URL=url] [LOCKED=1]:
## build/chess-clock-VERSION.uf2 and .uf2.sha256, MicroPython + the clock; the first run
## downloads MicroPython and pins its sha256 in tools/release/micropython_release.json (commit it)
uf2: $(PYDEPS)
	$(PY) tools/release/release.py $(if $(MICROPYTHON_UF2),--micropython "$(MICROPYTHON_UF2)") \
	  $(if $(MICROPYTHON_UF2_URL),--url "$(MICROPYTHON_UF2_URL)") $(if $(LOCKED),--locked)

## make backup [PORT=...]: settings, saved game and game logs into backups/clock-DATE-SERIAL
backup: $(PYDEPS)
	$(PY) tools/device/backup.py $(if $(PORT),--port $(PORT)) --out backups

repl: $(PYDEPS)
	$(PY) tools/device/flash.py repl $(if $(PORT),--port $(PORT))

device-test: $(PYDEPS)
	$(PY) tools/device/flash.py device-test $(if $(PORT),--port $(PORT))

## make export [PORT=...] [MOVES=FILE.pgn]: the game logs as PGN, CSV and PNG into games/; with
## MOVES, FILE's games (the scoresheets) get each move's clock time (games/FILE-clock.pgn)
export: $(PYDEPS)
	$(PY) tools/export/export_games.py $(if $(PORT),--port $(PORT)) --out games $(if $(MOVES),--moves "$(MOVES)")

## make live [PORT="P1 P2 ..." or "3=P"] [MOVES=FILE.pgn] [PAIRINGS=FILE] [LIVE_PGN=live.pgn]
## [HTTP_PORT=8130]: each clock's live feed into a PGN rewritten at every event, and a page
## of the clocks at http://127.0.0.1:8130/ (the PGN at /live.pgn); no PORT: every Pico on USB,
## and each one plugged in later; a PORT is a device path or socket:// / rfc2217:// URL
live: $(PYDEPS)
	$(PY) tools/live/live.py $(foreach p,$(PORT),--port "$(p)") --out "$(LIVE_PGN)" \
	  --http-port $(HTTP_PORT) $(if $(MOVES),--moves "$(MOVES)") $(if $(PAIRINGS),--pairings "$(PAIRINGS)")

clean:
	rm -rf $(VENV) node_modules build .pytest_cache .ruff_cache .hypothesis
