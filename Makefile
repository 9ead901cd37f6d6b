# cpufreq-bpf: BPF struct_ops cpufreq governors, their loader and tests.
#
#   make deps    install build and test dependencies (apt-get, as root)
#   make         patched kernel (+ debug kernel), bpftool/libbpf, vmlinux.h,
#                BPF governors and the loader, all under build/
#   make check   deps, everything, then host unit tests and every BATS suite
#                inside the VM
#   make demo    deps, the default kernel and what the tour uses, then boot
#                the VM and show governors at work (never the debug kernel)
#   make bench   benchmarks (not tests): CSV, plots and a summary in build/bench
#
# Long steps print a line each; V=1 shows the commands.

SHELL := /bin/bash
BUILD := $(CURDIR)/build
# Quiet by default, kbuild style: Q hides a command, say prints its line.
ifeq ($(V),1)
Q :=
say := @true
else
Q := @
say := @printf '  %-8s %s\n'
endif
export CACHE ?= /var/cache/cpufreq-bpf

CLANG ?= clang-19
LLVM_STRIP ?= llvm-strip-19
KSRC := $(BUILD)/linux
BPFTOOL := $(BUILD)/tools/bpftool/bpftool
LIBBPF_DIR := $(BUILD)/tools/libbpf
LIBBPF_A := $(LIBBPF_DIR)/libbpf.a
VMLINUX_H := $(BUILD)/vmlinux.h

DEPS := linux-source-6.12 clang-19 llvm-19 lld-19 libelf-dev zlib1g-dev \
	flex bison bc dwarves libssl-dev cpio qemu-system-x86 bats \
	rt-tests rt-app stress-ng linux-cpupower trace-cmd gnuplot-nox \
	busybox-static libcap-dev python3 jq lz4

