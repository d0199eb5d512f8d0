# A multiprocessing Pool of two workers and a Manager: the pool's queues
# are guarded by multiprocessing locks (POSIX named semaphores every
# process maps), each process's threads by CPython's own locks.
import multiprocessing as mp


def square(x):
    return x * x


if __name__ == "__main__":
    with mp.Manager() as manager:
        results = manager.dict()
        pool = mp.Pool(2)
        for x, y in zip(range(20), pool.map(square, range(20))):
            results[x] = y
        pool.close()
        pool.join()
        print(sorted(results.items()))
