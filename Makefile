# setmatch — build, test, benchmark, cross-compile and package.
# `make demo` runs the whole appliance on generated data; `make test` runs
# every test on this machine and again as linux/arm64 binaries under qemu-user.
#
#   make build        host binaries into bin/
#   make test         go vet, host tests, race pass, arm64 tests under qemu-aarch64-static,
#                     and setmatch built for Windows and macOS (test-tool-builds)
#   make test-host    host tests only;  make test-arm64  arm64 tests only (the
#                     setmatchd they run end to end is built first into bin/test/)
#   make test-race    the concurrent packages (device/..., cmd/setmatchd,
#                     internal/par) under the race detector, the setmatchd
#                     they run end to end built with -race (needs gcc)
#   make test-tool-builds  the workstation tool setmatch built (not run) for
#                     TOOL_TARGETS, windows/amd64 and darwin/arm64
#   make demo         synth -> train -> setmatchd on a temporary spool (about 1 min)
#   make cross        static, stripped, reproducible linux/arm64 binaries into bin/linux-arm64/
#                     (DEB_ARCH=amd64: linux/amd64 into bin/linux-amd64/)
#   make cross-check  build the arm64 binaries again from a copy of the tree with an
#                     empty build cache and compare sha256 sums
#   make deb          arm64 .deb into dist/ (nfpm), its contents checked with dpkg-deb
#                     (MAINTAINER sets the package's Maintainer field; DEB_ARCH=amd64
#                     builds cross and deb for a PC instead)
#   make install      install what make build made, for a Pi built from source
#                     (DESTDIR, PREFIX): make build && sudo make install
#   make bench        benchmarks;  make fuzz  short fuzz runs (FUZZTIME per target)
#   make clean

GO       ?= go
BIN      := bin
DIST     := dist
PKGS     := ./...
CMDS     := setmatch setmatchd
QEMU     ?= qemu-aarch64-static
# Package and binary version (Debian: must start with a digit); setmatchd
# -version and setmatch version print it. The package is native (its
# packaging is part of these sources), so the package version is VERSION
# itself and make deb wants an entry for it at the top of cross/changelog.
VERSION  ?= 0.1.0
# -buildid= and -trimpath make the binaries depend on the sources and the Go
# version only; -buildvcs=false keeps the state of the git checkout out of them.
LDFLAGS  := -s -w -buildid= -X main.version=$(VERSION)
GOBUILD_REPRO := -trimpath -buildvcs=false -ldflags "$(LDFLAGS)"
# On amd64 the workstation binaries are built with Go's SIMD experiment, which
# enables the AVX2 kernels of the gallery matcher (match/pair_simd.go; used
# only when the CPU has AVX2 and FMA). Every other build, arm64 included, runs
# the portable kernels. SIMD= (empty) builds the portable version.
HOSTARCH := $(shell $(GO) env GOARCH)
SIMD     ?= $(if $(filter amd64,$(HOSTARCH)),simd,)
# Tests under qemu are slower; -short trims the long property sweeps there.
ARM64_TESTFLAGS ?= -short -count=1
# A hang fails fast: go test's own limit, well above the suite's run time
# (each end-to-end test has a deadline of its own, below these).
HOST_TIMEOUT  ?= 10m
ARM64_TIMEOUT ?= 15m
# The daemon the end-to-end tests of cmd/setmatchd run, built outside the
# test binaries (a test binary under qemu-user must not fork the go command)
# and named by SETMATCHD_BIN; SETMATCHD_EXEC is the emulator that runs it.
TESTBIN  := $(BIN)/test
HOST_TESTD  := $(TESTBIN)/$(shell $(GO) env GOOS)-$(HOSTARCH)/setmatchd
ARM64_TESTD := $(TESTBIN)/linux-arm64/setmatchd
# The setmatch tool the end-to-end test of enroll and forget runs beside the
# daemon (SETMATCH_BIN), built the same way.
HOST_TESTTOOL  := $(TESTBIN)/$(shell $(GO) env GOOS)-$(HOSTARCH)/setmatch
ARM64_TESTTOOL := $(TESTBIN)/linux-arm64/setmatch
# The race pass (make test-race): the packages whose goroutines share
# state, the daemon's parts, its end-to-end tests and the parallel-for, again
# under go test -race, with -short as under qemu; on amd64 also the
# packages with AVX2 kernels in their SIMD build, whose unsafe pointer
# arithmetic the race build checks (checkptr), and those that split their
# products among goroutines (internal/matmul). The setmatchd those tests
# run is built with -race too, so that a data race in the daemon fails the
# test that stops it (the detector's exit status, 66). -race needs cgo, so a
# C compiler (Debian: gcc, libc6-dev). About a minute with a warm build cache,
# under three on a cold one (2 cores); each end-to-end test keeps its own
# deadline, below RACE_TIMEOUT.
RACE_PKGS    ?= ./device/... ./cmd/setmatchd ./internal/par
RACE_TIMEOUT ?= 10m
RACE_TESTD   := $(TESTBIN)/$(shell $(GO) env GOOS)-$(HOSTARCH)-race/setmatchd

