# The README's two commands: `make run` and `make test`. Both create .venv on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CONFIG ?= config/memtap.yaml

.PHONY: run test lint bench venv clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python setup.cfg pyproject.toml
	$(BIN)/pip install --quiet -e '.[local,speed,test]'
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/memtap serve -c $(CONFIG)

test: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider

lint: $(STAMP)
	$(BIN)/ruff check proxy engine config tests scripts
	$(BIN)/ruff format --check proxy engine config
	$(BIN)/mypy proxy engine config

bench: $(STAMP)
	$(BIN)/python scripts/bench_proxy.py
	$(BIN)/python scripts/bench_memory.py

clean:
	rm -rf $(VENV) build *.egg-info
