# setmatch — build, test, benchmark, cross-compile and package.
# `make demo` runs the whole appliance on generated data; `make test` runs
# every test on this machine and again as linux/arm64 binaries under qemu-user.

GO       ?= go
BIN      := bin
ARM64    := $(BIN)/linux-arm64
PKGS     := ./...
QEMU     ?= qemu-aarch64-static
LDFLAGS  := -s -w -buildid=
# Tests under qemu are slower; -short trims the long property sweeps there.
ARM64_TESTFLAGS ?= -short -count=1

.PHONY: all build test test-host test-arm64 bench cross fuzz vet clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

vet:
	$(GO) vet $(PKGS)

test: vet test-host test-arm64

test-host:
	$(GO) test -count=1 $(PKGS)

# Runs the same tests as arm64 binaries: the code paths without assembly, and
# fused multiply-add, are what a Raspberry Pi executes.
test-arm64:
	@command -v $(QEMU) >/dev/null || { echo "$(QEMU) not found: apt-get install -y qemu-user-static"; exit 1; }
	GOARCH=arm64 CGO_ENABLED=0 $(GO) test -exec $(QEMU) $(ARM64_TESTFLAGS) $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

cross:
	mkdir -p $(ARM64)
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(ARM64)/ ./cmd/...

clean:
	rm -rf $(BIN)
