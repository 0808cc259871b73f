# trace-format/ - libvxtrace (depends only on sim/vx_base.h, vx_err.h, vx_event.h)
TRACE_SRCS := $(wildcard trace-format/*.c)
TRACE_OBJS := $(TRACE_SRCS:%.c=$(BUILD)/%.o)
TRACE_LIB  := $(BUILD)/libvxtrace.a
$(TRACE_LIB): $(TRACE_OBJS) $(BUILD)/sim/err.o
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
all: $(TRACE_LIB)