# The workstation tool is built for these too, by make test (test-tool-builds):
# it compiles there, nothing more (the tests run on linux only). About 3 s with a
# warm build cache; with an empty one (GOCACHE=$(mktemp -d) make
# test-tool-builds) 89 s of CPU (75 s user, 14 s system) for the two, 112 s of
# wall time on the 2-core build machine under a load average of 6 to 7. The
# daemon is linux only.
TOOL_TARGETS ?= windows/amd64 darwin/arm64

# The architecture of make cross and make deb: arm64 (a Raspberry Pi) or
# amd64, names Debian and Go share.
DEB_ARCH ?= arm64
CROSSDIR := $(BIN)/linux-$(DEB_ARCH)
DEB      := $(DIST)/setmatch_$(VERSION)_$(DEB_ARCH).deb
# The package's Maintainer field: put your own name and address here (or on
# the command line) when you distribute the package.
MAINTAINER ?= setmatch maintainers <maintainers@setmatch.example>
# Files make deb generates for the package: man pages, compressed changelog.
DEBGEN   := $(BIN)/deb
# nfpm is pinned and built through the Go module proxy into bin/tools; go.mod
# is not touched. (v2.46 and later need modules the proxy does not serve here.)
NFPM_VERSION ?= v2.45.0
NFPM     := $(BIN)/tools/nfpm-$(NFPM_VERSION)
EXAMPLE_CONFIG := config/setmatchd.example.toml
# Package timestamps: the last commit, so that the .deb is reproducible too.
# (safe.directory: sudo make install runs git as root in a checkout a user owns.)
SOURCE_DATE_EPOCH ?= $(shell git -c safe.directory=$(CURDIR) log -1 --format=%ct 2>/dev/null || echo 0)

# make install
DESTDIR  ?=
PREFIX   ?= /usr
SYSCONFDIR ?= /etc
UNITDIR  ?= /usr/lib/systemd/system
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
UDEVRULESDIR ?= /usr/lib/udev/rules.d
DOCDIR   ?= $(PREFIX)/share/doc/setmatch
MANDIR   ?= $(PREFIX)/share/man

FUZZTIME ?= 10s

.PHONY: all build test vet test-host test-race test-arm64 test-tool-builds test-daemon-host test-daemon-arm64 bench fuzz cross cross-check deb deb-files install demo clean

all: build

build:
	CGO_ENABLED=0 GOEXPERIMENT=$(SIMD) $(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN)/ ./cmd/...

vet:
	$(GO) vet $(PKGS)

test: vet test-host test-race test-arm64 test-tool-builds

test-tool-builds:
	@set -e; for t in $(TOOL_TARGETS); do \
		echo "GOOS=$${t%/*} GOARCH=$${t#*/} go build ./cmd/setmatch"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/setmatch; \
	done

# The whole suite with the portable kernels, then the packages whose results
# go through the AVX2 kernels again with them (match's TestSIMDMatchesPortable
# compares the two directly; internal/matmul's tests compare its kernels
# with gonum's products bit for bit).
test-host: test-daemon-host $(NFPM)
	SETMATCHD_BIN=$(abspath $(HOST_TESTD)) SETMATCH_BIN=$(abspath $(HOST_TESTTOOL)) $(GO) test -count=1 -timeout $(HOST_TIMEOUT) $(PKGS)
ifneq ($(SIMD),)
	GOEXPERIMENT=$(SIMD) $(GO) test -count=1 -timeout $(HOST_TIMEOUT) ./match/... ./model/... ./internal/matmul/... ./learn/... ./method/... ./setkernel/...
endif

test-daemon-host:
	CGO_ENABLED=0 $(GO) build -o $(HOST_TESTD) ./cmd/setmatchd
	CGO_ENABLED=0 $(GO) build -o $(HOST_TESTTOOL) ./cmd/setmatch

