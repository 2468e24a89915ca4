# The two commands of the README:
#   make run   sets everything up and runs the main job
#   make test  sets everything up and runs the tests (what CI runs)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run test lint bench clean

$(BIN)/arena: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

setup: $(BIN)/arena

run: setup
	$(BIN)/arena variants
	$(BIN)/arena play --variant usa --players 4 --seed 7 --log arena-game.log

test: setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis
