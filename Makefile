# vxrr - top-level, non-recursive Makefile.
#
#   make                 build libraries into build/ and programs into build/bin/ (release)
#   make MODE=debug      the same with ASan+UBSan into build/debug/
#   make MODE=tsan       the same with ThreadSanitizer into build/tsan/
#   make test            install missing packages, build, run the TAP suite (release, ASan+UBSan,
#                        and the recorder's threaded tests under ThreadSanitizer); when clang
#                        is installed, also build everything with it (build/clang/)
#   make demo            install missing packages, build, run the end-to-end demo
#   make bench           benchmarks (release build), prints measured ratios
#   make fuzz            libFuzzer harnesses (clang), FUZZ_TIME seconds each
#   make check [T=tests/tNNNN-x.py]  the suite (or one file) against this MODE only, no set-up
#   make refresh-goldens re-record tests/golden/'s traces after an intended behaviour change
#   make kernels         build the example kernels into build/kernels/
#   make install PREFIX=/usr/local   (make uninstall PREFIX=... removes it)
#   make check-format / format / clean
#   WERROR=0             warnings are not errors (for CFLAGS that GCC warns differently under)
#
# Each directory contributes a module.mk.  Automatic header dependencies via -MMD -MP;
# a flags stamp rebuilds everything when the effective flags change.

# A recipe that fails leaves no target behind that a later make would take as made.
.DELETE_ON_ERROR:

MODE     ?= release
ifeq ($(MODE),release)
  BUILD  ?= build
else
  BUILD  ?= build/$(MODE)
endif
BIN      := $(BUILD)/bin
CC       ?= cc
WERROR   ?= 1
PREFIX   ?= /usr/local
PKG_CONFIG ?= pkg-config
NPROC    := $(shell nproc 2>/dev/null || echo 2)

CSTD     := -std=c11
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wundef -Wvla -Wformat=2
ifeq ($(WERROR),1)
  WARN   += -Werror
endif
DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags capstone liblz4 libelf 2>/dev/null)
DEPS_LIBS   := $(shell $(PKG_CONFIG) --libs capstone liblz4 libelf 2>/dev/null || echo -lcapstone -llz4 -lelf)
override CPPFLAGS += -Isim -Itrace-format -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(DEPS_CFLAGS)
ifeq ($(MODE),debug)
  OPT      := -O1 -g3 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -DVX_DEBUG=1
  override LDFLAGS += -fsanitize=address,undefined
else ifeq ($(MODE),release)
  OPT      := -O2 -g -DNDEBUG
else ifeq ($(MODE),tsan)
  OPT      := -O1 -g -fno-omit-frame-pointer -fsanitize=thread -DVX_DEBUG=1
  override LDFLAGS += -fsanitize=thread
else ifeq ($(MODE),fuzz)
  # (a CC on make's command line would win over this: test and fuzz pass CC=clang)
  CC       := clang
  OPT      := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
             -DVX_DEBUG=1 -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  override LDFLAGS += -fsanitize=address,undefined
else
  $(error unknown MODE=$(MODE) (use release, debug, tsan or fuzz))
endif
ALL_CFLAGS = $(CSTD) $(WARN) $(OPT) $(CPPFLAGS) $(CFLAGS)
LIBS      = -lm $(DEPS_LIBS)

all:

# link a program: $(call vx_prog,name,objects,libraries)
define vx_prog
$(BIN)/$(1): $(2) $(3)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $(2) $(3) $$(LIBS) -lpthread
all: $(BIN)/$(1)
PROGRAMS += $(1)
endef

include sim/module.mk trace-format/module.mk tools/module.mk recorder/module.mk replay/module.mk \
        kernel/module.mk tests/module.mk tests/fuzz/module.mk

$(BUILD)/.flags: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS)' > $@

$(BUILD)/%.o: %.c $(BUILD)/.flags
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

deps:
	@sh .ci/install-deps

# The test suite runs under the release build and again under ASan+UBSan; the tests of
# the threaded code once more under ThreadSanitizer: the recorder (vxrec's writer
# thread) and replay (vxreplay's thread that computes the digests a trace lacks).  A
# race stops the program that has it (halt_on_error), which fails its test, also when
# it is a server whose exit status no test reads.
TSAN_TESTS := tests/unit/t-rec-pipe.c tests/t4001-vxrec.py tests/t4002-kernels.py \
              tests/t4003-dm-record.py tests/unit/t-engine.c tests/t5002-replay-modes.py
PROVE_OPTS ?= -j2
test: deps
	@$(MAKE) --no-print-directory -j$(NPROC) MODE=release all kernels test-bins
	@$(MAKE) --no-print-directory -j$(NPROC) MODE=debug all test-bins
	@echo "== tests (release build)"
	VXRR_BUILD=build prove --exec tests/run-one $(PROVE_OPTS) $(if $(T),$(T),$(TESTS))
	@echo "== tests (debug build: ASan+UBSan)"
	VXRR_BUILD=build/debug prove --exec tests/run-one $(PROVE_OPTS) $(if $(T),$(T),$(TESTS))
