# tools/ - programs: vxsim, and shared command-line support (tools/common)
CLI_SRCS := $(wildcard tools/common/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
CLI_LIB  := $(BUILD)/libvxcli.a
$(CLI_LIB): $(CLI_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
CPPFLAGS += -Itools/common
