"""The live API for bench/serve-upstream.sh: GET …/config-bundle answers a bundle at once the
first time, then slowly: `slow` waits 20 s before answering, `trickle` sends the answer a
byte every 0.25 s. Writes its port to the file named by argv[2]."""
import http.server, json, socketserver, sys, time

MODE, PORT_FILE = sys.argv[1], sys.argv[2]
served = 0

def bundle(version):
    return json.dumps({"bundle_version": version,
                       "experiments": {"experiments": {"e": {"status": "running", "salt": "s",
                                       "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]}}},
                       "remote_config": {"greeting": "hi"}}).encode()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def do_GET(self):
        global served
        served += 1
        body = bundle(10 + served)
        first = served == 1
        if MODE == "slow" and not first:
            time.sleep(20)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            if MODE == "trickle" and not first:
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1]); self.wfile.flush(); time.sleep(0.25)
            else:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

server = Server(("127.0.0.1", 0), Handler)
with open(PORT_FILE, "w") as f: f.write(str(server.server_address[1]))
server.serve_forever()
