"""nginx as the benchmarks' reference server: one worker answering every request with a fixed
body, pinned to the server CPU. bench/h2_compare.py runs it over h2c (prior knowledge) beside a
node's HTTP/2; bench/replicated_path.py's `nginx` configuration over HTTP/1.1, as what one
wake-up per request costs on this machine when the server's own work is the least there is."""
import os
import subprocess
import time

from ports import free_ports



class Nginx:
    """One nginx worker answering every request (any method, any path) with 200 and a fixed body."""

    def __init__(self, tmp, body_bytes, server_cpus, h2=True):
        self.dir = os.path.join(tmp, "nginx-h2" if h2 else "nginx-h1")
        os.makedirs(os.path.join(self.dir, "tmp"), exist_ok=True)
        self.port = free_ports(1)[0]
        self.h2 = h2
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write("""worker_processes 1;
daemon off;
pid %(d)s/nginx.pid;
error_log %(d)s/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  default_type application/json;
  keepalive_requests 100000000;
  http2_max_requests 100000000;
  client_body_temp_path %(d)s/tmp/body;
  proxy_temp_path %(d)s/tmp/proxy;
  fastcgi_temp_path %(d)s/tmp/fastcgi;
  uwsgi_temp_path %(d)s/tmp/uwsgi;
  scgi_temp_path %(d)s/tmp/scgi;
  server {
    listen 127.0.0.1:%(p)d%(h2)s;
    location / { return 200 "%(b)s"; }
  }
}
""" % {"d": self.dir, "p": self.port, "b": "x" * body_bytes, "h2": " http2" if h2 else ""})
        nginx = "/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else "nginx"
        self.proc = subprocess.Popen(["taskset", "-c", server_cpus, nginx, "-p", self.dir, "-c", conf,
                                      "-e", os.path.join(self.dir, "error.log")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.url = "http://127.0.0.1:%d/" % self.port
        probe = ["curl", "-s", "-o", "/dev/null"] + (["--http2-prior-knowledge"] if h2 else []) + [self.url]
        deadline = time.time() + 20
        while subprocess.run(probe).returncode != 0:
            if time.time() > deadline:
                raise SystemExit("nginx did not answer at %s" % self.url)
            time.sleep(0.2)

    def pids(self):
        """The master and its workers."""
        children = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout.split()
        return [self.proc.pid] + [int(p) for p in children]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
