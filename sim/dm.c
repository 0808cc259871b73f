/* dm.c - the VxDebug Debug Module.  STUB: replaced by the DM implementation. */
#include <stdlib.h>
#include "dm_int.h"

struct vx_dm {
    vx_sim *sim;
};

struct vx_dm *vx_dm_new(vx_sim *sim)
{
    struct vx_dm *dm = calloc(1, sizeof *dm);
    if (dm) dm->sim = sim;
    return dm;
}

void vx_dm_free(struct vx_dm *dm)
{
    free(dm);
}

bool vx_dm_cycle(struct vx_dm *dm)
{
    (void)dm;
    return false;
}

bool vx_dm_in_reset(const struct vx_dm *dm)
{
    (void)dm;
    return false;
}

void vx_dm_on_halt(struct vx_dm *dm, uint32_t gwarp, uint8_t cause)
{
    (void)dm, (void)gwarp, (void)cause;
}

size_t vx_dm_state_size(const struct vx_dm *dm)
{
    (void)dm;
    return 0;
}

void vx_dm_state_save(const struct vx_dm *dm, void *buf)
{
    (void)dm, (void)buf;
}

void vx_dm_state_restore(struct vx_dm *dm, const void *buf)
{
    (void)dm, (void)buf;
}

vx_err vx_sim_dm_read(vx_sim *sim, uint32_t addr, uint32_t *val)
{
    (void)sim, (void)addr;
    *val = 0;
    return VX_ERR_UNSUPP;
}

vx_err vx_sim_dm_write(vx_sim *sim, uint32_t addr, uint32_t val)
{
    (void)sim, (void)addr, (void)val;
    return VX_ERR_UNSUPP;
}
