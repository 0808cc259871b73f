# tools/vxdiff - compare two traces (lockstep or per warp); the golden-trace workflow.
VXDIFF_OBJS := $(BUILD)/tools/vxdiff/main.o $(BUILD)/tools/vxdiff/compare.o \
               $(BUILD)/tools/vxdiff/memory.o \
               $(BUILD)/tools/vxdump/evfmt.o
$(eval $(call vx_prog,vxdiff,$(VXDIFF_OBJS),$(CLI_LIB) $(TRACE_LIB) $(SIM_LIB)))
$(BUILD)/tools/vxdiff/%.o: override CPPFLAGS += -Itools/vxdump

# make refresh-goldens: re-record the golden traces of tests/golden/kernels/ after an
# intended change of behaviour (see tests/refresh-goldens.sh).
refresh-goldens: all kernels
	VXRR_BUILD=$(BUILD) sh tests/refresh-goldens.sh
.PHONY: refresh-goldens
