/*
 * net.h - the transports of vxreplay: a TCP listener (one client at a time; others
 * are turned away while one is served) and stdin/stdout (`target remote | vxreplay
 * --stdio TRACE`).
 */
#ifndef VX_NET_H
#define VX_NET_H

#include <stdbool.h>
#include <stddef.h>

#include "gdbserver.h"

/*
 * Listen on bind:port (port 0: any free port).  Returns the socket, or -1 with a
 * message in msg.  *actual receives the port listened on.
 */
int vx_net_listen(const char *bind, unsigned port, unsigned *actual, char *msg, size_t cap);

/*
 * Take the next client from lfd (a socket from vx_net_listen), waiting up to wait_ms
 * for one (-1: as long as it takes).  Returns its socket, or -1 with accept()'s error
 * (EAGAIN: none came) in *err and a message in msg.  A connection aborted before it
 * was taken, or a signal, makes it look again.
 */
int vx_net_accept(int lfd, int wait_ms, char *peer, size_t peercap, char *msg, size_t cap,
                  int *err);

/*
 * Serve one client over (in_fd, out_fd) until it ends the session or goes away.
 * Every packet received is answered, also when an input pipe ends after it (a
 * script that closed its side but still reads), unless the output is gone; the end
 * of a socket's input ends the session at once.  Returns 1 if
 * the client ended the session itself (detach, kill), 0 if its input ended or the
 * connection was lost, -errno if a reply could not be written.
 */
int vx_net_session(vx_gdbserver *srv, int in_fd, int out_fd);

/*
 * vx_net_session, turning away any client that connects to the listening socket
 * lfd meanwhile: its connection is accepted and closed at once (its debugger says
 * the remote connection closed), and refused(ctx, peer, 0) is called, if not NULL.
 * When it cannot be accepted for lack of resources (out of file descriptors: the one
 * this session uses may be the last), it waits in the backlog, to be served after
 * this session, and refused(ctx, NULL, errno) is called once; the listener is looked
 * at again every VX_CLI_ACCEPT_BACKOFF_MS meanwhile.
 */
int vx_net_session_guarded(vx_gdbserver *srv, int in_fd, int out_fd, int lfd,
                           void (*refused)(void *ctx, const char *peer, int err), void *ctx);

#endif /* VX_NET_H */
