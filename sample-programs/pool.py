#!/usr/bin/env python3
"""pool.py -- an ordinary Python program using multiprocessing.Pool, recorded
unmodified: the pool's 2 worker processes get tasks and send results back
over pipes that the multiprocessing module creates itself.

Prints the sum of the squares of 1..100, computed by the workers in chunks:
    sum of squares 1..100 = 338350

    build/bin/radar record -o rec -- python3 build/bin/pool.py
"""
from multiprocessing import Pool


def square(n):
    return n * n


if __name__ == "__main__":
    with Pool(2) as pool:
        squares = pool.map(square, range(1, 101), chunksize=25)
    print("sum of squares 1..100 =", sum(squares))