# The shipped governors in build/bpf (what the loader lists), the
# selftests' objects apart in build/bpf-tests.
BPF_OBJS := $(patsubst bpf-governors/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(wildcard bpf-governors/*.bpf.c)) \
	$(patsubst selftests/bpf/%.bpf.c,$(BUILD)/bpf-tests/%.bpf.o,$(wildcard selftests/bpf/*.bpf.c))
BPF_HDRS := $(wildcard include/*.h)

SELFTEST_TOOLS := $(BUILD)/selftests/link_update $(BUILD)/selftests/churn \
	$(BUILD)/selftests/bursty
USER_CFLAGS := -O2 -g -Wall -Wextra -Werror -I$(LIBBPF_DIR)/include
USER_LDLIBS := $(LIBBPF_A) -lelf -lz

# The loader: every loader/*.c but the unit tests' mains goes into it.
LOADER := $(BUILD)/loader/cpufreq-bpf
LOADER_SRCS := $(wildcard loader/*.c)
LOADER_HDRS := $(wildcard loader/*.h)
LOADER_TESTS := $(patsubst loader/tests/%.c,$(BUILD)/tests/%,$(wildcard loader/tests/*.c))
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# Names and paths are cut to the kernel's sizes on purpose.
LOADER_CFLAGS := $(USER_CFLAGS) -Wno-format-truncation -DCPUFREQ_BPF_VERSION='"$(VERSION)"'

.PHONY: all deps kernel kernel-debug tools bpf governors loader install check demo bench clean FORCE
all: kernel kernel-debug tools bpf $(SELFTEST_TOOLS) $(if $(LOADER_SRCS),loader) $(LOADER_TESTS)

loader: $(LOADER)

$(LOADER): $(LOADER_SRCS) $(LOADER_HDRS) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(say) LOADER $(@F)
	$(Q)$(CC) $(LOADER_CFLAGS) -DCPUFREQ_BPF_OBJDIR='"$(BUILD)/bpf"' $(LOADER_SRCS) -o $@ $(USER_LDLIBS)

# Host-side unit tests: each links the loader's modules but its main.
$(BUILD)/tests/%: loader/tests/%.c $(filter-out loader/main.c,$(LOADER_SRCS)) $(LOADER_HDRS) \
		$(wildcard loader/tests/*.h) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(say) UNIT $(@F)
	$(Q)$(CC) $(LOADER_CFLAGS) -Iloader -DTEST_OBJDIR='"$(BUILD)/bpf"' \
		-DTEST_TESTOBJDIR='"$(BUILD)/bpf-tests"' $< \
		$(filter-out loader/main.c,$(LOADER_SRCS)) -o $@ $(USER_LDLIBS)

# make install [PREFIX=/usr/local] [DESTDIR=]: the loader, the shipped
# governors, the man page, the systemd unit, bash completion, and an example
# config file where none exists.  The installed loader looks for governors in LIBDIR.
PREFIX ?= /usr/local
SBINDIR := $(PREFIX)/sbin
GOVDIR := $(PREFIX)/lib/cpufreq-bpf
MANDIR := $(PREFIX)/share/man/man8
UNITDIR := $(PREFIX)/lib/systemd/system
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions
SHIPPED_GOVS := $(patsubst bpf-governors/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(wildcard bpf-governors/*.bpf.c))
INSTALLED_LOADER := $(BUILD)/install/cpufreq-bpf

$(INSTALLED_LOADER): $(LOADER_SRCS) $(LOADER_HDRS) $(LIBBPF_A) FORCE
	@mkdir -p $(@D)
	$(CC) $(LOADER_CFLAGS) -DCPUFREQ_BPF_OBJDIR='"$(GOVDIR)"' $(LOADER_SRCS) -o $@ $(USER_LDLIBS)

install: $(INSTALLED_LOADER) $(SHIPPED_GOVS)
	install -D -m 0755 $(INSTALLED_LOADER) $(DESTDIR)$(SBINDIR)/cpufreq-bpf
	install -d -m 0755 $(DESTDIR)$(GOVDIR)
	install -m 0644 $(SHIPPED_GOVS) $(DESTDIR)$(GOVDIR)/
	install -D -m 0644 loader/cpufreq-bpf.8 $(DESTDIR)$(MANDIR)/cpufreq-bpf.8
	install -d -m 0755 $(DESTDIR)$(UNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' loader/cpufreq-bpf.service > \
		$(DESTDIR)$(UNITDIR)/cpufreq-bpf.service
	[ -e $(DESTDIR)/etc/cpufreq-bpf.conf ] || \
		install -D -m 0644 loader/cpufreq-bpf.conf $(DESTDIR)/etc/cpufreq-bpf.conf
	install -d -m 0755 $(DESTDIR)$(COMPLETIONDIR)
	sed 's|@GOVDIR@|$(GOVDIR)|g' loader/cpufreq-bpf.bash > \
		$(DESTDIR)$(COMPLETIONDIR)/cpufreq-bpf

# Idempotent: one line when everything is there; apt-get's output goes to
# build/deps.log, its end printed when it fails.
deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f '$${Status}\n' $$p 2>/dev/null | \
		grep -q 'ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "[deps] all installed"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "[deps] missing:" $$missing "; run 'make deps' as root" >&2; exit 1; fi; \
	mkdir -p $(BUILD); start=$$SECONDS; \
	echo "[deps] installing $$(wc -w <<< "$$missing") packages (log: $(BUILD)/deps.log)"; \
	if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q $$missing; } > $(BUILD)/deps.log 2>&1; then \
		tail -20 $(BUILD)/deps.log >&2; echo "[deps] apt-get failed" >&2; exit 1; fi; \
	echo "[deps] installed in $$((SECONDS - start)) s"

kernel: $(BUILD)/kernel/bzImage
kernel-debug: $(BUILD)/kernel-debug/bzImage

# build-kernel always runs: it links to the cached kernel for the current
# (source, series, config) key, or builds it, so a new kernel file appears
# only when one of them changed.
$(BUILD)/kernel/bzImage: FORCE
	kernel-patch/build-kernel $(BUILD)/kernel

$(BUILD)/kernel-debug/bzImage: FORCE
	kernel-patch/build-kernel --debug $(BUILD)/kernel-debug

FORCE:

# bpftool and libbpf from the same tree as the kernel, cached outside the
# clone like the kernels (kernel-patch/build-tools says why and how).  The
# kernel's step unpacks that tree; build-tools links build/tools to the
# cached build, so a warm make check builds neither.
tools: $(BPFTOOL) $(LIBBPF_A)

$(BPFTOOL) $(LIBBPF_A) &: $(BUILD)/kernel/bzImage
	$(Q)CLANG=$(CLANG) LLVM_STRIP=$(LLVM_STRIP) kernel-patch/build-tools $(BUILD)/tools

$(VMLINUX_H): $(BUILD)/kernel/bzImage $(BPFTOOL)
	$(say) GEN vmlinux.h
	$(Q)$(BPFTOOL) btf dump file $(BUILD)/kernel/vmlinux format c > $@.tmp && mv $@.tmp $@

bpf: $(BPF_OBJS)
governors: $(SHIPPED_GOVS)

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-I$(BUILD) -I$(CURDIR)/include -I$(LIBBPF_DIR)/include

$(BUILD)/bpf/%.bpf.o: bpf-governors/%.bpf.c $(BPF_HDRS) $(VMLINUX_H) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(say) BPF $(@F)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bpf-tests/%.bpf.o: selftests/bpf/%.bpf.c $(BPF_HDRS) $(VMLINUX_H) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(say) BPF $(@F)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The test governor's variants are test_gov.bpf.c under other macros.
$(patsubst %,$(BUILD)/bpf-tests/%.bpf.o,test_b test_dup test_nogo test_v2): \
	selftests/bpf/test_gov.bpf.c

$(BUILD)/selftests/%: selftests/tools/%.c $(LIBBPF_A)
	@mkdir -p $(@D)
	$(say) CC $(@F)
	$(Q)$(CC) $(USER_CFLAGS) $< -o $@ $(USER_LDLIBS)

# Static: a load started from the guest's tmpfs then never reads the
# virtio-9p root (its libc), whose waits on the host move guest time.
$(BUILD)/selftests/bursty: selftests/tools/bursty.c
	@mkdir -p $(@D)
	$(say) CC $(@F)
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -static $< -o $@

# Both set themselves up: deps first, then only what they use.
check: deps
	@$(MAKE) --no-print-directory all
	selftests/run-all

# Benchmarks: the helpers bench/guest runs in the VM, then bench/run.
BENCH_TOOLS := $(BUILD)/bench-tools/workemu $(BUILD)/bench-tools/pingpong \
	$(BUILD)/bench-tools/hotpath.bpf.o $(BUILD)/bench-tools/nullgov.bpf.o

$(BUILD)/bench-tools/%: bench/%.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -Werror $< -o $@

$(BUILD)/bench-tools/%.bpf.o: bench/%.bpf.c $(BPF_HDRS) $(VMLINUX_H) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bench-tools/schedutil_612.bpf.o: bpf-governors/schedutil.bpf.c

bench: all $(BENCH_TOOLS)
	bench/run

demo: deps
	@$(MAKE) --no-print-directory kernel tools governors loader
	selftests/demo

clean:
	rm -rf $(BUILD)
