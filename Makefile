# portal-shell — build, test, benchmark, install.
# `make demo` and `make test` work on a fresh Debian machine: they install what is missing.

PREFIX ?= /usr/local
SWIFT ?= swift
DEBS := libsqlite3-dev libncurses-dev libedit-dev zlib1g-dev tmux mandoc sqlite3 time libpq-dev postgresql
RELEASE_BIN := .build/release/portal-shell
DEBUG_BIN := .build/debug/portal-shell
# The binary `make install` installs: the release build unless told otherwise (the tests install
# the debug build, which they already have: `make install PREFIX=… BIN=.build/debug/portal-shell`).
BIN ?= $(RELEASE_BIN)
# The release build links the Swift runtime and Foundation statically: start-up no longer loads
# and relocates a dozen shared libraries (the `shell.startup` figure of `make bench` guards it).
# The C and C++ libraries are linked statically too (libstdc++, libgcc, SQLite, libedit, ncurses,
# zlib): see scripts/static-libs, which makes the folder whose sqlite3.pc (PKG_CONFIG_PATH) puts
# it first on the library path. No $ORIGIN run path either: the binary loads no library of its
# own, and the loader looked for each system library in the build folder first.
# Linked as a plain (not position-independent) executable: the loader has no relative
# relocations to apply to the Swift metadata at every start (`shell.startup` again).
# -disable-concrete-type-metadata-mangled-name-accessors: the code asks for a generic type's
# metadata (`Set<String>`, a dictionary's storage) through accessors handed its conformances,
# instead of by mangled name, which the runtime demangles and resolves by searching every
# protocol conformance of the binary (String: Hashable and the like): a third of a one-line
# command's instructions, and pages of the binary touched for nothing (`shell.count.indexed`).
# -function-sections and scripts/startup-order.txt: every function in a section of its own, and
# those a one-line command runs put side by side by the linker (scripts/startup-order makes the
# list), so start-up faults in a few dozen pages of code rather than one page here and one there.
# --no-export-dynamic: the binary loads no library that needs its symbols, and the runtime looks
# up its own path with dladdr, which walks every exported symbol (5,400 of them, and their pages).
# --no-color-diagnostics: on a terminal SwiftPM passes the compiler a colour flag it leaves out
# elsewhere, and a changed command line rebuilds everything: `make demo` on a terminal followed
# by `make install` in a script built the release binary twice.
STATIC_LIBS := .build/static-libs
RELEASE_ENV := PKG_CONFIG_PATH=$(CURDIR)/$(STATIC_LIBS)
RELEASE_FLAGS := --no-color-diagnostics --static-swift-stdlib --disable-local-rpath -Xswiftc -Xclang-linker -Xswiftc -static-libgcc -Xlinker -no-pie \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xlinker --section-ordering-file=$(CURDIR)/scripts/startup-order.txt \
	-Xlinker --no-export-dynamic
# ThreadSanitizer builds go to their own folder so they don't throw away the debug build.
TSAN_SCRATCH := .build-tsan
FUZZ_SECONDS ?= 60

.PHONY: all deps build release static-libs test unit-test tsan-test lint-man demo bench bench-peers docs install uninstall fuzz clean

all: build

# Install the Debian packages that are missing (root, or through sudo).
deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

# Only the shipped program: the benchmarks and the test support targets never take part.
release: deps static-libs
	$(RELEASE_ENV) $(SWIFT) build -c release $(RELEASE_FLAGS) --product portal-shell

static-libs:
	@scripts/static-libs $(STATIC_LIBS)

# Every test of the project: unit, end-to-end (the real binary, tmux), the concurrency stress
# test under ThreadSanitizer, the man page lint and the DocC catalog (every link resolves).
test: deps build lint-man docs tsan-test unit-test

# The PostgreSQL tests run against a throwaway server (scripts/postgres-test-server), stopped and
# removed at the end even when a test fails; a server that cannot start fails those tests. The
# tests' scratch files and databases go to a folder of the run's own (TMPDIR; open to the private
# servers' postgres user), removed with it: a run leaves about a gigabyte behind otherwise.
unit-test:
	@dir=$$(mktemp -d); scratch=$$(mktemp -d) && chmod 755 "$$scratch"; \
	trap 'scripts/postgres-test-server stop "$$dir"; rm -rf "$$scratch"' EXIT; \
	env=$$(scripts/postgres-test-server start "$$dir") && eval "$$env"; \
	TMPDIR=$$scratch PORTAL_SHELL_BIN=$(CURDIR)/$(DEBUG_BIN) $(SWIFT) test

tsan-test:
	$(SWIFT) test --sanitize=thread --scratch-path $(TSAN_SCRATCH) --filter Stress

lint-man:
	@if [ -f man/portal-shell.1 ]; then mandoc -T lint -W warning man/portal-shell.1 && echo "man page: lint clean"; fi

demo: release
	$(RELEASE_BIN) --browse

bench: deps static-libs
	$(SWIFT) build -c release --product portal-bench
	$(RELEASE_ENV) $(SWIFT) build -c release $(RELEASE_FLAGS) --product portal-shell
	@dir=$$(mktemp -d); trap 'scripts/postgres-test-server stop "$$dir"' EXIT; \
	env=$$(scripts/postgres-test-server start "$$dir") && eval "$$env"; \
	.build/release/portal-bench

# PortalEngine against GRDB.swift and the C API in one process: a package of
# its own in Benchmarks/peers, so nothing else builds GRDB. Prints a Markdown table.
bench-peers: deps
	cd Benchmarks/peers && $(SWIFT) build -c release --product peers && .build/release/peers

# The PortalEngine documentation (DocC catalog in Sources/PortalEngine/PortalEngine.docc),
# written to .build/docs as a static site.
docs: deps
	$(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation --target PortalEngine \
		--output-path .build/docs --transform-for-static-hosting --warnings-as-errors

install:
	@if [ "$(BIN)" = "$(RELEASE_BIN)" ]; then $(MAKE) release; fi
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/portal-shell
	install -m 644 man/portal-shell.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(BIN) --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/portal-shell
	$(BIN) --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_portal-shell
	$(BIN) --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/portal-shell.fish

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/portal-shell $(DESTDIR)$(PREFIX)/share/man/man1/portal-shell.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/portal-shell \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_portal-shell \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/portal-shell.fish

clean:
	rm -rf .build $(TSAN_SCRATCH)

# The libFuzzer target for the predicate parser, printer and evaluator, built outside SwiftPM.
# `make fuzz FUZZ_SECONDS=600` runs it longer. Crashes land in .build/fuzz/crash-*.
FUZZ_DIR := .build/fuzz
fuzz:
	mkdir -p $(FUZZ_DIR)/corpus
	swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name PredicateFuzz \
		Sources/PortalPredicate/*.swift Fuzz/PredicateFuzz.swift -o $(FUZZ_DIR)/predicate-fuzz
	cp Fuzz/seeds/* $(FUZZ_DIR)/corpus/
	SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/Fuzz/lsan.supp $(FUZZ_DIR)/predicate-fuzz -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/ -max_len=512 $(FUZZ_DIR)/corpus
