# tools/vxsim - run a kernel on the simulator
VXSIM_OBJS := $(BUILD)/tools/vxsim/main.o
$(eval $(call vx_prog,vxsim,$(VXSIM_OBJS),$(CLI_LIB) $(SIM_LIB)))
