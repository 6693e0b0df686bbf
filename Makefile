# Footnote — the two commands a newcomer needs: `make dev` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PYTHONPATH := $(CURDIR)/shared
export HF_HUB_OFFLINE := 1

.PHONY: setup dev test test-unit test-emulator lint typecheck eval package infra-check clean

$(STAMP): pyproject.toml package.json
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.11+ is required (set PYTHON=python3.x)"; exit 2; }
	@command -v npm >/dev/null || { echo "Node 20+ with npm is required for the Auth emulator (firebase-tools)"; exit 2; }
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# CPU-only PyTorch for the offline embedder; a plain `pip install torch` pulls CUDA (GBs).
	$(BIN)/pip install --quiet "torch==2.13.0" $(TORCH_INDEX)
	$(BIN)/pip install --quiet -e ".[local,vertex,dev]"
	npm ci --no-audit --no-fund --loglevel=error
	touch $(STAMP)

setup: $(STAMP)  ## create the virtualenv and install everything

dev: $(STAMP)  ## run emulators + the three functions, load demo notes, ask a question
	$(BIN)/footnote dev

test: $(STAMP)  ## the whole suite, emulators included
	$(BIN)/python -m pytest -q

test-unit: $(STAMP)
	$(BIN)/python -m pytest -q -m "not emulator" tests/unit

lint: $(STAMP)
	$(BIN)/ruff check shared functions tests
	$(BIN)/ruff format --check shared functions tests

typecheck: $(STAMP)
	$(BIN)/mypy

EVAL_DATA ?= ../shared/eval-data
EVAL_OUT ?= build/eval

eval: $(STAMP)  ## retrieval on SciFact (train) and cited answers on HotpotQA; JSON in build/eval/
	mkdir -p $(EVAL_OUT)
	$(BIN)/footnote eval retrieval $(EVAL_DATA)/scifact --split train --json $(EVAL_OUT)/scifact-train.json
	$(BIN)/footnote eval answers $(EVAL_DATA)/hotpotqa --json $(EVAL_OUT)/hotpotqa.json

package:  ## build the function source folders Terraform zips (standard library only)
	$(PYTHON) scripts/package_functions.py

infra-check: $(STAMP)  ## offline Terraform checks: fmt, checkov, agreement with the code
	$(BIN)/python -m pytest -q tests/infra

clean:
	rm -rf $(VENV) node_modules build .pytest_cache
