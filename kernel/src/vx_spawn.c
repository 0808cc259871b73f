/*
 * vx_spawn.c - vx_spawn_threads: distribute a grid of blocks over the cores,
 * warps and lanes of the machine (see vx_spawn.h for the policy).
 *
 * How a core runs its share
 *   Warp 0 lane 0 (the thread running main) fills a spawn_args record on its
 *   stack and points mscratch (one per core) at it.  It spawns the other warps
 *   at __vx_spawn_warp_entry (vx_spawn_entry.S), which activates all lanes,
 *   keeps those for which __vx_spawn_lane_on() is true (vx_pred) and calls
 *   __vx_spawn_lane_main on them.  Warp 0 itself runs its part the same way
 *   through __vx_spawn_run (ending with tmc 1), then waits for the other warps
 *   with vx_wspawn(1, 0) and restores mscratch.
 *
 *   Lanes other than lane 0 enter __vx_spawn_lane_main with only sp, gp and tp
 *   valid (set up per thread by crt0 and preserved across activations), so
 *   everything the lane needs is read from the spawn_args record.
 *
 * SIMT rule
 *   Code that runs on several lanes at once must branch uniformly: every loop
 *   bound and condition below depends only on the warp (warp id, args), never
 *   on the lane.  Lane-dependent values (block and thread indices) are computed
 *   with arithmetic only.
 */
#include <vx_print.h>
#include <vx_spawn.h>

/* All thread-local: see vx_spawn.h for why gridDim and blockDim are too. */
__thread dim3_t blockIdx;
__thread dim3_t threadIdx;
__thread dim3_t gridDim;
__thread dim3_t blockDim;
__thread uint32_t __local_group_id;
__thread uint32_t __warps_per_group;

typedef struct spawn_args {
    vx_kernel_func_cb fn;
    const void *arg;
    dim3_t grid;
    dim3_t block;
    uint32_t group_size; /* threads per block */
    uint32_t tasks;      /* tasks mode (blocks of one thread, one per lane) */
    uint32_t first;      /* first block of this core */
    uint32_t count;      /* blocks of this core */
    /* tasks mode */
    uint32_t runs_per_warp; /* full runs of NT blocks per warp ... */
    uint32_t runs_rem;      /* ... plus one for warps below runs_rem */
    uint32_t tail_first;    /* first block of the partial run done by warp 0 */
    volatile uint32_t tail; /* while warp 0 runs the partial run: its length */
    /* group mode */
    uint32_t warps_per_group; /* ceil(group_size / NT) */
    uint32_t slots;           /* blocks running at once on the core */
} spawn_args;

/* Entry points shared with vx_spawn_entry.S. */
void __vx_spawn_warp_entry(void);
void __vx_spawn_run(void);
int __vx_spawn_lane_on(void);
void __vx_spawn_lane_main(void);

static inline spawn_args *current_args(void)
{
    return (spawn_args *)csr_read(VX_CSR_MSCRATCH);
}

/* Call the kernel's function, never as a tail call (a jump that leaves no frame of
 * ours): GDB's next then steps over the call instead of into the kernel, and the
 * kernel's backtrace and finish reach the runtime frame that called it. */
#define CALL_KERNEL(call)     \
    do {                      \
        call;                 \
        __asm__ volatile(""); \
    } while (0)

static inline uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* Does the calling lane have work?  (Evaluated on all lanes of the warp.) */
int __vx_spawn_lane_on(void)
{
    const spawn_args *a = current_args();
    uint32_t wid = (uint32_t)vx_warp_id();
    uint32_t lane = (uint32_t)vx_thread_id();
    uint32_t nt = (uint32_t)vx_num_threads();
    if (a->tasks) return wid == 0 && a->tail ? lane < a->tail : 1;
    /* group mode: the last warp of a block is partial */
    uint32_t r = wid % a->warps_per_group;
    return lane < a->group_size - r * nt;
}

static inline void split3(uint32_t v, const dim3_t *d, dim3_t *out)
{
    uint32_t q = v / d->x;
    out->x = v - q * d->x;
    out->z = q / d->y;
    out->y = q - out->z * d->y;
}

static void set_dims(const spawn_args *a)
{
    gridDim = a->grid;
    blockDim = a->block;
}

static void run_task(const spawn_args *a, uint32_t task)
{
    split3(task, &a->grid, &blockIdx);
    CALL_KERNEL(a->fn((void *)a->arg));
}

static void lane_main_tasks(const spawn_args *a, uint32_t wid, uint32_t lane, uint32_t nt)
{
    threadIdx.x = threadIdx.y = threadIdx.z = 0;
    __local_group_id = 0;
    if (wid == 0 && a->tail) {
        run_task(a, a->tail_first + lane);
        return;
    }
    /* warp w does runs run0 .. run0 + runs - 1 of NT consecutive blocks */
    uint32_t runs = a->runs_per_warp + (wid < a->runs_rem);
    uint32_t run0 = wid * a->runs_per_warp + min_u32(wid, a->runs_rem);
    uint32_t task = a->first + run0 * nt + lane;
    for (uint32_t r = 0; r < runs; r++, task += nt)
        run_task(a, task);
}

static void lane_main_groups(const spawn_args *a, uint32_t wid, uint32_t lane, uint32_t nt)
{
    uint32_t wpg = a->warps_per_group;
    uint32_t slot = wid / wpg;
    uint32_t tid = (wid - slot * wpg) * nt + lane;
    __local_group_id = slot;
    split3(tid, &a->block, &threadIdx);
    /* Slot k runs blocks k, k + slots, ...: the same trip count for all its warps. */
    for (uint32_t g = slot; g < a->count; g += a->slots) {
        split3(a->first + g, &a->grid, &blockIdx);
        a->fn((void *)a->arg);
    }
}

