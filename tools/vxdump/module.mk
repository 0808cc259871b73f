# tools/vxdump - show a trace (text, JSON Lines, summary, Perfetto timeline).
# evfmt.o is shared with vxdiff (tools/vxdiff/module.mk); symtab is in tools/common.
VXDUMP_SHARED := $(BUILD)/tools/vxdump/evfmt.o
VXDUMP_OBJS := $(BUILD)/tools/vxdump/main.o $(BUILD)/tools/vxdump/summary.o \
               $(BUILD)/tools/vxdump/timeline.o $(VXDUMP_SHARED)
$(eval $(call vx_prog,vxdump,$(VXDUMP_OBJS),$(CLI_LIB) $(TRACE_LIB) $(SIM_LIB)))