# The setmatch tool beside the daemon is test-daemon-host's: it is not what
# the race pass is about.
test-race: test-daemon-host
	@cc=$$($(GO) env CC); command -v $${cc%% *} >/dev/null || { echo "C compiler $$cc not found: go test -race needs cgo; apt-get install -y gcc libc6-dev"; exit 1; }
	CGO_ENABLED=1 $(GO) build -race -o $(RACE_TESTD) ./cmd/setmatchd
	SETMATCHD_BIN=$(abspath $(RACE_TESTD)) SETMATCH_BIN=$(abspath $(HOST_TESTTOOL)) CGO_ENABLED=1 \
		$(GO) test -race -short -count=1 -timeout $(RACE_TIMEOUT) $(RACE_PKGS)
ifneq ($(SIMD),)
	CGO_ENABLED=1 GOEXPERIMENT=$(SIMD) $(GO) test -race -short -count=1 -timeout $(RACE_TIMEOUT) ./match/... ./model/... ./internal/matmul/... ./learn/... ./method/... ./setkernel/...
endif

# Runs the same tests as arm64 binaries: the code paths without assembly, and
# fused multiply-add, are what a Raspberry Pi executes. An emulated test
# binary cannot start mosquitto itself: scripts/mosquitto-test.sh starts two
# brokers on the host for the MQTT tests (device/mqtt, cmd/setmatchd) and
# names them in SETMATCH_TEST_MQTT_BROKER and SETMATCH_TEST_MQTT_AUTH_BROKER.
test-arm64: test-daemon-arm64
	@command -v $(QEMU) >/dev/null || { echo "$(QEMU) not found: apt-get install -y qemu-user-static"; exit 1; }
	scripts/mosquitto-test.sh env SETMATCHD_BIN=$(abspath $(ARM64_TESTD)) SETMATCH_BIN=$(abspath $(ARM64_TESTTOOL)) SETMATCHD_EXEC=$(QEMU) GOARCH=arm64 CGO_ENABLED=0 \
		$(GO) test -exec $(QEMU) -timeout $(ARM64_TIMEOUT) $(ARM64_TESTFLAGS) $(PKGS)

test-daemon-arm64:
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o $(ARM64_TESTD) ./cmd/setmatchd
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o $(ARM64_TESTTOOL) ./cmd/setmatch

bench:
	GOEXPERIMENT=$(SIMD) $(GO) test -run '^$$' -bench . -benchmem $(PKGS)

fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh

cross:
	mkdir -p $(CROSSDIR)
	CGO_ENABLED=0 GOOS=linux GOARCH=$(DEB_ARCH) $(GO) build $(GOBUILD_REPRO) -o $(CROSSDIR)/ $(addprefix ./cmd/,$(CMDS))
	@cd $(CROSSDIR) && ls -l $(CMDS) && sha256sum $(CMDS)

cross-check: cross
	GO=$(GO) GOARCH=$(DEB_ARCH) LDFLAGS="$(LDFLAGS)" scripts/cross-check.sh $(CROSSDIR) $(CMDS)

$(NFPM):
	mkdir -p $(BIN)/tools
	GOBIN=$(abspath $(BIN)/tools) CGO_ENABLED=0 $(GO) install github.com/goreleaser/nfpm/v2/cmd/nfpm@$(NFPM_VERSION)
	mv $(BIN)/tools/nfpm $@

# The man pages come from the programs themselves (setmatch man, setmatchd
# -manpage: the flag sets they parse), built for this machine; gzip -n keeps
# name and time out of the .gz, so the package stays reproducible.
deb-files:
	@v=$$(sed -n '1s/^setmatch (\([^)]*\)).*/\1/p' cross/changelog); [ "$$v" = "$(VERSION)" ] || \
		{ echo "cross/changelog: the latest entry is $$v, the package is $(VERSION): add an entry for it at the top"; exit 1; }
	rm -rf $(DEBGEN) && mkdir -p $(DEBGEN)
	gzip -9n < cross/changelog > $(DEBGEN)/changelog.gz
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(GO) run -ldflags "-X main.version=$(VERSION)" ./cmd/setmatch man > $(DEBGEN)/setmatch.1
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(GO) run -ldflags "-X main.version=$(VERSION)" ./cmd/setmatchd -manpage > $(DEBGEN)/setmatchd.8
	gzip -9n $(DEBGEN)/setmatch.1 $(DEBGEN)/setmatchd.8

