# A local RFC 3161 time-stamp authority for tests, run with pyHanko's venv Python: pyHanko's own
# DummyTimeStamper signs each request with the certificate and key given in argv. Prints its port.
# argv: <tsa-cert.pem> <tsa-key.pem>
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from asn1crypto import tsp
from pyhanko.keys import load_cert_from_pemder, load_private_key_from_pemder
from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper

stamper = DummyTimeStamper(tsa_cert=load_cert_from_pemder(sys.argv[1]),
                           tsa_key=load_private_key_from_pemder(sys.argv[2], None))


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        request = tsp.TimeStampReq.load(self.rfile.read(int(self.headers['Content-Length'])))
        body = stamper.request_tsa_response(request).dump()
        self.send_response(200)
        self.send_header('Content-Type', 'application/timestamp-reply')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
