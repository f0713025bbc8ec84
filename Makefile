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

# The suite in parallel processes (pytest-xdist), one more than the cores unless
# TEST_WORKERS says (many tests wait on a memtap child or a socket: on 2 cores, 3 workers
# took 136 s where 2 took 160 s): whole files per worker, the files with slow tests first
# (tests/conftest.py orders them).
# One test, serially: .venv/bin/python -m pytest tests/x/test_y.py::test_z
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
test: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# mypy cannot follow the editable install's memtap.* mapping, so it reads a tree of links.
TYPECHECK := $(VENV)/typecheck

lint: $(STAMP)
	$(BIN)/ruff check proxy engine config tests scripts
	$(BIN)/ruff format --check proxy engine config
	mkdir -p $(TYPECHECK)/memtap
	for pkg in proxy engine config; do ln -sfn "$(CURDIR)/$$pkg" $(TYPECHECK)/memtap/$$pkg; done
	MYPYPATH=$(TYPECHECK) $(BIN)/mypy -p memtap.proxy -p memtap.engine -p memtap.config
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python scripts/bench_proxy.py
	$(BIN)/python scripts/bench_memory.py

clean:
	rm -rf $(VENV) build *.egg-info
