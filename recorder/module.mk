# recorder/ - vxrec: record a kernel run into a trace, verify a trace.
VXREC_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard recorder/*.c))
$(eval $(call vx_prog,vxrec,$(VXREC_OBJS),$(CLI_LIB) $(TRACE_LIB) $(SIM_LIB)))
