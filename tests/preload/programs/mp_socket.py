# An unmodified Python program: a multiprocessing pool, a pipe, and a
# socket pair between two processes.
import multiprocessing
import os
import socket


def square(x):
    return x * x


def main():
    with multiprocessing.Pool(2) as pool:
        print(sum(pool.map(square, range(10))))
    parent, child = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        parent.close()
        child.sendall(b"hello from the child")
        child.close()
        os._exit(0)
    child.close()
    data = b""
    while True:
        chunk = parent.recv(64)
        if not chunk:
            break
        data += chunk
    os.waitpid(pid, 0)
    assert data == b"hello from the child", data
    print(data.decode())


if __name__ == "__main__":
    main()
