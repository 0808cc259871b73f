# kernel/ - the device runtime (crt0, link32.ld, intrinsics, printf, spawn), the
# vxcc compiler driver and the example kernels.
#
#   make                puts vxcc into $(BIN)/ (no RISC-V toolchain needed)
#   make kernels        builds the runtime into build/kernels/lib/ and every
#                       example into build/kernels/NAME.elf (+ hello.vxbin)
#   make kernels KERNEL_CFLAGS='-O2 -DN=4096'   other sizes
#
# Kernels do not depend on MODE: they always go to build/kernels/.

KDIR          := build/kernels
KLIB          := $(KDIR)/lib
RISCV_PREFIX  ?= riscv64-unknown-elf-
RISCV_CC      := $(RISCV_PREFIX)gcc
RISCV_AR      := $(RISCV_PREFIX)ar
KERNEL_CFLAGS ?= -O2 -g
VXRT_FLAGS    := --specs=picolibc.specs -march=rv32imaf -mabi=ilp32f -mcmodel=medany \
                 -ffunction-sections -fdata-sections -fno-unswitch-loops \
                 -fno-tree-loop-distribute-patterns -fno-thread-jumps -fno-split-paths \
                 -Ikernel/include -O2 -g -gno-column-info \
                 -U__INT32_TYPE__ -D__INT32_TYPE__=int -U__UINT32_TYPE__ -D__UINT32_TYPE__=unsigned \
                 -U__INT_LEAST32_TYPE__ -D__INT_LEAST32_TYPE__=int \
                 -U__UINT_LEAST32_TYPE__ -D__UINT_LEAST32_TYPE__=unsigned \
                 -Wall -Wextra -Werror
