# citerec — `make run` tries the product on its embedded defaults; `make test` runs the tests.
# With no DATABASE_URL both use an embedded PostgreSQL under .data/; with no REDIS_URL, tasks run eagerly.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test lint eval-parse eval-resolve eval-real eval-sources eval-styles bench bench-catalogue bench-resolve clean-data

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-* && touch $@

run: install
	DEBUG=1 $(PY) manage.py migrate --no-input
	DEBUG=1 $(PY) manage.py import_records samples/records
	DEBUG=1 $(PY) manage.py create_demo_admin --base-url http://$(HOST):$(PORT)
	@echo "Record page: http://$(HOST):$(PORT)/paper/2412.14374/citation-record"
	DEBUG=1 $(PY) manage.py runserver $(HOST):$(PORT)

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy citerec curation api
	$(VENV)/bin/lint-imports

eval-parse: install
	$(PY) bench/eval_parse.py

eval-resolve: install
	$(PY) bench/eval_resolve.py

eval-sources: install
	$(PY) bench/eval_sources.py

eval-real: install
	$(PY) bench/eval_real.py
	$(PY) bench/eval_corpus.py --split both --check

eval-styles: install
	$(PY) bench/eval_styles.py $(EVAL_STYLES_ARGS)

bench: install
	$(PY) bench/bench_parse.py
	$(PY) bench/bench_retraction_watch.py
	DEBUG=1 $(PY) bench/bench_history_growth.py 200000

bench-catalogue: install
	$(PY) bench/bench_catalogue.py 100000 1000000 3000000

bench-resolve: install
	$(PY) bench/bench_resolve.py 100000 1000000

bench-api: install
	$(PY) bench/bench_api.py

bench-admin: install
	$(PY) bench/bench_admin.py

clean-data:
	-$(PY) -c "import pgserver" 2>/dev/null && pkill -f "postgres -D $(CURDIR)/.data/pg" || true
	rm -rf .data
