# tests/ - TAP tests.  C tests are tests/unit/t-*.c, each linked against the libraries;
# Python tests are tests/t*.py.  TESTS lists everything prove runs.
TEST_C_SRCS := $(wildcard tests/unit/t-*.c)
TEST_C_BINS := $(TEST_C_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TAP_OBJ     := $(BUILD)/tests/lib/tap.o
$(BUILD)/tests/t-%: $(BUILD)/tests/unit/t-%.o $(TAP_OBJ) $(CLI_LIB) $(TRACE_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)
# the writer thread's test links vxrec's pipe (and its clock) and the thread library
$(BUILD)/tests/t-rec-pipe: $(BUILD)/recorder/pipe.o $(BUILD)/recorder/clock.o
$(BUILD)/tests/t-rec-pipe: LIBS += -lpthread
test-bins: $(TEST_C_BINS)
# kept: as intermediates of the chain .c -> .o -> test, make deleted them, and the next
# make compiled them all again (their .d files name them)
.SECONDARY: $(TEST_C_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%.o) $(TAP_OBJ)
override CPPFLAGS += -Itests/lib
# prove runs C tests by name (tests/run-one maps tests/unit/t-x.c to $VXRR_BUILD/tests/t-x)
TESTS := $(sort $(TEST_C_SRCS) $(wildcard tests/t*.py))
