# Footnote — the two commands a newcomer needs: `make dev` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
export PYTHONPATH := $(CURDIR)/shared
export HF_HUB_OFFLINE := 1
# Browser tests use the system Chromium (apt-get install chromium); nothing downloads one.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1
WEB_DIST := web/dist/index.html
# Every file under web/src and web/public, at any depth (views/, api/ ...).
WEB_SOURCES := web/index.html web/vite.config.ts web/tsconfig.json $(shell find web/src web/public -type f 2>/dev/null)

.PHONY: setup web web-schema dev dev-reset test test-unit test-emulator test-browser lint typecheck eval bench bench-archives bench-search-imports package infra-check clean

# The Python packages, the emulators' Node packages and the web client's are three
# independent installs: `make -j3 setup` (CI) runs them side by side.
$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.11+ is required (set PYTHON=python3.x)"; exit 2; }
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# CPU-only PyTorch for the offline embedder; a plain `pip install torch` pulls CUDA (GBs).
	$(BIN)/pip install --quiet "torch==2.13.0" $(TORCH_INDEX)
	$(BIN)/pip install --quiet -e ".[local,vertex,dev]"
	touch $(STAMP)

$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "Node 20+ with npm is required for the Auth emulator (firebase-tools)"; exit 2; }
	# --omit=optional: firebase-tools' optional re2 compiles from source (~7 min on 2 cores); superstatic falls back to RegExp.
	npm ci --omit=optional --no-audit --no-fund --loglevel=error
	touch $@

web/node_modules/.installed: web/package.json web/package-lock.json
	npm --prefix web ci --no-audit --no-fund --loglevel=error
	touch $@

$(WEB_DIST): web/node_modules/.installed $(WEB_SOURCES)
	npm --prefix web run build

web: $(WEB_DIST)  ## build the web client (tsc --noEmit, then Vite) into web/dist, which Hosting serves

# The client's API types come from the API's own description: after changing anything
# it is made from (api/schemas.py, routes.py, openapi.py), regenerate and commit both
# files; tests/web fails while they are stale.
web-schema: $(STAMP) web/node_modules/.installed  ## write web/src/api/openapi.json and the types generated from it (schema.ts)
	$(BIN)/python scripts/web_schema.py
	npm --prefix web run schema

setup: $(STAMP) $(NODE_STAMP) $(WEB_DIST)  ## create the virtualenv, install everything, build the web client
	@command -v chromium >/dev/null || echo "note: the browser tests need Chromium (apt-get install chromium); without it they are skipped (CI: failed)"

dev: $(STAMP) $(NODE_STAMP) $(WEB_DIST)  ## run emulators + the three functions, load demo notes, ask a question; data kept in .footnote-data/
	$(BIN)/footnote dev

dev-reset: $(STAMP) $(NODE_STAMP) $(WEB_DIST)  ## like dev, but delete the kept notes and accounts (.footnote-data/) first
	$(BIN)/footnote dev --reset

test: $(STAMP) $(NODE_STAMP) $(WEB_DIST)  ## the whole suite, emulators and browser tests included
	# Two workers: the tests on the local stack, and the rest beside them (tests/conftest.py).
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup

test-browser: $(STAMP) $(NODE_STAMP) $(WEB_DIST)  ## the web client in Chromium against the local stack
	$(BIN)/python -m pytest -q tests/browser

test-unit: $(STAMP)
	$(BIN)/python -m pytest -q -m "not emulator" tests/unit

lint: $(STAMP)
	$(BIN)/ruff check shared functions tests benchmarks scripts
	$(BIN)/ruff format --check shared functions tests benchmarks scripts
	$(BIN)/lint-imports --no-logo  # the layer and SDK contracts in pyproject.toml

typecheck: $(STAMP)
	$(BIN)/mypy  # shared/footnote, functions/, tests and benchmarks (pyproject.toml)

EVAL_DATA ?= ../shared/eval-data
EVAL_OUT ?= build/eval
EVERYDAY_DATA ?= eval/everyday

eval: $(STAMP)  ## everyday notebooks (eval/everyday) and their claims, SciFact, HotpotQA, LoCoMo; JSON in build/eval/
	mkdir -p $(EVAL_OUT)
	$(BIN)/footnote eval everyday $(EVERYDAY_DATA) --json $(EVAL_OUT)/everyday.json
	$(BIN)/footnote eval grounding $(EVERYDAY_DATA) --json $(EVAL_OUT)/grounding.json
	$(BIN)/footnote eval retrieval $(EVAL_DATA)/scifact --split train --json $(EVAL_OUT)/scifact-train.json
	$(BIN)/footnote eval answers $(EVAL_DATA)/hotpotqa --json $(EVAL_OUT)/hotpotqa.json
	$(BIN)/footnote eval memory $(EVAL_DATA)/locomo --json $(EVAL_OUT)/locomo.json

# Benchmark-only peers (FAISS, hnswlib) install on first `make bench`, not in `make setup`:
# hnswlib compiles from source (~75 s, needs a C++ compiler), and nothing else uses them.
BENCH_STAMP := $(VENV)/.bench-installed
BENCH_CHUNKS ?= 10000,100000

$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e ".[local,vertex,dev,bench]"
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP) bench-archives  ## retrieval benchmark: Footnote vs FAISS, hnswlib, bm25s; /search, writes, memory
	EVAL_DATA=$(EVAL_DATA) $(BIN)/python benchmarks/retrieval.py --chunks $(BENCH_CHUNKS) $(BENCH_ARGS)

bench-archives: $(STAMP)  ## hostile archive entries (alias bomb, heading, wikilinks) vs benign ones of the same size
	$(BIN)/python benchmarks/hostile_archives.py

bench-search-imports: $(STAMP) $(NODE_STAMP)  ## /search p50/p95 on the local stack while hostile archives and a big vault import, vs none importing
	PYTHONPATH=$(CURDIR)/shared:$(CURDIR) $(BIN)/python benchmarks/search_under_imports.py $(BENCH_ARGS)

package:  ## build the function source folders Terraform zips (standard library only; pins: scripts/package_functions.py --lock)
	$(PYTHON) scripts/package_functions.py

infra-check: $(STAMP)  ## offline Terraform checks: fmt, checkov, agreement with the code
	$(BIN)/python -m pytest -q tests/infra

clean:
	rm -rf $(VENV) node_modules web/node_modules web/dist build .pytest_cache
