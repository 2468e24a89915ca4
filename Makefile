# The two commands of the README:
#   make run   sets up what running needs (no test tools) and runs the main job
#   make test  sets up everything for development and runs the tests (what CI runs)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
# Packages go in with uv (a fresh venv's 80-odd packages in about 10 s, pip's take 80 s),
# itself installed by pip; if uv cannot be had or fails (a machine whose pip is set up for
# a private index uv does not read), pip does it. INSTALLER=pip skips uv.
INSTALLER ?= uv
INSTALL = install() { if [ "$(INSTALLER)" = uv ] && $(PIP) uv >/dev/null 2>&1 \
	&& $(BIN)/uv pip install --quiet --python $(BIN)/python "$$@"; then :; else \
	[ "$(INSTALLER)" != uv ] || echo "uv did not install it: pip will" >&2; $(PIP) "$$@"; fi; }; install
JS_BOT := examples/js-bot

.PHONY: setup setup-run rl run test typecheck lint bench soak clean browser js-bot compiled

# What running needs: the package and its dependencies, nothing for tests or browsers.
$(VENV)/.installed-run: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(INSTALL) -e .
	touch $@

# Development: the `dev` extra on top (pytest, hypothesis, ruff, playwright, pyarrow), and
# `rl` (pettingzoo, gymnasium, numpy) so that CI runs the environments' API tests.
$(VENV)/.installed-dev: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(INSTALL) -e '.[dev,rl]'
	touch $(VENV)/.installed-run $@

setup-run: $(VENV)/.installed-run

# The learning environments (arena.envs, examples/rl): the `rl` extra on top of `make run`'s.
$(VENV)/.installed-rl: $(VENV)/.installed-run
	$(INSTALL) -e '.[rl]'
	touch $@
rl: $(VENV)/.installed-rl
setup: $(VENV)/.installed-dev compiled

# The engine compiled by mypyc (dev extra), when a C compiler is here; rebuilt when its
# sources change; without it the pure-Python engine runs (arena/native.py, ARENA_ENGINE).
compiled: $(VENV)/.installed-dev
	$(BIN)/python tools/build_engine.py

run: setup-run js-bot
	$(BIN)/arena variants
	$(BIN)/arena play --variant usa --bot random --bot random --bot random --bot random \
		--seed 7 --match-log arena-game.jsonl
	$(BIN)/arena replay arena-game.jsonl
	$(BIN)/arena tournament run examples/tournament.toml --workers 2
	$(BIN)/arena leaderboard --variant usa
	$(BIN)/arena site site
	@echo "done: in a new shell, '. $(VENV)/bin/activate' puts arena on your PATH"

# The JavaScript example bot's one dependency (the zeromq package), when npm is there.
js-bot: $(JS_BOT)/node_modules
$(JS_BOT)/node_modules: $(JS_BOT)/package.json
	@if ! command -v npm >/dev/null; then \
		echo "npm not found: the JavaScript example bot needs Node.js and npm; install them, then run: cd $(JS_BOT) && npm install"; \
	elif (cd $(JS_BOT) && npm install --no-audit --no-fund --silent); then touch $@; \
	else echo "npm install failed: the JavaScript example bot will not run until 'cd $(JS_BOT) && npm install' succeeds"; fi

# The site test drives Debian's Chromium headless (Playwright, with the system browser).
browser:
	@command -v chromium >/dev/null || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else echo "chromium not found and cannot be installed here: the browser test will be skipped"; fi; }

# Types: strict where the contracts live (the engine, the protocol), plain on the rest of
# the engine's work (variants, the bots that search it, their tests).
MYPY_STRICT := arena/engine protocols
MYPY := arena/variants bots/policy.py bots/planning.py bots/search.py bots/ismcts.py bots/published.py bots/fdg \
	bots/cardgame_bot.py bots/random_bot.py tools/build_maps.py benchmarks/engine.py \
	arena/envs benchmarks/envs.py \
	tests/helpers.py tests/city_fixtures.py $(patsubst %,tests/test_%.py,claiming drawing \
	endgame europe newyork city_editions cardgame setup tickets scoring legal_actions notation \
	properties sampling search ismcts bots positions third_party_variant engine_journeys fdg) tests/toll_variant.py
# The compiled engine's build and its tests.
MYPY += tools/build_engine.py arena/native.py tests/engine_digest.py tests/test_engine_builds.py
MYPY += bots/budgets.py tests/budget_moves.py tests/test_budgets.py

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy --strict --follow-imports=silent $(MYPY_STRICT)
	$(BIN)/mypy --follow-imports=silent $(MYPY)
	$(BIN)/mypy --ignore-missing-imports arena bots leaderboards protocols benchmarks tools  # the whole tree

# The tests run in parallel (pytest-xdist): most of their time is spent waiting on bot
# processes, so more workers than cores pay off. The tests on a Ray cluster run in two
# groups (tests/conftest.py), a worker each; the other two workers share the rest.
TEST_WORKERS ?= 4

# Every process a test starts (each `arena` command, host, worker, bot, Ray worker) imports
# the project: its bytecode is compiled once here, so that none compiles it again when
# PYTHONDONTWRITEBYTECODE is set (a fresh clone has no __pycache__; 0.2 s per process).
# pytest may write its own (the test modules, rewritten for assertions): with
# PYTHONDONTWRITEBYTECODE set, each test worker would rewrite all of them again (7 s each).
# What the tests need is made two jobs at a time: the engine's C compile beside the type
# check, the browser's download beside the Python packages'.
test:
	$(MAKE) --jobs=2 --output-sync=target setup js-bot browser typecheck
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m compileall -q arena bots protocols leaderboards benchmarks tools tests
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup

bench: setup
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/referee_inprocess.py
	$(BIN)/python benchmarks/referee.py
	$(BIN)/python benchmarks/bot_start.py
	RAY_AUTH_MODE=disabled $(BIN)/python benchmarks/tournament.py
	RAY_AUTH_MODE=disabled $(BIN)/python benchmarks/ray_warm.py
	$(BIN)/python benchmarks/leaderboard.py
	$(BIN)/python benchmarks/published.py
	$(BIN)/python benchmarks/cardgame_bot.py
	$(BIN)/python benchmarks/replay.py
	$(BIN)/python benchmarks/envs.py

soak: setup  # 1,000 ladder matches on a local Ray with hostile bots (about 15 minutes)
	RAY_AUTH_MODE=disabled $(BIN)/python benchmarks/soak.py --matches 1000

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis build arena/_native.json
	find arena -name '*.so' -delete
