# replay/ - vxreplay, the GDB remote server with reverse execution.
REPLAY_SRCS := $(wildcard replay/*.c)
REPLAY_OBJS := $(REPLAY_SRCS:%.c=$(BUILD)/%.o)

# Unit tests of the replay internals link the objects they test.
$(BUILD)/tests/t-rsp: $(BUILD)/replay/rsp.o
