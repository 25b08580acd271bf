# Two commands on a fresh machine: `make run` and `make test`. Everything else is a step of those.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
STAMP := $(VENV)/.installed
# Python keeps compiled modules in __pycache__: with PYTHONDONTWRITEBYTECODE set (as on this
# machine), every process (core, facade, workers, each CLI call of the tests) compiled every
# module from source again, about 3 s of CPU each.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test install lint check-generated protos envoy-validate test-only bench clean docs screenshots

run: install
	$(VENV)/bin/herald migrate
	$(VENV)/bin/herald serve

test: install lint
	./scripts/ensure_postgres.sh
	./scripts/ensure_chromium.sh
	./scripts/ensure_node_tools.sh
	./scripts/ensure_pds.sh
	$(PY) -m pytest -n 3 --dist loadgroup

# Re-installs when the project metadata changes; uv makes a full install take seconds. The
# dashboard's front-end libraries come from npm, pinned by their lockfile (scripts/ensure_web_assets.sh).
WEB_ASSETS := facades/web/assets/node_modules/.herald-installed
install: $(STAMP) $(WEB_ASSETS)
$(WEB_ASSETS): facades/web/assets/package-lock.json
	./scripts/ensure_web_assets.sh
$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	test -x $(UV) || $(PY) -m pip install -q uv
	$(UV) pip install -q --python $(PY) -e '.[dev]'
	touch $(STAMP)

lint: install check-generated envoy-validate
	$(VENV)/bin/ruff check contract core facades harness tests bench scripts
	$(VENV)/bin/lint-imports
	$(VENV)/bin/buf lint
	$(PY) scripts/api_reference.py --check
	$(PY) scripts/check_doc_citations.py

# Regenerates docs/api.md's route reference from the operation table (lint fails while it is stale).
docs: install
	$(PY) scripts/api_reference.py

# Regenerates into a scratch directory and fails if the committed generated/ differs.
check-generated: install
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	  ./scripts/generate_protos.sh $$tmp >/dev/null && \
	  diff -r -x __pycache__ $$tmp generated >/dev/null || \
	  { echo "generated/ is stale: run 'make protos' and commit the result"; exit 1; }

# The dashboard's screenshots in docs/images/, on a demo organization of a stack of their own
# (docs/dashboard.md, "Screenshots").
screenshots: install
	./scripts/ensure_chromium.sh
	$(PY) scripts/screenshots.py

protos: install
	./scripts/generate_protos.sh generated

envoy-validate: install
	$(VENV)/bin/envoy --mode validate -c envoy/envoy.yaml --log-level warn >/dev/null
	$(VENV)/bin/envoy --mode validate -c envoy/cluster.yaml --log-level warn >/dev/null

test-only: install
	./scripts/ensure_postgres.sh
	./scripts/ensure_chromium.sh
	./scripts/ensure_node_tools.sh
	./scripts/ensure_pds.sh
	$(PY) -m pytest -n 3 --dist loadgroup

bench: install
	./scripts/ensure_postgres.sh
	$(PY) -m bench.profiles_get

clean:
	rm -rf $(VENV) var test-artifacts .pytest_cache facades/web/assets/node_modules
