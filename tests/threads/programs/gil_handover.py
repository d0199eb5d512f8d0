# Threads that compete for CPython's interpreter lock: each computes for
# longer than the lock's switch interval (5 ms) between two writes, so a
# waiting thread's wait times out and it asks the holder to let go, by a
# flag the holder reads between bytecodes. The order of the writes, read
# back at the end, is the order the threads got the lock in.
#   gil_handover.py ROUNDS
import os
import sys
import threading

rounds = int(sys.argv[1])
r, w = os.pipe()


def work(n):
    for k in range(rounds):
        total = sum(i * n for i in range(300000))
        os.write(w, b"%d" % n)


threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
os.close(w)
order = b""
while chunk := os.read(r, 4096):
    order += chunk
print(order.decode())