deb: deb-files cross $(NFPM)
	@test -f $(EXAMPLE_CONFIG) || { echo "$(EXAMPLE_CONFIG) is missing: the package installs it as /etc/setmatch/setmatchd.toml"; exit 1; }
	mkdir -p $(DIST)
	VERSION=$(VERSION) DEB_ARCH=$(DEB_ARCH) MAINTAINER="$(MAINTAINER)" BINDIR=$(CROSSDIR) GENDIR=$(DEBGEN) \
		SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) \
		$(NFPM) package --config cross/nfpm.yaml --packager deb --target $(DEB)
	scripts/check-deb.sh $(DEB)

# For a Pi that builds from source (native arm64 build); for a package, use make deb.
# It installs what make build made, and builds nothing itself: make build runs
# as the user whose PATH has Go, sudo make install as root (whose PATH may not).
install:
	@for c in $(CMDS); do test -x $(BIN)/$$c || { echo "$(BIN)/$$c is missing: run make build first (as yourself, with Go on the PATH), then sudo make install"; exit 1; }; done
	@test -f $(EXAMPLE_CONFIG) || { echo "$(EXAMPLE_CONFIG) is missing"; exit 1; }
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(SYSCONFDIR)/setmatch/conf.d $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(addprefix $(BIN)/,$(CMDS)) $(DESTDIR)$(PREFIX)/bin/
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(BIN)/setmatch man > $(DESTDIR)$(MANDIR)/man1/setmatch.1
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(BIN)/setmatchd -manpage > $(DESTDIR)$(MANDIR)/man8/setmatchd.8
	gzip -9nf $(DESTDIR)$(MANDIR)/man1/setmatch.1 $(DESTDIR)$(MANDIR)/man8/setmatchd.8
	chmod 0644 $(DESTDIR)$(MANDIR)/man1/setmatch.1.gz $(DESTDIR)$(MANDIR)/man8/setmatchd.8.gz
	sed -e 's|/usr/bin/setmatchd|$(PREFIX)/bin/setmatchd|g' -e 's|/etc/setmatch/|$(SYSCONFDIR)/setmatch/|g' \
		-e 's|/usr/share/doc/setmatch/|$(DOCDIR)/|g' \
		systemd/setmatchd.service > $(DESTDIR)$(UNITDIR)/setmatchd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/setmatchd.service
	install -m 0644 systemd/setmatchd.sysusers $(DESTDIR)$(SYSUSERSDIR)/setmatch.conf
	install -m 0644 systemd/setmatchd.tmpfiles $(DESTDIR)$(TMPFILESDIR)/setmatch.conf
	install -m 0644 systemd/60-setmatch-gpio.rules $(DESTDIR)$(UDEVRULESDIR)/60-setmatch-gpio.rules
	install -m 0644 docs/APPLIANCE.md docs/FORMATS.md $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(DOCDIR)/examples
	install -m 0644 scripts/camera-burst.sh $(DESTDIR)$(DOCDIR)/examples/camera-burst.sh
	install -m 0644 systemd/setmatchd-network.conf.example $(DESTDIR)$(DOCDIR)/setmatchd-network.conf.example
	@# Never overwrite a configuration that is already there.
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/setmatch/setmatchd.toml ]; then \
		echo "keeping $(DESTDIR)$(SYSCONFDIR)/setmatch/setmatchd.toml; the example is $(EXAMPLE_CONFIG)"; \
	else \
		install -m 0644 $(EXAMPLE_CONFIG) $(DESTDIR)$(SYSCONFDIR)/setmatch/setmatchd.toml; \
	fi
	@if [ -z "$(DESTDIR)" ]; then \
		systemd-sysusers $(SYSUSERSDIR)/setmatch.conf && \
		systemd-tmpfiles --create $(TMPFILESDIR)/setmatch.conf && \
		if [ -d /run/udev ]; then udevadm control --reload-rules; udevadm trigger --subsystem-match=gpio --action=change; fi; \
		if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
		echo "installed; put a model at /var/lib/setmatch/model.smm, run 'sudo -u setmatch setmatchd -config $(SYSCONFDIR)/setmatch/setmatchd.toml -check', then 'systemctl enable --now setmatchd'"; \
	fi

demo: build
	BIN=$(abspath $(BIN)) scripts/demo.sh

clean:
	rm -rf $(BIN) $(DIST)
