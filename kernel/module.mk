# kernel/ - device runtime and example kernels (filled in by the runtime work)
kernels:
