# A fresh clone needs two commands, in either order:
#   make demo      the runtime dependencies into .venv, then `ralph demo`: simulated agents
#                  carry an epic to merged code in a throwaway project (a few seconds)
#   make test      everything for development (Claude Agent SDK, Playwright, pytest, mypy,
#                  ruff, ...), then ruff, mypy --strict and the whole suite (CONTRIBUTING.md)
# and one more to use Ralph on your own projects:
#   make install   `ralph` on your PATH with `uv tool install` (EXTRAS=claude by default:
#                  the Claude Agent SDK with its bundled Claude Code; EXTRAS= for none)
#   make fake-linear  a fake Linear on 127.0.0.1 to try `ralph init --linear` offline
#   make fake-jira    a fake Jira on 127.0.0.1 to try `ralph init --jira` offline
#   make fake-gitlab  a fake GitLab on 127.0.0.1 to try Ralph's GitLab tracker offline
# and, while changing Ralph, the inner loop:
#   make check     ruff, mypy --strict and the unit tests (under a minute)
# Everything is installed from the lock file (uv.lock); only python3, git and make have to
# be on the machine. Agents and the tests they write run in bubblewrap (socat is for
# Claude Code's own sandbox): `make demo` and `make test` install both with apt-get when
# they are missing and make runs as root, and otherwise say what to install; without
# bubblewrap the demo runs its own simulated agents unconfined, and says so.

PYTHON ?= python3
VENV := .venv
UV := $(VENV)/bin/uv
UV_VERSION := 0.13.9
export UV_PROJECT_ENVIRONMENT := $(abspath $(VENV))
export UV_PYTHON_DOWNLOADS := never
export UV_NO_PROGRESS := 1
# Every install compiles its bytecode: where Python may not write it at run time
# (PYTHONDONTWRITEBYTECODE, a read-only folder) each `ralph` would compile what it imports.
export UV_COMPILE_BYTECODE := 1

.DEFAULT_GOAL := help
.PHONY: help demo install fake-linear fake-jira fake-gitlab docs docs-site test check sandbox-tools agent-clis browser screenshots lint typecheck unit bench bench-store bench-tracker bench-phases bench-git bench-runtimes bench-schedule bench-overhead bench-github bench-linear bench-jira bench-gitlab bench-sandbox bench-web bench-pr bench-board bench-serve bench-best-of bench-team bench-activity bench-merges bench-tokens bench-cli bench-secrets clean

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --isolated --quiet --disable-pip-version-check "uv==$(UV_VERSION)"

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

# --inexact keeps uv itself, which lives in the same environment, and keeps whatever the
# other target installed: `make demo` after `make test` removes nothing, and the reverse
# adds the rest.
# What ralph needs to run: the dependencies, no group and no extra.
$(VENV)/.runtime: $(UV) pyproject.toml uv.lock
	$(UV) sync --quiet --frozen --inexact --no-default-groups
	@touch $@

# Everything: every group (tests, lint, types, benchmarks, docs) and every extra, compiled
# to bytecode once for what runs from here (the suite and the benchmarks, which start
# hundreds of Python processes, keep theirs in the user's cache folder: tests/bytecode.py).
$(VENV)/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --quiet --frozen --inexact --all-groups --all-extras --compile-bytecode
	@touch $@ $(VENV)/.runtime

SANDBOX_PACKAGES := bubblewrap socat

# apt-get update only when the install fails (a fresh image has no package lists).
# Bubblewrap is Linux's: elsewhere (macOS) there is nothing to install, and ralph doctor
# says what works there.
sandbox-tools:
	@if [ "$$(uname -s)" != Linux ]; then :; \
	elif ! command -v bwrap >/dev/null 2>&1 || ! command -v socat >/dev/null 2>&1; then \
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

demo: $(VENV)/.runtime sandbox-tools
	$(VENV)/bin/ralph demo
	@echo "Next: make install puts ralph on your PATH, for your own projects."

# A fake Linear on 127.0.0.1:8766 to try `ralph init --linear` without an account
# (docs/linear.md); it needs graphql-core, the testing extra. PORT=0 for any free port.
# It executes requests against Linear's published schema, which Ralph does not ship:
# RALPH_LINEAR_SCHEMA names a copy (github.com/linear/linear,
# packages/sdk/src/schema.graphql), by default the one provided beside this clone.
PORT ?= 8766
fake-linear: export RALPH_LINEAR_SCHEMA ?= $(abspath ../shared/api-definitions/linear-schema.graphql)
fake-linear: $(VENV)/.runtime
	@$(UV) sync --quiet --frozen --inexact --no-default-groups --extra testing
	@$(VENV)/bin/python -m ralph.linear.fake --port $(PORT)

# A fake Jira Cloud site on 127.0.0.1:8767 to try `ralph init --jira` without an account
# (docs/jira.md). It checks requests against Jira's published OpenAPI document, which
# Ralph does not ship: RALPH_JIRA_OPENAPI names a copy (Atlassian's
# swagger-v3.v3.json), by default the one provided beside this clone.
JIRA_PORT ?= 8767
fake-jira: export RALPH_JIRA_OPENAPI ?= $(abspath ../shared/api-definitions/jira-platform-openapi.json)
fake-jira: $(VENV)/.runtime
	@$(UV) sync --quiet --frozen --inexact --no-default-groups --extra testing
	@$(VENV)/bin/python -m ralph.jira.fake --port $(JIRA_PORT)