void __vx_spawn_lane_main(void)
{
    const spawn_args *a = current_args();
    uint32_t wid = (uint32_t)vx_warp_id();
    uint32_t lane = (uint32_t)vx_thread_id();
    uint32_t nt = (uint32_t)vx_num_threads();
    set_dims(a);
    __warps_per_group = a->tasks ? 1 : a->warps_per_group;
    if (a->tasks)
        lane_main_tasks(a, wid, lane, nt);
    else
        lane_main_groups(a, wid, lane, nt);
}

static uint32_t product(uint32_t dim, const uint32_t *v, dim3_t *out)
{
    uint32_t p = 1;
    out->x = out->y = out->z = 1;
    for (uint32_t i = 0; i < dim; i++) {
        out->m[i] = v ? v[i] : 1;
        p *= out->m[i];
    }
    return p;
}

/* Split `total` items over the cores; returns false when this core has none. */
static int core_share(uint32_t total, uint32_t per_core_capacity, uint32_t *first, uint32_t *count)
{
    uint32_t ncores = (uint32_t)vx_num_cores();
    uint32_t core = (uint32_t)vx_core_id();
    uint32_t wanted = total / per_core_capacity + (total % per_core_capacity != 0);
    uint32_t active = min_u32(wanted, ncores);
    if (core >= active) return 0;
    uint32_t each = total / active, rem = total % active;
    *first = core * each + min_u32(core, rem);
    *count = each + (core < rem);
    return 1;
}

/* vx_spawn_threads; groups: group mode even for blocks of one thread (a warp each,
 * as Vortex v2.1's vx_spawn_task_groups runs them) */
static int spawn(uint32_t dimension, const uint32_t *grid_dim, const uint32_t *block_dim,
                 vx_kernel_func_cb kernel_func, const void *arg, int groups)
{
    if (dimension < 1 || dimension > 3 || !grid_dim || !kernel_func) return -1;

    uint32_t nt = (uint32_t)vx_num_threads();
    uint32_t nw = (uint32_t)vx_num_warps();
    spawn_args a;
    a.fn = kernel_func;
    a.arg = arg;
    uint32_t num_groups = product(dimension, grid_dim, &a.grid);
    a.group_size = product(dimension, block_dim, &a.block);
    if (a.group_size == 0) return -1;
    if (a.group_size > nw * nt) { /* Vortex's runtime says so too */
        vx_printf("error: group_size > threads_per_core (%u,%u)\n", (unsigned)a.group_size,
                  (unsigned)(nw * nt));
        return -1;
    }
    /* main's own view, so code after the spawn sees the launch shape. */
    set_dims(&a);
    if (num_groups == 0) return 0;

    uint32_t warps;
    a.tail = 0;
    a.tasks = a.group_size == 1 && !groups;
    if (a.tasks) {
        if (!core_share(num_groups, nw * nt, &a.first, &a.count)) return 0;
        uint32_t runs = a.count / nt;
        a.runs_per_warp = runs / nw;
        a.runs_rem = runs % nw;
        a.tail_first = a.first + runs * nt;
        warps = min_u32(runs, nw);
        a.warps_per_group = 1;
        a.slots = 1;
    } else {
        a.warps_per_group = (a.group_size + nt - 1) / nt;
        a.slots = nw / a.warps_per_group;
        if (!core_share(num_groups, a.slots, &a.first, &a.count)) return 0;
        warps = min_u32(a.count, a.slots) * a.warps_per_group;
    }

    size_t saved = csr_swap(VX_CSR_MSCRATCH, &a);
    if (warps > 1) vx_wspawn((int)warps, __vx_spawn_warp_entry);
    if (warps > 0) __vx_spawn_run();
    if (a.tasks && a.count % nt != 0) {
        a.tail = a.count % nt;
        __vx_spawn_run();
    }
    if (warps > 1) vx_wspawn(1, 0); /* wait until the other warps have ended */
    csr_write(VX_CSR_MSCRATCH, saved);
    return 0;
}

int vx_spawn_threads(uint32_t dimension, const uint32_t *grid_dim, const uint32_t *block_dim,
                     vx_kernel_func_cb kernel_func, const void *arg)
{
    return spawn(dimension, grid_dim, block_dim, kernel_func, arg, 0);
}

/* The older API (vx_spawn.h): its callback and argument, for the adapters below. */
typedef struct old_launch {
    vx_spawn_tasks_cb task_cb;
    vx_spawn_task_groups_cb group_cb;
    void *arg;
} old_launch;

static void old_task(void *p)
{
    const old_launch *l = p;
    CALL_KERNEL(l->task_cb((int)blockIdx.x, l->arg));
}

static void old_group(void *p)
{
    const old_launch *l = p;
    CALL_KERNEL(l->group_cb((int)threadIdx.x, (int)blockIdx.x, (int)__local_group_id,
                            (int)__warps_per_group, l->arg));
}

void vx_spawn_tasks(int num_tasks, vx_spawn_tasks_cb callback, void *arg)
{
    old_launch l = {callback, 0, arg};
    uint32_t grid = num_tasks > 0 ? (uint32_t)num_tasks : 0;
    if (callback) vx_spawn_threads(1, &grid, 0, old_task, &l);
}

void vx_spawn_task_groups(int num_groups, int group_size, vx_spawn_task_groups_cb callback,
                          void *arg)
{
    old_launch l = {0, callback, arg};
    uint32_t grid = num_groups > 0 ? (uint32_t)num_groups : 0;
    uint32_t block = group_size > 0 ? (uint32_t)group_size : 0;
    if (callback) spawn(1, &grid, &block, old_group, &l, 1);
}
