# The two commands a newcomer needs: `make demo` and `make test`.
# Everything is installed into .venv from the lock file (uv.lock); only python3, git and make
# have to be on the machine. Agents and the tests they write run in bubblewrap (socat is
# for Claude Code's own sandbox): `make demo` and `make test` install both with apt-get
# when they are missing and make runs as root, and otherwise say what to install.

PYTHON ?= python3
VENV := .venv
UV := $(VENV)/bin/uv
UV_VERSION := 0.13.9
export UV_PROJECT_ENVIRONMENT := $(abspath $(VENV))
export UV_PYTHON_DOWNLOADS := never
export UV_NO_PROGRESS := 1

.PHONY: demo docs docs-site test sandbox-tools agent-clis browser screenshots lint typecheck unit bench bench-store bench-tracker bench-phases bench-runtimes bench-schedule bench-overhead bench-github bench-sandbox bench-web bench-pr bench-board bench-serve bench-best-of bench-team clean

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --isolated --quiet --disable-pip-version-check "uv==$(UV_VERSION)"

# --inexact keeps uv itself, which lives in the same environment.
$(VENV)/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --quiet --frozen --inexact --all-groups --all-extras
	@touch $@

SANDBOX_PACKAGES := bubblewrap socat

# apt-get update only when the install fails (a fresh image has no package lists).
sandbox-tools:
	@if ! command -v bwrap >/dev/null 2>&1 || ! command -v socat >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			apt-get install -y -q $(SANDBOX_PACKAGES) >/dev/null 2>&1 \
			|| { apt-get update -q >/dev/null && apt-get install -y -q $(SANDBOX_PACKAGES) >/dev/null; } \
			|| echo "Could not install $(SANDBOX_PACKAGES); install them to run agents sandboxed"; \
		else \
			echo "Install $(SANDBOX_PACKAGES) (sudo apt-get install $(SANDBOX_PACKAGES)): agents and tests run in bubblewrap"; \
		fi; \
	fi

# ralph web's browser tests drive Debian's Chromium through Playwright (never Playwright's
# own browser download): installed here when missing, as the sandbox tools are.
browser:
	@if ! command -v chromium >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			apt-get install -y -q chromium >/dev/null 2>&1 \
			|| { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; } \
			|| echo "Could not install chromium; the browser tests need it"; \
		else \
			echo "Install chromium (sudo apt-get install chromium): the browser tests need it"; \
		fi; \
	fi

# docs/screenshots/board.png and run.png for the README, taken by the browser test.
screenshots: $(VENV)/.synced browser
	RALPH_TEST_SCREENSHOTS=docs/screenshots $(VENV)/bin/pytest -q -p no:randomly tests/integration/web/test_browser.py

# The agent CLIs the end-to-end tests drive on fakes of their model APIs (Codex, Gemini
# CLI, opencode), pinned in tests/agents/package-lock.json and installed with `npm ci`
# into tests/agents/node_modules when node and npm are here (once per lock file: a stamp
# holds its hash). Without node the tests that need them skip.
agent-clis: $(VENV)/.synced
	@$(VENV)/bin/python tests/agents/install.py

demo: $(VENV)/.synced sandbox-tools
	$(VENV)/bin/ralph demo

# docs/cli.md and docs/configuration.md, from the code (a test checks they are current).
docs: $(VENV)/.synced
	$(VENV)/bin/python -m ralph.cli._reference

# The documentation site (mkdocs.yml) in site/, built as strictly as the test builds it.
docs-site: $(VENV)/.synced
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

lint: $(VENV)/.synced
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks

typecheck: $(VENV)/.synced
	$(VENV)/bin/mypy

unit: $(VENV)/.synced
	$(VENV)/bin/pytest -q tests/unit

# pytest-xdist workers for `make test`. Many tests wait on subprocesses (git, ralph,
# bubblewrap, Claude Code), so two workers per core keep the cores busy: on an idle 2-core
# machine `make test` took 5½ minutes on 4 workers, 6¾ on 3. Override with
# `make test TEST_WORKERS=N` (0 runs in one process).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 )))

test: lint typecheck sandbox-tools browser agent-clis
	$(VENV)/bin/pytest -q -n $(TEST_WORKERS)

bench: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_pipeline.py

bench-board: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_board.py

bench-store: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_store.py

bench-tracker: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_tracker.py

bench-phases: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_phases.py

bench-runtimes: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_runtimes.py

bench-schedule: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_schedule.py

bench-overhead: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_overhead.py

bench-github: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_github.py

bench-sandbox: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_sandbox.py

bench-web: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_web.py

bench-pr: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_pr_loop.py

bench-serve: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_serve.py

bench-best-of: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_best_of.py

bench-team: $(VENV)/.synced
	$(VENV)/bin/python benchmarks/bench_team.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
