# replay/ - vxreplay, the GDB remote server with reverse execution.
REPLAY_LIB_SRCS := replay/rsp.c replay/agentx.c replay/gdbserver.c replay/engine.c replay/timeline.c \
                   replay/target_xml.c replay/net.c replay/index.c
REPLAY_LIB_OBJS := $(REPLAY_LIB_SRCS:%.c=$(BUILD)/%.o)
REPLAY_LIB      := $(BUILD)/libvxreplay.a
$(REPLAY_LIB): $(REPLAY_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(eval $(call vx_prog,vxreplay,$(BUILD)/replay/main.o $(REPLAY_LIB),$(CLI_LIB) $(TRACE_LIB) $(SIM_LIB)))

# The gdb script ships next to the programs (build tree) and in share/vxrr (installed).
$(BIN)/vxrr.gdb: replay/vxrr.gdb
	@mkdir -p $(@D)
	cp $< $@
all: $(BIN)/vxrr.gdb
INSTALL_EXTRA += install -m 644 replay/vxrr.gdb "$(DESTDIR)$(PREFIX)/share/vxrr/";

# Unit tests of the replay internals: the test rule links the libraries before
# these extra prerequisites, so the libraries are named again after them.
$(BUILD)/tests/t-rsp: $(BUILD)/replay/rsp.o
$(BUILD)/tests/t-agentx: $(BUILD)/replay/agentx.o
REPLAY_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/t-engine*.c))
$(REPLAY_TESTS): $(REPLAY_LIB)
$(REPLAY_TESTS): LIBS = $(REPLAY_LIB) $(CLI_LIB) $(TRACE_LIB) $(SIM_LIB) -lm $(DEPS_LIBS) -lpthread
