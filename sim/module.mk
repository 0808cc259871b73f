# sim/ - libvxsim
SIM_SRCS := $(wildcard sim/*.c)
SIM_OBJS := $(SIM_SRCS:%.c=$(BUILD)/%.o)
SIM_LIB  := $(BUILD)/libvxsim.a
$(SIM_LIB): $(SIM_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
all: $(SIM_LIB)
