# Two processes that take turns through two multiprocessing.Locks (POSIX
# named semaphores, mapped by both): no message passes between them.
#   lock_pingpong.py ROUNDS
import multiprocessing as mp
import sys


def child(mine, theirs, rounds):
    for _ in range(rounds):
        mine.acquire()  # the parent's turn is over
        theirs.release()


if __name__ == "__main__":
    rounds = int(sys.argv[1])
    mp.set_start_method("fork")
    to_child, to_parent = mp.Lock(), mp.Lock()
    to_child.acquire()
    to_parent.acquire()
    p = mp.Process(target=child, args=(to_child, to_parent, rounds))
    p.start()
    for _ in range(rounds):
        to_child.release()
        to_parent.acquire()
    p.join()
    print("rounds", rounds)
