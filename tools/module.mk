# tools/ - shared command-line support (tools/common -> libvxcli.a) and one
# sub-directory per program, each with its own module.mk.
CLI_SRCS := $(wildcard tools/common/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
CLI_LIB  := $(BUILD)/libvxcli.a
$(CLI_LIB): $(CLI_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
override CPPFLAGS += -Itools/common
include $(wildcard tools/*/module.mk)
