"""The process that starts the server's workers: it imports the engine once, then forks.

    python -m interpreter.serve.zygote FD

``FD`` is its end of a socket pair with the server. Each request is one line naming a worker
kind, sent with one file descriptor (``SCM_RIGHTS``): the worker's end of its own socket. The
zygote forks; the child runs ``worker.main`` on that socket, the zygote answers with the
child's pid. Children are reaped by the system (``SIGCHLD`` ignored). Nothing but a kind and a
descriptor crosses: no code, no pickle, nothing of a request.
"""

from __future__ import annotations

import os
import signal
import socket
import sys

from . import worker

__all__ = ["main"]


def _serve(control: socket.socket) -> None:
    while True:
        message, fds, _, _ = socket.recv_fds(control, 64, 1)
        if not message:
            return
        kind = message.decode("ascii", "replace").strip()
        if not fds or kind not in worker.KINDS:
            for fd in fds:
                os.close(fd)
            control.sendall(b"0\n")
            continue
        pid = os.fork()
        if pid == 0:
            control.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            code = 0
            try:
                worker.main(socket.socket(fileno=fds[0]), kind)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(fds[0])
        control.sendall(f"{pid}\n".encode("ascii"))


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the system
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    control = socket.socket(fileno=int(args[0]))
    try:
        _serve(control)
    except (OSError, EOFError):
        pass


if __name__ == "__main__":
    main()