# A fake GitLab on 127.0.0.1:$(GITLAB_PORT) (in memory, GitLab.com's rate limit), checking
# every request against a copy of GitLab's REST OpenAPI document (RALPH_GITLAB_OPENAPI;
# see docs/gitlab.md), by default the one provided beside this clone.
GITLAB_PORT ?= 8768
# GITLAB_REPOSITORY=PATH: your project's clone, where the fake's merge requests merge.
GITLAB_REPOSITORY ?=
fake-gitlab: export RALPH_GITLAB_OPENAPI ?= $(abspath ../shared/api-definitions/gitlab-openapi.yaml)
fake-gitlab: $(VENV)/.runtime
	@$(UV) sync --quiet --frozen --inexact --no-default-groups --extra testing
	@$(VENV)/bin/python -m ralph.gitlab.fake --port $(GITLAB_PORT) $(if $(GITLAB_REPOSITORY),--repository $(GITLAB_REPOSITORY))

# `ralph` for your own projects, in an environment of its own (uv tool install) at the
# versions of uv.lock, its command in uv's tool bin folder (UV_TOOL_BIN_DIR, else
# ~/.local/bin). EXTRAS=claude by default: ralph.toml's default agent is Claude Code,
# which the claude extra bundles; `make install EXTRAS=` leaves it out (simulated agents,
# or an agent CLI of your own), EXTRAS=claude,postgres adds more. Run again to update.
EXTRAS ?= claude
INSTALL_CONSTRAINTS ?= $(VENV)/install-constraints.txt

install: $(UV)
	$(UV) export --quiet --frozen --no-default-groups --all-extras --no-emit-project \
		--no-hashes --format requirements-txt -o $(INSTALL_CONSTRAINTS)
	$(UV) tool install --quiet --force --python $(PYTHON) --constraints $(INSTALL_CONSTRAINTS) \
		--reinstall-package ralph-delivery ".$(if $(strip $(EXTRAS)),[$(strip $(EXTRAS))])"
	@bin="$$($(UV) tool dir --bin)"; \
	echo "Installed $$("$$bin/ralph" --version) as $$bin/ralph"; \
	case ":$$PATH:" in *":$$bin:"*) ;; *) \
		echo "$$bin is not on your PATH: add it, e.g. echo 'export PATH=\"$$bin:\$$PATH\"' >> ~/.bashrc (or ~/.zshrc), then open a new shell";; \
	esac

# docs/cli.md and docs/configuration.md, from the code (a test checks they are current).
docs: $(VENV)/.synced
	$(VENV)/bin/python -m ralph.cli._reference

# The documentation site (mkdocs.yml) in site/, built as strictly as the test builds it.
# It needs mkdocs alone: the docs group, not every group and extra (.synced).
$(VENV)/.docs: $(UV) pyproject.toml uv.lock
	$(UV) sync --quiet --frozen --inexact --no-default-groups --group docs
	@touch $@

docs-site: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

lint: $(VENV)/.synced
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks

typecheck: $(VENV)/.synced
	$(VENV)/bin/mypy

# The suite and the benchmarks keep their bytecode in the user's cache folder, never in
# the tree (tests/bytecode.py); set here as well, for what Python compiles before that code
# runs (the conftest files). A PYTHONPYCACHEPREFIX of your own wins.
OUT_OF_TREE = PYTHONPYCACHEPREFIX="$${PYTHONPYCACHEPREFIX:-$${XDG_CACHE_HOME:-$$HOME/.cache}/ralph-tests/bytecode}"

unit: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/pytest -q tests/unit

# The inner loop, under a minute on an idle 2-core machine: what `make test` checks first
# and the unit tests, on one worker per core (they wait on nothing, so more would only
# add workers' start-up).
check: lint typecheck
	$(OUT_OF_TREE) $(VENV)/bin/pytest -q -n $(shell nproc 2>/dev/null || echo 1) tests/unit

# pytest-xdist workers for `make test`. Many tests wait on subprocesses (git, ralph,
# bubblewrap, Claude Code), so two workers per core keep the cores busy: on an idle 2-core
# machine `make test` took 5½ minutes on 4 workers, 6¾ on 3. Override with
# `make test TEST_WORKERS=N` (0 runs in one process).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 )))

# --dist worksteal: a worker that runs out of tests takes the rest of a busy one's, so the
# run does not end waiting on one worker's queue of slow process tests.
test: lint typecheck sandbox-tools browser agent-clis
	$(OUT_OF_TREE) $(VENV)/bin/pytest -q -n $(TEST_WORKERS) --dist worksteal

bench: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_pipeline.py

bench-board: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_board.py

bench-store: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_store.py

bench-activity: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_activity.py

bench-merges: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_merges.py

bench-cli: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_cli.py

bench-tracker: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_tracker.py

bench-phases: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_phases.py

bench-git: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_git.py

bench-runtimes: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_runtimes.py

bench-schedule: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_schedule.py

bench-overhead: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_overhead.py

bench-github: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_github.py

bench-linear: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_linear.py

bench-jira: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_jira.py

bench-gitlab: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_gitlab.py

bench-sandbox: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_sandbox.py

bench-web: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_web.py

bench-pr: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_pr_loop.py

bench-serve: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_serve.py

bench-best-of: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_best_of.py

bench-team: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_team.py

bench-tokens: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_tokens.py

bench-secrets: $(VENV)/.synced
	$(OUT_OF_TREE) $(VENV)/bin/python benchmarks/bench_secrets.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
