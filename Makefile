# The README's two commands: `make demo` and `make test`. Both set everything up from a
# fresh clone on a machine with Python (>= 3.10), Rust (cargo) and make.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
IOLAB  := $(VENV)/bin/iolab
SOURCES := $(shell find rust -type f -name "*.rs" 2>/dev/null) Cargo.toml pyproject.toml

.PHONY: demo test install fio chromium cargo-test pytest bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Reinstall (rebuilding the Rust extension) whenever a source file changes.
$(VENV)/.installed: $(VENV)/bin/python $(SOURCES)
	$(PIP) install --quiet -e '.[test,bench]'
	@touch $@

install: $(VENV)/.installed

# The main job on the bundled catalog: plan the cheapest VM and disks for an OLTP requirement,
# with the reasons the runners-up lost.
demo: install
	$(IOLAB) plan examples/oltp-requirements.yaml

# fio comes from the distribution's package; without root we say what to run.
fio:
	@if command -v fio >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing fio from the distribution's package"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null; \
	else \
	  echo "fio is missing: install it with 'sudo apt-get install fio' (Debian/Ubuntu) or 'sudo dnf install fio', then run make test again"; exit 1; \
	fi

# chromium (for the browser tests: the report's, and iolab serve's pages driven by Playwright, which
# the test extras install and which runs this chromium, never a browser of its own) comes from the
# distribution's package; without root we say what to run.
chromium:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing chromium from the distribution's package"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "chromium is missing: install it with 'sudo apt-get install chromium' (Debian/Ubuntu) or 'sudo dnf install chromium'; until then the report's browser test is skipped and iolab serve's browser tests fail"; \
	fi

cargo-test:
	cargo test --quiet

# One worker per core (pytest-xdist), each test file on one worker (its module fixtures built once).
pytest: install fio chromium
	$(PY) -m pytest -n auto --dist loadfile

test: cargo-test pytest

bench: install
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) target build dist
