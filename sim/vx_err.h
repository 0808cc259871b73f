/*
 * vx_err.h - the one error enum of vxrr.
 *
 * Every library function that can fail returns a vx_err: 0 is success and
 * every error is negative.  vx_strerror() gives a fixed English phrase; the
 * handle that failed (vx_sim_errmsg(), vx_trace_reader_errmsg(), ...) keeps a
 * detailed message naming the file, offset, warp or register involved.
 */
#ifndef VX_ERR_H
#define VX_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

/* clang-format off */
#define VX_ERR_LIST(X)                                                         \
    X(VX_OK,            0,  "success")                                         \
    X(VX_ERR_NOMEM,    -1,  "out of memory")                                   \
    X(VX_ERR_INVAL,    -2,  "invalid argument")                                \
    X(VX_ERR_CONFIG,   -3,  "invalid platform configuration")                  \
    X(VX_ERR_IO,       -4,  "input/output error")                              \
    X(VX_ERR_FORMAT,   -5,  "unrecognised or malformed file")                  \
    X(VX_ERR_TRUNC,    -6,  "file is truncated")                               \
    X(VX_ERR_CORRUPT,  -7,  "data is corrupt")                                 \
    X(VX_ERR_VERSION,  -8,  "unsupported format version")                      \
    X(VX_ERR_UNSUPP,   -9,  "unsupported feature")                             \
    X(VX_ERR_RANGE,    -10, "no such warp, lane, register or address")         \
    X(VX_ERR_STATE,    -11, "operation not allowed in the current state")      \
    X(VX_ERR_REJECT,   -12, "instruction rejected")                            \
    X(VX_ERR_END,      -13, "end of data")                                     \
    X(VX_ERR_DIVERGED, -14, "replay diverged from the trace")                  \
    X(VX_ERR_LIMIT,    -15, "limit reached")                                   \
    X(VX_ERR_EXISTS,   -16, "file exists")                                     \
    X(VX_ERR_MEMORY,   -17, "guest memory limit exceeded")
/* clang-format on */

#define VX_ERR_ENUM_(name, val, msg) name = (val),

typedef enum vx_err {
    VX_ERR_LIST(VX_ERR_ENUM_)
} vx_err;

#undef VX_ERR_ENUM_

/* A fixed phrase for an error code; never NULL. */
const char *vx_strerror(vx_err err);

#ifdef __cplusplus
}
#endif

#endif /* VX_ERR_H */
