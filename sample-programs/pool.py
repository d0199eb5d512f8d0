#!/usr/bin/env python3
"""pool.py -- an ordinary Python program using multiprocessing.Pool, recorded
unmodified: the pool's 2 worker processes get tasks and send results back
over pipes that the multiprocessing module creates itself.

Prints the sum of the squares of 1..100, computed by the workers in chunks:
    sum of squares 1..100 = 338350

    build/bin/radar record -o rec -- python3 build/bin/pool.py
"""
import time
from multiprocessing import Pool


def square(n):
    return n * n


if __name__ == "__main__":
    pool = Pool(2)
    squares = pool.map(square, range(1, 101), chunksize=25)
    # The pool's threads decide what to do next by looking at each other's
    # state, not only at what they receive: radar debug re-runs a process
    # with its recorded calls, not its recorded thread schedule (see
    # docs/debugging-one-process.md). Letting the pool's worker-handler
    # thread settle before close(), and joining instead of leaving a `with`
    # block (which terminates the threads wherever they are), makes this
    # program's calls the same on every run.
    time.sleep(0.2)
    pool.close()
    pool.join()
    print("sum of squares 1..100 =", sum(squares))
