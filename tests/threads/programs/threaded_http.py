# A CPython ThreadingHTTPServer (a thread per connection) and its client in
# one process: the main thread asks for REQUESTS pages over loopback, two
# at a time from a thread pool, and prints what came back.
import concurrent.futures
import http.server
import sys
import threading
import urllib.request


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("page %s\n" % self.path).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    requests = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/" % server.server_address[1]

    def fetch(i):
        with urllib.request.urlopen(url + str(i)) as reply:
            return reply.read().decode().strip()

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        pages = list(pool.map(fetch, range(requests)))
    server.shutdown()
    print(len(pages), pages[0], pages[-1])
