# Every target bootstraps .venv from pyproject.toml on first use (Python 3.10+).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: help generate check-generated lint typecheck test demo recordings bench bench-quick \
	fuzz clean

help:
	@echo "make generate         regenerate generated/ from schemas/"
	@echo "make demo             generate, then show the SDK at work (the main job)"
	@echo "make test             drift check, ruff, mypy --strict, pytest"
	@echo "make recordings       materialize the recorded traffic the tests replay (from the"
	@echo "                      user cache, \$$CHATSCHEMA_MIRROR, or the public repositories)"
	@echo "make bench            speed beside langchain-core and openhands-sdk -> BENCHMARKS.md"
	@echo "make fuzz             the long fuzzing pass (FUZZ_EXAMPLES per property, new seeds)"
	@echo "make check-generated  fail when generated/ is stale or hand-edited, or schemas/"
	@echo "                      break compatibility with the last released snapshot"

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10) and "Python 3.10+ is needed")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

NODE_STAMP := node_modules/.package-lock.json

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error

generate: $(STAMP) $(NODE_STAMP)
	$(PY) codegen/generate.py
	node codegen/typescript.mjs

check-generated: $(STAMP) $(NODE_STAMP)
	$(PY) codegen/generate.py --check
	node codegen/typescript.mjs --check
	$(PY) codegen/compat.py

lint: $(STAMP)
	$(PY) -m ruff check src tests codegen
	$(PY) -m ruff format --check src tests codegen

typecheck: $(STAMP)
	$(PY) -m mypy

# pytest last: its closing lines (and the count of recorded files present) end the run
test: check-generated lint typecheck
	$(PY) bench/run.py --quick
	$(PY) tests/recordings/build.py
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) bench/run.py --high-priority

bench-quick: $(STAMP)
	$(PY) bench/run.py --quick

# The fuzz and round-trip properties with FUZZ_EXAMPLES random examples each (CI runs
# fixed, smaller budgets); calls per entry point are written to fuzz-report.json.
FUZZ_EXAMPLES ?= 5000
fuzz: $(STAMP)
	rm -f fuzz-report.json
	$(PY) tests/recordings/build.py
	CHATSCHEMA_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) CHATSCHEMA_FUZZ_REPORT=fuzz-report.json \
		$(PY) -m pytest -q -p no:cacheprovider tests/test_fuzz.py \
		tests/test_roundtrip_properties.py tests/test_secrets.py tests/test_variations.py \
		tests/test_reply_properties.py tests/test_stream_faults.py tests/test_faults_output.py
	@cat fuzz-report.json

demo: generate
	$(PY) -m chatschema.demo
	$(PY) examples/agent_loop.py

# Recorded traffic (tests/recordings): from the cache, a mirror, else the network. make
# test and make fuzz take what the cache and a mirror give, without the network.
recordings: $(STAMP)
	$(PY) tests/recordings/build.py --network

clean:
	rm -rf $(VENV) .venv-bench build dist .pytest_cache .mypy_cache .ruff_cache .hypothesis
