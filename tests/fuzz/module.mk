# tests/fuzz/ - libFuzzer harnesses, built with clang in MODE=fuzz (make fuzz runs
# them; see README "Fuzzing").  `make test` builds them but does not run them.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
$(BUILD)/fuzz/fuzz-%: $(BUILD)/tests/fuzz/fuzz-%.o $(REPLAY_LIB) $(CLI_LIB) $(TRACE_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LIBS) -lpthread
$(BUILD)/tests/fuzz/%.o: override CPPFLAGS += -Ireplay
fuzz-bins: $(FUZZ_BINS)
.SECONDARY: $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%.o)
.PHONY: fuzz-bins
# fuzz-tools runs vxdump's and vxdiff's main() in process
$(BUILD)/tests/fuzz/vxdump-main.o: tools/vxdump/main.c $(BUILD)/.flags
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Dmain=vxdump_main -Wno-missing-prototypes -MMD -MP -c $< -o $@
$(BUILD)/tests/fuzz/vxdiff-main.o: tools/vxdiff/main.c $(BUILD)/.flags
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itools/vxdump -Dmain=vxdiff_main -Wno-missing-prototypes -MMD -MP -c $< -o $@
# (the programs' other objects, from their own lists: one added there is linked here too)
$(BUILD)/fuzz/fuzz-tools: $(BUILD)/tests/fuzz/vxdump-main.o $(BUILD)/tests/fuzz/vxdiff-main.o \
    $(sort $(filter-out %/main.o,$(VXDUMP_OBJS) $(VXDIFF_OBJS)))
# The harnesses are compiled (not linked: that needs clang's libFuzzer runtime) with the
# test programs of every build, so that `make test` fails when one no longer builds.
test-bins: $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%.o)
