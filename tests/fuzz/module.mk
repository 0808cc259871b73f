# tests/fuzz/ - libFuzzer harnesses, built with clang in MODE=fuzz (make fuzz runs
# them; see README "Fuzzing").  Not part of `make test`: they run until stopped.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
$(BUILD)/fuzz/fuzz-%: $(BUILD)/tests/fuzz/fuzz-%.o $(REPLAY_LIB) $(CLI_LIB) $(TRACE_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS) -lpthread
$(BUILD)/tests/fuzz/%.o: CPPFLAGS += -Ireplay
fuzz-bins: $(FUZZ_BINS)
.PHONY: fuzz-bins