ifeq ($(T),)
	@if command -v clang >/dev/null 2>&1; then \
	    echo "== build with clang (the code builds with GCC and clang under -Werror)"; \
	    $(MAKE) --no-print-directory -j$(NPROC) MODE=release CC=clang BUILD=build/clang all test-bins; \
	else echo "== (clang is not installed: no clang build)"; fi
	@if printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' | \
	    clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then \
	    echo "== build the libFuzzer harnesses (make fuzz runs them)"; \
	    $(MAKE) --no-print-directory -j$(NPROC) MODE=fuzz CC=clang fuzz-bins; \
	else echo "== (no clang with libFuzzer: the fuzz harnesses are only compiled)"; fi
	@echo "== build at -Og (GCC's -Wmaybe-uninitialized differs by level: the build stays warning-free)"
	@$(MAKE) --no-print-directory -j$(NPROC) MODE=release CFLAGS="-Og -g" BUILD=build/og all test-bins
	@$(MAKE) --no-print-directory -j$(NPROC) MODE=tsan all test-bins
	@echo "== tests (tsan build: ThreadSanitizer on the threaded recorder and replay)"
	TSAN_OPTIONS="halt_on_error=1 $$TSAN_OPTIONS" VXRR_BUILD=build/tsan prove --exec tests/run-one \
	    $(PROVE_OPTS) $(TSAN_TESTS)
endif

# Run the suite once against the current MODE only (quick iteration).
check: all kernels test-bins
	VXRR_BUILD=$(BUILD) prove --exec tests/run-one $(PROVE_OPTS) $(if $(T),$(T),$(TESTS))

demo: deps
	@$(MAKE) --no-print-directory -j$(NPROC) MODE=release all kernels
	@sh tests/demo.sh

bench: deps
	@$(MAKE) --no-print-directory -j$(NPROC) MODE=release all kernels
	@sh tests/bench.sh

# libFuzzer harnesses (tests/fuzz/, clang, ASan+UBSan): FUZZ_TIME seconds each.
FUZZ_TIME ?= 60
fuzz:
	@VXRR_EXTRA_PKGS="clang libclang-rt-dev" sh .ci/install-deps
	@$(MAKE) --no-print-directory -j$(NPROC) MODE=release all kernels
	@$(MAKE) --no-print-directory -j$(NPROC) MODE=fuzz CC=clang fuzz-bins
	@sh tests/fuzz/run.sh $(FUZZ_TIME)

# The documentation goes to PREFIX/share/vxrr/doc with the source tree's layout, so
# that the paths --help names (trace-format/FORMAT.md) and the documents' links hold
# there too.
# (sim/STATE.md: FORMAT.md says the two are the whole specification, and cites its sections)
DOCS := README.md replay/README.md trace-format/FORMAT.md sim/STATE.md tools/vxdump/SCHEMA.md \
        kernel/README.md
# The libraries for tools of one's own (vx_trace.h: reading and writing traces; vx_sim.h:
# the simulator): PREFIX/include/vxrr, PREFIX/lib, and pkg-config files, so that
# `cc tool.c $$(pkg-config --cflags --libs vxtrace)` builds one.
LIB_HEADERS := sim/vx_base.h sim/vx_err.h sim/vx_event.h sim/vx_sim.h sim/vx_isa.h sim/vx_isa.def \
               sim/vx_fpu.h trace-format/vx_trace.h
VX_VERSION := $(shell sed -n 's/^\#define VX_VERSION_STRING "\(.*\)"/\1/p' sim/vx_base.h)
define pc_file
	printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$${prefix}/include/vxrr' 'libdir=$${prefix}/lib' '' \
	    'Name: $(1)' 'Description: $(2)' 'Version: $(VX_VERSION)' 'Requires: $(3)' \
	    'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -l$(1) $(4)' \
	    > "$(DESTDIR)$(PREFIX)/lib/pkgconfig/$(1).pc"
endef
install: all $(KERNEL_INSTALL_DEPS)
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/vxrr"
	install -m 755 $(addprefix $(BIN)/,$(PROGRAMS)) "$(DESTDIR)$(PREFIX)/bin/"
	for d in $(DOCS); do install -D -m 644 "$$d" "$(DESTDIR)$(PREFIX)/share/vxrr/doc/$$d" || exit 1; done
	install -d "$(DESTDIR)$(PREFIX)/include/vxrr" "$(DESTDIR)$(PREFIX)/lib/pkgconfig"
	install -m 644 $(LIB_HEADERS) "$(DESTDIR)$(PREFIX)/include/vxrr/"
	install -m 644 $(SIM_LIB) $(TRACE_LIB) "$(DESTDIR)$(PREFIX)/lib/"
	$(call pc_file,vxsim,functional simulator of the Vortex GPGPU with its Debug Module (vxrr),libelf capstone,-lm)
	$(call pc_file,vxtrace,writer and reader of vxrr traces (.vxt),liblz4,)
	$(INSTALL_EXTRA)

# What install put there: the programs, vxcc, PREFIX/share/vxrr, PREFIX/include/vxrr, the
# libraries and their pkg-config files (the same DESTDIR and PREFIX); PREFIX/bin,
# PREFIX/share, PREFIX/lib stay (other packages may have files there).
uninstall:
	rm -f $(foreach p,$(PROGRAMS) vxcc,"$(DESTDIR)$(PREFIX)/bin/$(p)")
	rm -rf "$(DESTDIR)$(PREFIX)/share/vxrr" "$(DESTDIR)$(PREFIX)/include/vxrr"
	rm -f "$(DESTDIR)$(PREFIX)/lib/libvxsim.a" "$(DESTDIR)$(PREFIX)/lib/libvxtrace.a" \
	    "$(DESTDIR)$(PREFIX)/lib/pkgconfig/vxsim.pc" "$(DESTDIR)$(PREFIX)/lib/pkgconfig/vxtrace.pc"
	-rmdir "$(DESTDIR)$(PREFIX)/lib/pkgconfig" 2>/dev/null

check-format:
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build

.PHONY: all deps test check demo bench fuzz install uninstall check-format format clean FORCE kernels test-bins
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