VXRT_HDRS     := $(wildcard kernel/include/*.h)
VXRT_LIB_SRCS := kernel/src/vx_spawn.c kernel/src/vx_print.c kernel/src/vx_serial.S \
                 kernel/src/vx_spawn_entry.S kernel/src/vx_softfloat.S kernel/src/vx_exit.S \
                 kernel/src/vx_perf.c kernel/src/vx_new.c
VXRT_LIB_OBJS := $(patsubst kernel/src/%,$(KLIB)/%.o,$(VXRT_LIB_SRCS))
VXRT          := $(KLIB)/crt0.o $(KLIB)/vx_syscalls.o $(KLIB)/libvxrt.a
KERNEL_SRCS   := $(wildcard kernel/examples/*.c kernel/examples/*.cpp)
KERNEL_NAMES  := $(basename $(notdir $(KERNEL_SRCS)))
KERNEL_ELFS   := $(KERNEL_NAMES:%=$(KDIR)/%.elf)

$(KLIB)/crt0.o: kernel/src/crt0.S $(VXRT_HDRS)
	@mkdir -p $(@D)
	$(RISCV_CC) $(VXRT_FLAGS) -c $< -o $@
$(KLIB)/vx_syscalls.o: kernel/src/vx_syscalls.c $(VXRT_HDRS)
	@mkdir -p $(@D)
	$(RISCV_CC) $(VXRT_FLAGS) -c $< -o $@
$(KLIB)/%.o: kernel/src/% $(VXRT_HDRS)
	@mkdir -p $(@D)
	$(RISCV_CC) $(VXRT_FLAGS) -c $< -o $@
# vxcc takes the prebuilt runtime only when libvxrt.a is newer than every runtime
# source and header, crt0.S included: the archive is made after the other objects.
# crt0.o is a member too: vxcc links it for _start (-u _start), so a kernel with
# its own _start goes without it.
$(KLIB)/libvxrt.a: $(VXRT_LIB_OBJS) $(KLIB)/crt0.o $(KLIB)/vx_syscalls.o
	rm -f $@ && $(RISCV_AR) rcs $@ $(VXRT_LIB_OBJS) $(KLIB)/crt0.o

# Examples are built with vxcc itself, so the driver is exercised by every build.
# (each also gets NAME.vxbin, the Vortex image: one run of the recipe makes both).
# The stamp rebuilds them when KERNEL_CFLAGS or the toolchain prefix change.
$(KDIR)/.kflags: FORCE
	@mkdir -p $(@D)
	@echo '$(KERNEL_CFLAGS) $(RISCV_PREFIX)' | cmp -s - $@ || echo '$(KERNEL_CFLAGS) $(RISCV_PREFIX)' > $@
KERNEL_DEPS   := $(VXRT) $(VXRT_HDRS) $(wildcard kernel/examples/*.h) kernel/vxcc kernel/link32.ld \
                 $(KDIR)/.kflags
$(KDIR)/%.elf $(KDIR)/%.vxbin: kernel/examples/%.c $(KERNEL_DEPS)
	sh kernel/vxcc $(KERNEL_CFLAGS) -Wall -Wextra -Werror --vxbin -o $(KDIR)/$*.elf $<
$(KDIR)/%.elf $(KDIR)/%.vxbin: kernel/examples/%.cpp $(KERNEL_DEPS)
	sh kernel/vxcc $(KERNEL_CFLAGS) -Wall -Wextra -Werror --vxbin -o $(KDIR)/$*.elf $<

kernels: $(VXRT) $(KERNEL_ELFS) $(KERNEL_ELFS:.elf=.vxbin)

$(BIN)/vxcc: kernel/vxcc
	@mkdir -p $(@D)
	cp $< $@ && chmod 755 $@
all: $(BIN)/vxcc

# make install: vxcc with the programs, the runtime under share/vxrr/kernel.
# The prebuilt runtime is installed when `make kernels` has built it (brought up to
# date first: KERNEL_INSTALL_DEPS); otherwise the installed vxcc compiles it from the
# installed sources on each run.  install -p keeps the files' times, by which the
# installed vxcc sees a prebuilt runtime older than its sources.  Without a prebuilt
# runtime, the one an earlier install left is removed (vxcc would link it when it is
# newer than the sources installed now).
# The prebuilt runtime that is installed is compiled again into $(KLIB_INST), its
# debug information naming the sources where they are installed
# (PREFIX/share/vxrr/kernel/src) instead of in this tree: GDB shows the runtime's
# source (crt0.S at the first stop, vx_spawn.c, vx_print.c) once the tree is moved
# or deleted.  The stamp recompiles it for another PREFIX.
VXRR_KSHARE = "$(DESTDIR)$(PREFIX)/share/vxrr/kernel"
KLIB_INST     := $(KDIR)/lib-install
VXRT_INST     := $(KLIB_INST)/crt0.o $(KLIB_INST)/vx_syscalls.o $(KLIB_INST)/libvxrt.a
VXRT_INST_MAP  = "-fdebug-prefix-map=$(CURDIR)=$(PREFIX)/share/vxrr"
$(KLIB_INST)/.prefix: FORCE
	@mkdir -p $(@D)
	@echo '$(VXRT_FLAGS) $(RISCV_PREFIX) $(PREFIX)' | cmp -s - $@ || \
	    echo '$(VXRT_FLAGS) $(RISCV_PREFIX) $(PREFIX)' > $@
$(KLIB_INST)/crt0.o: kernel/src/crt0.S $(VXRT_HDRS) $(KLIB_INST)/.prefix
	$(RISCV_CC) $(VXRT_FLAGS) $(VXRT_INST_MAP) -c $< -o $@
$(KLIB_INST)/vx_syscalls.o: kernel/src/vx_syscalls.c $(VXRT_HDRS) $(KLIB_INST)/.prefix
	$(RISCV_CC) $(VXRT_FLAGS) $(VXRT_INST_MAP) -c $< -o $@
$(KLIB_INST)/%.o: kernel/src/% $(VXRT_HDRS) $(KLIB_INST)/.prefix
	$(RISCV_CC) $(VXRT_FLAGS) $(VXRT_INST_MAP) -c $< -o $@
$(KLIB_INST)/libvxrt.a: $(VXRT_LIB_SRCS:kernel/src/%=$(KLIB_INST)/%.o) $(KLIB_INST)/crt0.o \
                        $(KLIB_INST)/vx_syscalls.o
	rm -f $@ && $(RISCV_AR) rcs $@ $(VXRT_LIB_SRCS:kernel/src/%=$(KLIB_INST)/%.o) $(KLIB_INST)/crt0.o
KERNEL_INSTALL_DEPS := $(if $(wildcard $(KLIB)/libvxrt.a),$(VXRT) $(VXRT_INST))
define INSTALL_KERNEL
install -m 755 $(BIN)/vxcc "$(DESTDIR)$(PREFIX)/bin/vxcc"
install -d $(VXRR_KSHARE)/include $(VXRR_KSHARE)/src $(VXRR_KSHARE)/examples $(VXRR_KSHARE)/lib
install -d $(VXRR_KSHARE)/include/c++ $(VXRR_KSHARE)/include/c++-c
install -p -m 644 kernel/include/*.h $(VXRR_KSHARE)/include/
install -p -m 644 $(filter-out %.md,$(wildcard kernel/include/c++/*)) $(VXRR_KSHARE)/include/c++/
install -p -m 644 kernel/include/c++-c/* $(VXRR_KSHARE)/include/c++-c/
install -p -m 644 kernel/src/* $(VXRR_KSHARE)/src/
install -p -m 644 kernel/examples/* $(VXRR_KSHARE)/examples/
install -p -m 644 kernel/link32.ld $(VXRR_KSHARE)/
if [ -f $(KLIB)/libvxrt.a ]; then install -p -m 644 $(VXRT_INST) $(VXRR_KSHARE)/lib/; \
else rm -f $(VXRT_INST:$(KLIB_INST)/%=$(VXRR_KSHARE)/lib/%); fi

endef
INSTALL_EXTRA += $(INSTALL_KERNEL)

# The same installation of vxcc and its runtime alone (used by tests/t2004-vxcc.py,
# so the test does not depend on every program building).
install-vxcc: $(BIN)/vxcc $(KERNEL_INSTALL_DEPS)
	install -d "$(DESTDIR)$(PREFIX)/bin"
	$(INSTALL_KERNEL)
.PHONY: install-vxcc
