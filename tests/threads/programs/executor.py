# asyncio with a thread-pool executor: coroutines hand blocking work (a
# pipe written and read back, a hash) to three threads and gather it.
import asyncio
import concurrent.futures
import hashlib
import os


def blocking(i):
    r, w = os.pipe()
    os.write(w, b"work %d" % i)
    os.close(w)
    data = os.read(r, 100)
    os.close(r)
    return hashlib.sha256(data * 1000).hexdigest()[:8]


async def main():
    loop = asyncio.get_running_loop()
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        results = await asyncio.gather(*(loop.run_in_executor(pool, blocking, i) for i in range(24)))
    print(len(results), results[0], results[-1])


asyncio.run(main())
